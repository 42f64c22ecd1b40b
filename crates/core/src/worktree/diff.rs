//! `nodwyn worktree diff` and the console's review: a session's changes that have not landed
//! yet (since its base commit or the last commit its branch shares with the base), those not
//! committed yet, or those of its last turn (see `nodwyn_prim::review`). Read-only, so it takes no
//! lock: a diff never holds up other commands.

use std::time::Duration;

use nodwyn_prim::Limits;
use nodwyn_prim::review::{Caps, Review, review_keeping};
use nodwyn_protocol::ChangeScope;

use crate::Error;
use crate::session::Session;
use crate::store::{Store, StoredSession};

use super::verified_worktree;

/// The changes of session `id`'s worktree since its base commit.
pub fn diff(store: &Store, id: &str, limits: &Limits) -> Result<Review, Error> {
    changes(store, id, ChangeScope::SinceBase, limits)
}

/// The changes of session `id`'s worktree in `scope`.
pub fn changes(
    store: &Store,
    id: &str,
    scope: ChangeScope,
    limits: &Limits,
) -> Result<Review, Error> {
    let stored = store.find(id)?;
    let session = Session::load(&stored)?;
    let (facts, info) = verified_worktree(&session)?;
    let since = match scope {
        ChangeScope::SinceBase => info.work_starts()?,
        ChangeScope::Uncommitted => nodwyn_git::repo::resolve_commit(&facts.path, "HEAD")?
            .unwrap_or_else(|| facts.base_commit.clone()),
        ChangeScope::LastTurn => {
            if session.turns == 0 {
                return Err(Error::declined(
                    "no_turn",
                    format!("session {} has had no turn yet", session.id),
                ));
            }
            session.last_turn_start.clone().ok_or_else(|| {
                Error::declined(
                    "turn_start_unknown",
                    format!(
                        "where session {}'s last turn began was not recorded; review its changes since the base instead",
                        session.id
                    ),
                )
            })?
        }
    };
    let kept = stored.kept_objects();
    Ok(review_keeping(
        &facts.path,
        &since,
        &Caps::of(limits),
        Some(&kept),
    )?)
}

/// [`diff`] shown to a person.
pub fn diff_shown(store: &Store, id: &str, limits: &Limits) -> Result<Review, Error> {
    changes_shown(store, id, ChangeScope::SinceBase, limits)
}

/// [`changes`] shown to a person. When they were shown every change (`SinceBase`), the tree
/// they saw is recorded (`review.shown`), so the next landing lands exactly those files or says
/// they changed since; a narrower scope shows only part of what would land, so it records
/// nothing (a landing then still needs the whole shown). The record is appended without the
/// session's lock (a turn may hold it): it only ever makes a landing stricter.
pub fn changes_shown(
    store: &Store,
    id: &str,
    scope: ChangeScope,
    limits: &Limits,
) -> Result<Review, Error> {
    let review = changes(store, id, scope, limits)?;
    if scope != ChangeScope::SinceBase {
        return Ok(review);
    }
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

/// The longest a turn waits, as it begins, for the snapshot of its worktree's files.
const TURN_START_SNAPSHOT: Duration = Duration::from_secs(10);

/// The git tree of a worktree session's files now, its objects kept for a later review of what
/// the turn beginning now changed; `None` outside a worktree. A worktree that cannot be read
/// (gone, or its `.git` file pointing elsewhere) has no tree to give.
pub(crate) fn turn_start_tree(
    stored: &StoredSession,
    session: &Session,
    limits: &Limits,
) -> Result<Option<String>, Error> {
    if session.active_worktree().is_none() || session.worktree_unfinished {
        return Ok(None);
    }
    let (facts, _) = verified_worktree(session)?;
    // A turn waits for it: past this, the turn begins without it (and says so when asked).
    let within = limits
        .diff_time
        .clamp(Duration::from_secs(1), TURN_START_SNAPSHOT);
    // A credential file is left out: it would stay in the data directory after the session.
    let denylist = nodwyn_guard::Denylist::standard();
    let leave_out = |path: &str| {
        let name = nodwyn_git::quote::os_name(path);
        denylist
            .judge(std::path::Path::new(&name), &facts.path)
            .is_denied()
    };
    let kept = stored.kept_objects();
    let snapshot = nodwyn_git::diff::Snapshot::take_with(
        &facts.path,
        within,
        &nodwyn_git::diff::Objects::KeptIn {
            folder: &kept,
            leave_out: &leave_out,
        },
    )?;
    Ok(Some(snapshot.tree()?))
}
