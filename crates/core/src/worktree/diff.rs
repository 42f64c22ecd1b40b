//! `nodwyn worktree diff`: a session's changes since its base commit (see
//! `nodwyn_prim::review`). Read-only, so it takes no lock: a diff never holds up other commands.

use nodwyn_prim::Limits;
use nodwyn_prim::review::{Review, review};

use crate::Error;
use crate::session::Session;
use crate::store::Store;

use super::active_worktree;

/// The changes of session `id`'s worktree since its base commit.
pub fn diff(store: &Store, id: &str, limits: &Limits) -> Result<Review, Error> {
    let session = Session::load(&store.find(id)?)?;
    let facts = active_worktree(&session)?;
    nodwyn_prim::checkout::verified(&crate::host::worktree_info(facts))?;
    Ok(review(
        &facts.path,
        &facts.base_commit,
        limits.diff_per_file,
        limits.diff_time,
    )?)
}
