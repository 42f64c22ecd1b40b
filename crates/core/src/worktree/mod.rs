//! The life of a session's worktree: made by `new`, listed, closed, resumed, removed, kept, or
//! pruned. One file per step; [`verdict`] holds the one judgement of what removing would lose,
//! and `removal` the one way a worktree and its branch are taken away.

mod close;
pub mod comments;
pub mod config;
pub(crate) mod create;
mod diff;
pub mod include;
mod keep;
mod list;
pub mod location;
mod prune;
pub mod pull_request;
mod removal;
mod remove;
mod resume;
pub mod verdict;

pub use close::{Closed, close};
pub use create::{Created, NewWorktree, attach, branch_name, create};
pub use diff::{diff, diff_shown};
pub use keep::{Kept, keep};
pub use list::{Listed, list};
pub use location::WorktreeLocation;
pub use prune::{Pruned, prune};
pub use removal::BranchOutcome;
pub use remove::{Removed, remove};
pub use resume::{Resumed, resume};

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
