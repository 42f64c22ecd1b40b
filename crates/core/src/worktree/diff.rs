//! `nodwyn worktree diff`: a session's changes that have not landed yet, since its base commit
//! or the last commit its branch shares with the base (see `nodwyn_prim::review`). Read-only, so it takes no lock: a diff never holds up other commands.

use nodwyn_prim::Limits;
use nodwyn_prim::review::{Caps, Review, review};

use crate::Error;
use crate::session::Session;
use crate::store::Store;

use super::finished_worktree;

/// The changes of session `id`'s worktree since its base commit.
pub fn diff(store: &Store, id: &str, limits: &Limits) -> Result<Review, Error> {
    let session = Session::load(&store.find(id)?)?;
    let facts = finished_worktree(&session)?;
    let info = crate::host::worktree_info(&session, facts);
    nodwyn_prim::checkout::verified(&info)?;
    Ok(review(
        &facts.path,
        &info.work_starts()?,
        &Caps::of(limits),
    )?)
}

/// [`diff`] shown to a person: the tree they saw is recorded (`review.shown`), so the next
/// landing lands exactly those files or says they changed since. The record is appended
/// without the session's lock (a turn may hold it): it only ever makes a landing stricter.
pub fn diff_shown(store: &Store, id: &str, limits: &Limits) -> Result<Review, Error> {
    let review = diff(store, id, limits)?;
    let stored = store.find(id)?;
    crate::call::append(
        &stored.log,
        nodwyn_protocol::record::Event::ReviewShown {
            tree: review.tree.clone(),
            base_commit: review.base_commit.clone(),
        },
    )?;
    Ok(review)
}
