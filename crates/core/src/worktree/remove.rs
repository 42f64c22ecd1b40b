//! `worktree remove`: a person's explicit request to take a session's worktree away.
//!
//! Without `--force` it refuses a worktree with any change (ignored files included, which a plain
//! `git worktree remove` would delete silently) and names what `--force` would discard. With it,
//! the output names every file discarded. Commits are never discarded: a detached HEAD with
//! commits no branch has is refused even with `--force`, and the branch is deleted only when its
//! base already has its work.

use std::path::PathBuf;

use nodwyn_git::status::{Detail, changes, operation_in_progress};

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record, RemovedBy};
use crate::store::Store;
use crate::worktree::location::is_nodwyn_path;
use crate::worktree::removal::{BranchOutcome, remove_worktree};
use crate::worktree::verdict::{Bases, registration};
use crate::worktree::{LockedSession, active_worktree, locked_session};

/// What `remove` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Removed {
    /// The full session id.
    pub session: String,
    /// The folder removed.
    pub path: PathBuf,
    /// The branch.
    pub branch_name: String,
    /// What happened to the branch.
    pub branch: BranchOutcome,
    /// Every file `--force` discarded.
    pub discarded: Vec<String>,
}

/// Removes a session's worktree.
pub fn remove(store: &Store, id: &str, force: bool) -> Result<Removed, Error> {
    let LockedSession {
        stored,
        session,
        _lock,
    } = locked_session(store, id)?;
    let facts = active_worktree(&session)?;
    if !is_nodwyn_path(store, &facts.repository, &facts.path) {
        return Err(Error::NotNodwyns(facts.path.clone()));
    }
    let others = crate::worktree::verdict::other_claimants(store, facts, &session.id)?;
    if !others.is_empty() {
        return Err(Error::Refused(format!(
            "{} stays: {}",
            facts.path.display(),
            crate::worktree::verdict::claimed_by_others(&others)
        )));
    }
    if !force && session.landing.is_some() {
        return Err(Error::Refused(format!(
            "{} stays: {}; `--force` removes it all the same",
            facts.path.display(),
            crate::worktree::verdict::landing_in_progress(&facts.branch)
        )));
    }
    let mut discarded = Vec::new();
    if std::fs::symlink_metadata(&facts.path).is_ok() {
        let Some(registered) = registration(&facts.repository, &facts.path)? else {
            return Err(Error::FolderInTheWay(facts.path.clone()));
        };
        if registered.locked {
            return Err(Error::Locked(facts.path.clone()));
        }
        let checkout = nodwyn_git::discover(&facts.path)?;
        if !force && let Some(operation) = operation_in_progress(&checkout.git_dir) {
            return Err(Error::OperationInProgress {
                path: facts.path.clone(),
                operation,
            });
        }
        refuse_lonely_commits(facts, &checkout)?;
        let files: Vec<String> = changes(&facts.path, Detail::Files)?
            .into_iter()
            .map(|c| c.path)
            .collect();
        if !files.is_empty() {
            if !force {
                return Err(Error::WouldDiscard {
                    path: facts.path.clone(),
                    files,
                });
            }
            discarded = files;
        }
    }
    let branch = remove_worktree(
        &stored.log,
        facts,
        force,
        discarded.clone(),
        RemovedBy::Remove,
    )?;
    if session.open {
        stored.log.append(&Record::new(
            Timestamp::now(),
            Event::SessionClose { kept: Vec::new() },
        ))?;
    }
    Ok(Removed {
        session: session.id.to_string(),
        path: facts.path.clone(),
        branch_name: facts.branch.clone(),
        branch,
        discarded,
    })
}

/// Refuses when the worktree's HEAD is detached on commits that neither the base nor the
/// session's branch has: removing the folder would leave them reachable from nothing.
fn refuse_lonely_commits(
    facts: &crate::event::WorktreeFacts,
    checkout: &nodwyn_git::Checkout,
) -> Result<(), Error> {
    let (None, Some(head)) = (&checkout.head.branch, &checkout.head.commit) else {
        return Ok(());
    };
    let on_branch = nodwyn_git::repo::branch_tip(&facts.repository, &facts.branch)?
        .map(|tip| nodwyn_git::landed::commits_ahead(&facts.repository, head, &tip))
        .transpose()?
        == Some(0);
    if on_branch {
        return Ok(());
    }
    if let Some(count) = Bases::of(facts)?.unlanded(&facts.repository, head)? {
        return Err(Error::DetachedWork {
            path: facts.path.clone(),
            head: crate::worktree::verdict::short(head).to_owned(),
            count,
        });
    }
    Ok(())
}
