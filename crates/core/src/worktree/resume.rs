//! `worktree resume`: open a session again, making its worktree again when the folder is gone.
//!
//! A worktree made again uses the session's branch if it still exists (keeping the recorded base
//! commit), and otherwise a new branch of the same name from the newest of the base branch and
//! its upstream as they are now, whose commit becomes the recorded base commit. Only the session's own registration is cleared
//! first, never with `git worktree prune`, which would drop a person's worktree whose disk is not
//! mounted.
//!
//! A worktree whose making was cut short (no `worktree.create` in the log: git's checkout was
//! killed) is finished: the files its branch has and the folder lacks are written, and a file
//! that differs (written in part, or changed by a person since) is kept as a version first and
//! then written as the branch has it. Files git does not track are left alone.

use serde::Serialize;

use nodwyn_git::repo::branch_tip;
use nodwyn_git::worktree::{add_on_branch, add_with_new_branch, remove as unregister};

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, IncludeFailure, Record, RemovalSnapshot, WorktreeFacts};
use crate::session::WorktreeState;
use crate::store::Store;
use crate::worktree::include::{Included, copy_included};
use crate::worktree::location::{WorktreeLocation, is_nodwyn_path, refuse_links, worktrees_root};
use crate::worktree::verdict::registration;
use crate::worktree::{LockedSession, locked_session};
use nodwyn_prim::versions::VersionStore;

/// What `resume` did.
#[derive(Debug, Clone, Serialize)]
pub struct Resumed {
    /// The full session id.
    pub session: String,
    /// The folder the session is pinned to.
    pub root: std::path::PathBuf,
    /// Whether the worktree was made again.
    pub restored: bool,
    /// Whether the session's branch was reused (`false` when a new one was made from the base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_reused: Option<bool>,
    /// The worktree's facts, as they are now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeFacts>,
    /// Paths `.worktreeinclude` copied in, when it was made again.
    pub included: Vec<String>,
    /// Paths it could not copy.
    pub include_failed: Vec<IncludeFailure>,
    /// What finishing a worktree whose making was cut short did, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished: Option<Finished>,
    /// Where the worktree is now, when it was moved with `git worktree move` (the session
    /// followed it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<std::path::PathBuf>,
}

/// What `resume` did to finish a worktree whose making was cut short.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Finished {
    /// Whether the worktree was made again from nothing (its folder was gone or empty).
    pub remade: bool,
    /// The branch's files the folder lacked, written now.
    pub written: Vec<String>,
    /// The tracked files that differed from the branch's, written again as the branch has them;
    /// what each held is kept as a version first (`nodwyn versions list ID`).
    pub rewritten: Vec<String>,
}

/// Opens a session again.
pub fn resume(store: &Store, id: &str) -> Result<Resumed, Error> {
    resume_with(store, id, None)
}

/// Opens a session again; a worktree made again gets the files of `snapshot` (a forced removal's,
/// see `worktree::snapshot`) written over its branch's.
pub(crate) fn resume_with(
    store: &Store,
    id: &str,
    snapshot: Option<&RemovalSnapshot>,
) -> Result<Resumed, Error> {
    let LockedSession {
        stored,
        session,
        _lock,
    } = locked_session(store, id)?;
    let mut resumed = Resumed {
        session: session.id.to_string(),
        root: session.root.clone(),
        restored: false,
        branch_reused: None,
        worktree: session.worktree.clone(),
        included: Vec::new(),
        include_failed: Vec::new(),
        finished: None,
        moved_to: None,
    };
    if let Some(facts) = &session.worktree
        && session.worktree_unfinished
        && session.worktree_state == WorktreeState::Active
    {
        let (facts, finished, included, reused) = finish(store, &session.id.to_string(), facts)?;
        stored.log.append(&Record::new(
            Timestamp::now(),
            Event::WorktreeCreate {
                worktree: facts.clone(),
                uncommitted: 0,
                included: included.copied.clone(),
                include_failed: included.failed.clone(),
            },
        ))?;
        resumed.root = facts.path.clone();
        resumed.worktree = Some(facts);
        resumed.included = included.copied;
        resumed.include_failed = included.failed;
        resumed.restored = finished.remade;
        resumed.branch_reused = reused;
        resumed.finished = Some(finished);
    } else if let Some(facts) = &session.worktree {
        if session.worktree_state == WorktreeState::Kept {
            return Err(Error::HandedOver {
                id: session.id.to_string(),
                path: facts.path.clone(),
            });
        }
        let missing = std::fs::symlink_metadata(&facts.path).is_err();
        let moved = match (missing, session.worktree_state) {
            (true, WorktreeState::Active) => moved_worktree(facts)?,
            _ => None,
        };
        if let Some(moved) = moved {
            // Moved with `git worktree move`: the session follows git's record.
            stored.log.append(&Record::new(
                Timestamp::now(),
                Event::WorktreeRestore {
                    worktree: moved.clone(),
                    branch_reused: true,
                    included: Vec::new(),
                    include_failed: Vec::new(),
                    snapshot: None,
                },
            ))?;
            resumed.root = moved.path.clone();
            resumed.moved_to = Some(moved.path.clone());
            resumed.worktree = Some(moved);
        } else if session.worktree_state == WorktreeState::Removed || missing {
            let (restored, reused, included) = restore(store, facts)?;
            if let Some(snapshot) = snapshot {
                nodwyn_git::switch::write_files_of(&restored.path, &snapshot.commit)?;
            }
            stored.log.append(&Record::new(
                Timestamp::now(),
                Event::WorktreeRestore {
                    worktree: restored.clone(),
                    branch_reused: reused,
                    included: included.copied.clone(),
                    include_failed: included.failed.clone(),
                    snapshot: snapshot.map(|s| s.commit.clone()),
                },
            ))?;
            resumed.root = restored.path.clone();
            resumed.restored = true;
            resumed.branch_reused = Some(reused);
            resumed.worktree = Some(restored);
            resumed.included = included.copied;
            resumed.include_failed = included.failed;
        }
    }
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::SessionResume {
            root: resumed.root.clone(),
        },
    ))?;
    Ok(resumed)
}

/// The worktree of `facts` where git now has it, when its folder is gone from the recorded place
/// because it was moved with `git worktree move`: git has the session's branch checked out in a
/// linked worktree of the repository elsewhere, whose `.git` checks out.
pub(crate) fn moved_worktree(facts: &WorktreeFacts) -> Result<Option<WorktreeFacts>, Error> {
    let Some(path) =
        super::verdict::checked_out_elsewhere(&facts.repository, &facts.branch, &facts.path)?
    else {
        return Ok(None);
    };
    if path == facts.repository || super::location::checkout_of(&path, &facts.repository).is_err() {
        return Ok(None);
    }
    Ok(Some(WorktreeFacts {
        path,
        ..facts.clone()
    }))
}

/// Finishes the worktree of `facts`, whose making was cut short (see the module documentation).
/// The session's lock is held, and `create` holds it while it makes a worktree, so no git of
/// that making still runs.
fn finish(
    store: &Store,
    session: &str,
    facts: &WorktreeFacts,
) -> Result<(WorktreeFacts, Finished, Included, Option<bool>), Error> {
    let repository = &facts.repository;
    if !is_nodwyn_path(store, repository, &facts.path) {
        return Err(Error::NotNodwyns(facts.path.clone()));
    }
    let registered = registration(repository, &facts.path)?.is_some();
    if !registered && std::fs::symlink_metadata(&facts.path).is_ok() {
        // Killed before git wrote anything in it: an empty folder is nodwyn's own, made for it.
        let empty = std::fs::read_dir(&facts.path)
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(Error::FolderInTheWay(facts.path.clone()));
        }
        std::fs::remove_dir(&facts.path).map_err(Error::io(&facts.path))?;
    }
    if std::fs::symlink_metadata(&facts.path).is_err() {
        let (restored, reused, included) = restore(store, facts)?;
        let finished = Finished {
            remade: true,
            ..Finished::default()
        };
        return Ok((restored, finished, included, Some(reused)));
    }
    let unwritten = nodwyn_git::repair::inspect(&facts.path)?;
    let versions = VersionStore::new(repository, session);
    for path in &unwritten.differing {
        let file = facts.path.join(path);
        let regular = std::fs::symlink_metadata(&file).is_ok_and(|meta| meta.is_file());
        if regular {
            let content = std::fs::read(&file).map_err(Error::io(&file))?;
            versions.keep(&file, &content, "worktree resume (finishing its checkout)")?;
        }
    }
    let mut paths = unwritten.missing.clone();
    paths.extend(unwritten.differing.iter().cloned());
    nodwyn_git::repair::write_from_index(&facts.path, &paths)?;
    let included = copy_included(repository, &facts.path, &nodwyn_prim::Notices::default())?;
    let finished = Finished {
        remade: false,
        written: unwritten.missing,
        rewritten: unwritten.differing,
    };
    Ok((facts.clone(), finished, included, None))
}

pub(crate) fn restore(
    store: &Store,
    facts: &WorktreeFacts,
) -> Result<(WorktreeFacts, bool, Included), Error> {
    let repository = &facts.repository;
    if !is_nodwyn_path(store, repository, &facts.path) {
        return Err(Error::NotNodwyns(facts.path.clone()));
    }
    if std::fs::symlink_metadata(&facts.path).is_ok() {
        return Err(Error::FolderInTheWay(facts.path.clone()));
    }
    let inside = facts.path.parent()
        == Some(worktrees_root(store, repository, WorktreeLocation::Repository).as_path());
    if inside {
        refuse_links(repository, &[])?;
    }
    if let Some(parent) = facts.path.parent() {
        std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
    }
    if registration(repository, &facts.path)?.is_some() {
        unregister(repository, &facts.path, false)?;
    }
    let mut restored = facts.clone();
    let reused = branch_tip(repository, &facts.branch)?.is_some();
    if reused {
        add_on_branch(repository, &facts.path, &facts.branch)?;
    } else {
        // The newest of the base branch and its upstream: a local base a landing left behind
        // (it was checked out with changes) would start the branch from before its own work.
        let start = if facts.base.is_empty() {
            None
        } else {
            crate::worktree::verdict::Bases::tips_of(facts)?
                .into_iter()
                .next()
        }
        .unwrap_or_else(|| facts.base_commit.clone());
        add_with_new_branch(repository, &facts.path, &facts.branch, &start)?;
        restored.base_commit = start;
    }
    let included = copy_included(repository, &facts.path, &nodwyn_prim::Notices::default())?;
    Ok((restored, reused, included))
}
