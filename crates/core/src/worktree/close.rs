//! `worktree close`: end a session, taking its worktree and branch away only when nothing would
//! be lost; otherwise both stay and the reasons are recorded.

use serde::Serialize;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record, RemovedBy};
use crate::session::WorktreeState;
use crate::store::Store;
use crate::worktree::removal::{BranchOutcome, remove_worktree};
use crate::worktree::verdict::{claimed_by_others, keep_reasons, other_claimants};
use crate::worktree::{LockedSession, locked_session};

/// What `close` did.
#[derive(Debug, Clone, Serialize)]
pub struct Closed {
    /// The full session id.
    pub session: String,
    /// Whether the worktree folder was removed by this close.
    pub removed: bool,
    /// What happened to the branch, when the folder went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<BranchOutcome>,
    /// Why the worktree stayed; empty when it went or there was none.
    pub kept: Vec<String>,
}

/// Closes a session.
pub fn close(store: &Store, id: &str) -> Result<Closed, Error> {
    let LockedSession {
        stored,
        session,
        _lock,
    } = locked_session(store, id)?;
    let mut closed = Closed {
        session: session.id.to_string(),
        removed: false,
        branch: None,
        kept: Vec::new(),
    };
    closed.kept = kept_because(store, &session)?;
    if let (Some(facts), WorktreeState::Active) = (&session.worktree, session.worktree_state)
        && closed.kept.is_empty()
    {
        closed.branch = Some(remove_worktree(
            &stored.log,
            facts,
            false,
            Vec::new(),
            None,
            RemovedBy::Close,
        )?);
        closed.removed = true;
    }
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::SessionClose {
            kept: closed.kept.clone(),
        },
    ))?;
    Ok(closed)
}

/// Which open sessions of a repository [`close_open`] closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Those whose worktree would go with nothing lost (its work landed, or none made), and
    /// those without a worktree; the others stay open.
    Landed,
    /// Every one: a worktree in which anything would be lost stays, as `close` keeps it.
    All,
}

/// Closes the open sessions of `repository` that `which` chooses, oldest first.
pub fn close_open(
    store: &Store,
    repository: &std::path::Path,
    which: Which,
) -> Result<Vec<Closed>, Error> {
    let (sessions, _) = crate::session::sessions_of(store, repository)?;
    let mut closed = Vec::new();
    for session in sessions.into_iter().filter(|s| s.open) {
        if which == Which::Landed && !kept_because(store, &session)?.is_empty() {
            continue;
        }
        closed.push(close(store, &session.id.to_string())?);
    }
    Ok(closed)
}

/// Why closing `session` would keep its worktree (something in it would be lost, another
/// session claims it, or it was handed over); empty when it would go, or there is none.
fn kept_because(store: &Store, session: &crate::session::Session) -> Result<Vec<String>, Error> {
    Ok(match (&session.worktree, session.worktree_state) {
        (Some(facts), WorktreeState::Active) => {
            let others = other_claimants(store, facts, &session.id)?;
            if others.is_empty() {
                keep_reasons(store, facts, session.landing.as_ref())?
            } else {
                vec![claimed_by_others(&others)]
            }
        }
        (Some(_), WorktreeState::Kept) => {
            vec!["it was handed over to you with `nodwyn worktree keep`".to_owned()]
        }
        _ => Vec::new(),
    })
}
