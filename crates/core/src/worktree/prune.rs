//! `worktree prune`: remove the worktrees of closed sessions that `close` would remove, and say
//! why each of the others stays. It only ever looks at worktrees nodwyn made and still manages.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::Error;
use crate::event::RemovedBy;
use crate::session::{Session, Unreadable, sessions_of};
use crate::store::Store;
use crate::worktree::pull_request::finished_pull_request;
use crate::worktree::removal::{BranchOutcome, remove_worktree};
use crate::worktree::verdict::{Judging, claimants_among, claimed_by_others, keep_reasons_with};
use crate::worktree::{LockedSession, locked_session};

/// What prune did, or would do, with one worktree.
#[derive(Debug, Clone, Serialize)]
pub struct Pruned {
    /// The full session id.
    pub session: String,
    /// The worktree.
    pub path: PathBuf,
    /// Whether it was removed (with `--dry-run`: whether it would be).
    pub removed: bool,
    /// What happened to its branch, when it was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<BranchOutcome>,
    /// Why it stays.
    pub kept: Vec<String>,
    /// The pull request whose end let it go (`--merged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<PullRequestEnd>,
}

/// A pull request that ended, as `gh` reported it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PullRequestEnd {
    /// Its number.
    pub number: u64,
    /// `merged` or `closed`.
    pub state: &'static str,
}

/// Prunes the worktrees of `repository`'s closed sessions; also returns the logs that could not
/// be read (their worktrees are left alone). With `merged`, a worktree that stays only for
/// commits its base lacks goes too when `gh` reports its pull request merged or closed with its
/// head at exactly those commits (the forge has them; the branch stays).
pub fn prune(
    store: &Store,
    repository: &Path,
    dry_run: bool,
    merged: bool,
) -> Result<(Vec<Pruned>, Vec<Unreadable>), Error> {
    let (sessions, unreadable) = sessions_of(store, repository)?;
    // git's list of worktrees, read once for all (not once for each of hundreds).
    let registered = nodwyn_git::worktree::list(repository)?;
    // A first look without the lock skips the sessions with nothing to prune; each of the rest
    // is judged (and removed) on a core of its own, under its own session's lock.
    let candidates: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.active_worktree().is_some())
        .collect();
    let judging = Judging {
        registered: Some(&registered),
        on_the_forge: None,
    };
    let judged: Vec<Result<Option<Pruned>, Error>> = candidates
        .par_iter()
        .map(|candidate| prune_one(store, &sessions, candidate, &judging, dry_run, merged))
        .collect();
    let mut report = Vec::new();
    for entry in judged {
        report.extend(entry?);
    }
    Ok((report, unreadable))
}

/// Judges one candidate under its session's lock, and removes its worktree when nothing would be
/// lost (unless `dry_run`); `None` when it has no worktree any more.
fn prune_one(
    store: &Store,
    sessions: &[Session],
    candidate: &Session,
    judging: &Judging<'_>,
    dry_run: bool,
    merged: bool,
) -> Result<Option<Pruned>, Error> {
    let LockedSession {
        stored,
        session,
        _lock,
    } = locked_session(store, candidate.id.as_str())?;
    let Some(facts) = session.active_worktree() else {
        return Ok(None);
    };
    let mut entry = Pruned {
        session: session.id.to_string(),
        path: facts.path.clone(),
        removed: false,
        branch: None,
        kept: Vec::new(),
        pull_request: None,
    };
    let others = claimants_among(sessions, facts, &session.id);
    if session.id != candidate.id {
        entry
            .kept
            .push("the session locked is not the one judged".to_owned());
    } else if !others.is_empty() {
        entry.kept.push(claimed_by_others(&others));
    } else if session.open {
        entry.kept.push("the session is open".to_owned());
    } else {
        entry.kept = keep_reasons_with(store, facts, session.landing.as_ref(), judging)?;
        if merged && !entry.kept.is_empty() {
            match finished_pull_request(&facts.repository, &facts.branch, facts.pull_request) {
                Ok(Some(finished)) => {
                    let on_the_forge = Judging {
                        on_the_forge: Some(&finished.head),
                        ..*judging
                    };
                    let kept =
                        keep_reasons_with(store, facts, session.landing.as_ref(), &on_the_forge)?;
                    if kept.is_empty() {
                        entry.pull_request = Some(PullRequestEnd {
                            number: finished.number,
                            state: if finished.merged { "merged" } else { "closed" },
                        });
                    }
                    entry.kept = kept;
                }
                Ok(None) => {}
                Err(error) => entry.kept.push(error.to_string()),
            }
        }
    }
    if entry.kept.is_empty() {
        entry.removed = true;
        if !dry_run {
            entry.branch = Some(remove_worktree(
                &stored.log,
                facts,
                false,
                Vec::new(),
                None,
                RemovedBy::Prune,
            )?);
        }
    }
    Ok(Some(entry))
}
