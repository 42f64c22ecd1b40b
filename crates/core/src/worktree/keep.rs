//! `worktree keep`: hand a session's worktree over to the person. nodwyn forgets it (no
//! `list`, `close`, `prune` or `remove` touches it again); the folder and branch stay as they are.

use serde::Serialize;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record};
use crate::store::Store;
use crate::worktree::{LockedSession, finished_worktree, locked_session};

/// What `keep` handed over.
#[derive(Debug, Clone, Serialize)]
pub struct Kept {
    /// The full session id.
    pub session: String,
    /// The folder, now the person's.
    pub path: std::path::PathBuf,
    /// The branch, now the person's.
    pub branch: String,
}

/// Hands a session's worktree over to the person, closing the session if it is open.
pub fn keep(store: &Store, id: &str) -> Result<Kept, Error> {
    let LockedSession {
        stored,
        session,
        _lock,
    } = locked_session(store, id)?;
    let facts = finished_worktree(&session)?;
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::WorktreeKeep {
            path: facts.path.clone(),
            branch: facts.branch.clone(),
        },
    ))?;
    if session.open {
        stored.log.append(&Record::new(
            Timestamp::now(),
            Event::SessionClose {
                kept: vec!["it was handed over to you with `nodwyn worktree keep`".to_owned()],
            },
        ))?;
    }
    Ok(Kept {
        session: session.id.to_string(),
        path: facts.path.clone(),
        branch: facts.branch.clone(),
    })
}
