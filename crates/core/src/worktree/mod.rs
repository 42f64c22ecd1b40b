//! The life of a session's worktree: made by `new`, listed, closed, resumed, removed, kept, or
//! pruned. One file per step; [`verdict`] holds the one judgement of what removing would lose,
//! and `removal` the one way a worktree and its branch are taken away.

mod close;
pub mod comments;
pub mod config;
pub(crate) mod create;
pub(crate) mod diff;
pub mod hooks;
pub mod include;
mod keep;
mod list;
pub mod location;
pub mod port;
mod prune;
pub mod pull_request;
mod removal;
mod remove;
mod restore;
pub(crate) mod resume;
mod scan;
pub mod snapshot;
mod trash;
pub mod verdict;

pub use close::{Closed, Which, close, close_open};
pub use create::{Created, NewWorktree, attach, branch_name, create};
pub use diff::{changes, changes_shown, diff, diff_shown};
pub use keep::{Kept, keep};
pub use list::{Listed, list, list_watched};
pub use location::WorktreeLocation;
pub use nodwyn_git::dirty_watch::DirtyWatch;
pub use prune::{Pruned, prune};
pub use removal::BranchOutcome;
pub use remove::{Removed, remove};
pub use restore::restore;
pub use resume::{Resumed, resume};
pub use scan::{Leaving, leaving};

use crate::Error;
use crate::event::WorktreeFacts;
use crate::log::LogLock;
use crate::session::{Session, WorktreeState};
use crate::store::{Store, StoredSession};

/// A session read while holding its lock, so no other nodwyn process changes it meanwhile.
pub(crate) struct LockedSession {
    pub(crate) stored: StoredSession,
    pub(crate) session: Session,
    pub(crate) _lock: LogLock,
}

pub(crate) fn locked_session(store: &Store, id: &str) -> Result<LockedSession, Error> {
    let stored = store.find(id)?;
    let lock = stored.log.lock()?;
    let session = Session::load(&stored)?;
    Ok(LockedSession {
        stored,
        session,
        _lock: lock,
    })
}

/// The finished worktree of `session` (see [`finished_worktree`]) and what primitives know of
/// it, once its `.git` was checked to be that worktree's of that repository: what every step
/// that runs git in a session's worktree for a person (a review, a scan) starts from.
pub(crate) fn verified_worktree(
    session: &Session,
) -> Result<(&WorktreeFacts, nodwyn_prim::WorktreeInfo), Error> {
    let facts = finished_worktree(session)?;
    let info = crate::host::worktree_info(session, facts);
    nodwyn_prim::checkout::verified(&info)?;
    Ok((facts, info))
}

/// The worktree of `session` as [`active_worktree`] finds it, once it was finished: one whose
/// making was cut short is refused until `resume` finishes it (its files may be only part of its
/// branch's, and landing them would delete the rest).
pub(crate) fn finished_worktree(session: &Session) -> Result<&WorktreeFacts, Error> {
    let facts = active_worktree(session)?;
    if session.worktree_unfinished {
        return Err(Error::Unfinished {
            id: session.id.short().to_owned(),
            path: facts.path.clone(),
        });
    }
    Ok(facts)
}

/// Refuses a session whose worktree was never finished (see [`finished_worktree`]); a session
/// without a worktree, or whose worktree is gone, passes.
pub(crate) fn refuse_unfinished(session: &Session) -> Result<(), Error> {
    match session.active_worktree() {
        Some(_) => finished_worktree(session).map(drop),
        None => Ok(()),
    }
}

/// The worktree nodwyn manages for `session`, or the sentence saying why there is none.
pub(crate) fn active_worktree(session: &Session) -> Result<&WorktreeFacts, Error> {
    let id = session.id.to_string();
    match (&session.worktree, session.worktree_state) {
        (None, _) => Err(Error::NoWorktree(id)),
        (Some(facts), WorktreeState::Active) => Ok(facts),
        (Some(facts), WorktreeState::Removed) => Err(Error::AlreadyRemoved {
            id,
            path: facts.path.clone(),
        }),
        (Some(facts), WorktreeState::Kept) => Err(Error::HandedOver {
            id,
            path: facts.path.clone(),
        }),
    }
}
