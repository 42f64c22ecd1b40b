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
use crate::event::{Event, Record, RemovalSnapshot, RemovedBy};
use crate::store::Store;
use crate::worktree::location::{checkout_of, is_nodwyn_path};
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
    /// Where what `--force` discarded was kept first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<RemovalSnapshot>,
    /// The processes working in it that `--reap` ended.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reaped: Vec<nodwyn_proc::Inside>,
    /// The processes working in it that hold a terminal (a person's shell, what runs in a
    /// terminal's foreground): never ended, left where they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_running: Vec<nodwyn_proc::Inside>,
}

/// How long `--reap` waits after SIGTERM before it sends SIGKILL.
const REAP_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Removes a session's worktree. Processes working in it (a dev server) refuse the removal,
/// named, unless `reap`, which ends them first; those holding a terminal are never ended.
pub fn remove(store: &Store, id: &str, force: bool, reap: bool) -> Result<Removed, Error> {
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
        return Err(Error::declined(
            "claimed_by_others",
            format!(
                "{} stays: {}",
                facts.path.display(),
                crate::worktree::verdict::claimed_by_others(&others)
            ),
        ));
    }
    if !force && session.landing.is_some() {
        return Err(Error::declined(
            "landing_in_progress",
            format!(
                "{} stays: {}; `--force` removes it all the same",
                facts.path.display(),
                crate::worktree::verdict::landing_in_progress(&facts.branch)
            ),
        ));
    }
    let running = end_what_runs_inside(&facts.path, reap)?;
    let mut discarded = Vec::new();
    let mut snapshot = None;
    if std::fs::symlink_metadata(&facts.path).is_ok() {
        let Some(registered) = registration(&facts.repository, &facts.path)? else {
            return Err(Error::FolderInTheWay(facts.path.clone()));
        };
        if registered.locked {
            return Err(Error::Locked(facts.path.clone()));
        }
        let checkout = match checkout_of(&facts.path, &facts.repository) {
            Ok(checkout) => checkout,
            Err(Error::Git(nodwyn_git::Error::Redirected { why, .. })) => {
                // No git runs there: what `--force` discards is every file of the folder.
                let files = files_below(&facts.path)?;
                if !force {
                    return Err(Error::NoLongerAWorktree {
                        path: facts.path.clone(),
                        why,
                        id: session.id.short().to_owned(),
                        files: files.len(),
                    });
                }
                std::fs::remove_dir_all(&facts.path).map_err(Error::io(&facts.path))?;
                return finish_removal(&stored, &session, facts, true, files, None, running);
            }
            Err(e) => return Err(e),
        };
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
            // Kept before anything goes: a snapshot that cannot be made refuses the removal.
            let head = checkout.head.commit.as_deref().ok_or_else(|| {
                Error::declined(
                    "no_head",
                    format!(
                        "{} has no HEAD commit to keep its changes on",
                        facts.path.display()
                    ),
                )
            })?;
            snapshot = Some(crate::worktree::snapshot::keep(
                facts,
                head,
                session.id.short(),
            )?);
            discarded = files;
        }
    }
    finish_removal(
        &stored, &session, facts, force, discarded, snapshot, running,
    )
}

/// What ran in a worktree when it was removed.
#[derive(Debug, Default)]
struct Running {
    /// The processes holding a terminal, left alone.
    left_running: Vec<nodwyn_proc::Inside>,
    /// The processes `--reap` ended.
    reaped: Vec<nodwyn_proc::Inside>,
}

/// The processes working in the worktree at `path`: refused unless `reap`, which ends them (all
/// but those holding a terminal, which are left, to be named).
fn end_what_runs_inside(path: &std::path::Path, reap: bool) -> Result<Running, Error> {
    let Ok(folder) = path.canonicalize() else {
        return Ok(Running::default());
    };
    let (terminals, others): (Vec<_>, Vec<_>) = nodwyn_proc::processes_inside(&folder)
        .into_iter()
        .partition(|p| p.holds_terminal);
    if others.is_empty() {
        return Ok(Running {
            left_running: terminals,
            reaped: Vec::new(),
        });
    }
    if !reap {
        let named: Vec<String> = others
            .iter()
            .map(|p| format!("{} ({})", p.pid, p.command))
            .collect();
        return Err(Error::declined(
            "processes_inside",
            format!(
                "{} stays: {} process(es) still work in it: {}; end them, or remove with `--reap` to end them (SIGTERM, then SIGKILL after {} s)",
                path.display(),
                others.len(),
                crate::error::preview(&named),
                REAP_GRACE.as_secs()
            ),
        ));
    }
    Ok(Running {
        left_running: terminals,
        reaped: nodwyn_proc::reap(&others, REAP_GRACE),
    })
}

/// Takes the worktree away (its folder and registration, and its branch when landed), records
/// it, and closes the session.
fn finish_removal(
    stored: &crate::store::StoredSession,
    session: &crate::session::Session,
    facts: &crate::event::WorktreeFacts,
    force: bool,
    discarded: Vec<String>,
    snapshot: Option<RemovalSnapshot>,
    running: Running,
) -> Result<Removed, Error> {
    let branch = remove_worktree(
        &stored.log,
        facts,
        force,
        discarded.clone(),
        snapshot.clone(),
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
        snapshot,
        reaped: running.reaped,
        left_running: running.left_running,
    })
}

/// Every file and link below the folder `dir`, relative to it, found without following links.
fn files_below(dir: &std::path::Path) -> Result<Vec<String>, Error> {
    let mut found = Vec::new();
    // A link where the folder was is removed itself; nothing it points at is listed or touched.
    if !std::fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir()) {
        return Ok(found);
    }
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(Error::io(&folder))? {
            let entry = entry.map_err(Error::io(&folder))?;
            let path = entry.path();
            if entry.file_type().map_err(Error::io(&path))?.is_dir() {
                folders.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                found.push(nodwyn_git::quote::quote(
                    relative.as_os_str().as_encoded_bytes(),
                ));
            }
        }
    }
    found.sort();
    Ok(found)
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
