//! `worktree list`: nodwyn's worktrees of a repository, with what each holds. Each worktree is
//! read on its own thread, so dozens of them cost little more than the slowest one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nodwyn_git::dirty_watch::DirtyWatch;
use nodwyn_git::landed::commits_ahead;
use nodwyn_git::repo::{branch_tip, upstream_tip};
use nodwyn_git::status::is_dirty;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::event::WorktreeFacts;
use crate::session::{Session, Unreadable, sessions_of};
use crate::store::Store;
use crate::worktree::verdict::Bases;

/// One worktree as `list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Listed {
    /// The full session id.
    pub session: String,
    /// The short id.
    pub id: String,
    /// The worktree's folder.
    pub path: PathBuf,
    /// The session's name, if it was given one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its branch.
    pub branch: String,
    /// The branch it started from (`""` for a detached start).
    pub base: String,
    /// The commit it started from.
    pub base_commit: String,
    /// Commits on its branch that the base lacks; `null` when the branch is gone.
    pub ahead: Option<usize>,
    /// Commits the base's upstream has that the branch lacks; `null` without an upstream.
    pub behind: Option<usize>,
    /// When the session last did anything (its log's last record), RFC 3339.
    pub last_activity: Option<String>,
    /// Seconds since then.
    pub idle_seconds: Option<u64>,
    /// Whether `git status` in it shows anything.
    pub dirty: bool,
    /// Whether its session is open.
    pub open: bool,
    /// Whether a landing is in progress: one that stopped at a conflict, was interrupted, or
    /// left a rebase in the worktree.
    pub landing: bool,
    /// Whether its folder is missing from disk.
    pub missing: bool,
    /// Where git has it now, when it was moved with `git worktree move` (`resume` follows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<PathBuf>,
    /// The pull request it was made on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// The port its commands find in `NODWYN_PORT`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Where it ran, for a session imported from another machine and not resumed here since
    /// (`session import`): its work came home as a branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<crate::event::RanOn>,
    /// What could not be read, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// nodwyn's worktrees of `repository`, oldest session first, and the logs that could not be read.
pub fn list(store: &Store, repository: &Path) -> Result<(Vec<Listed>, Vec<Unreadable>), Error> {
    list_watched(store, repository, None)
}

/// [`list`], asking `watch` (a long-running process's) whether each worktree is dirty, so a
/// worktree nothing touched since it was last checked is not checked again.
pub fn list_watched(
    store: &Store,
    repository: &Path,
    watch: Option<&DirtyWatch>,
) -> Result<(Vec<Listed>, Vec<Unreadable>), Error> {
    let (sessions, unreadable) = sessions_of(store, repository)?;
    let active: Vec<(&Session, &WorktreeFacts)> = sessions
        .iter()
        .filter_map(|session| Some((session, session.active_worktree()?)))
        .collect();
    // Worktrees of the same base share its tips: read them once per base.
    let mut bases: HashMap<BaseKey, Result<BaseView, String>> = HashMap::new();
    for (_, facts) in &active {
        bases
            .entry(base_key(facts))
            .or_insert_with(|| BaseView::of(facts).map_err(|e| e.to_string()));
    }
    let listed = active
        .par_iter()
        .map(|(session, facts)| describe(session, facts, &bases[&base_key(facts)], watch))
        .collect();
    Ok((listed, unreadable))
}

/// A base branch, by name and the remote it was named through.
type BaseKey = (String, Option<String>);

fn base_key(facts: &WorktreeFacts) -> BaseKey {
    (facts.base.clone(), facts.base_remote.clone())
}

/// What `list` reads of a base branch once for all its worktrees.
struct BaseView {
    /// Its tips, newest first (see [`Bases::tips_of`]).
    tips: Vec<String>,
    /// Its upstream's tip, when it has one.
    upstream: Option<String>,
}

impl BaseView {
    fn of(facts: &WorktreeFacts) -> Result<Self, Error> {
        let upstream = if facts.base.is_empty() {
            None
        } else {
            upstream_tip(&facts.repository, &facts.base)?
        };
        Ok(Self {
            tips: Bases::tips_of(facts)?,
            upstream,
        })
    }
}

fn describe(
    session: &Session,
    facts: &WorktreeFacts,
    base: &Result<BaseView, String>,
    watch: Option<&DirtyWatch>,
) -> Listed {
    let missing = std::fs::symlink_metadata(&facts.path).is_err();
    let (last_activity, idle_seconds) = last_activity(session);
    let mut listed = Listed {
        session: session.id.to_string(),
        id: session.id.short().to_owned(),
        path: facts.path.clone(),
        name: facts.name.clone(),
        branch: facts.branch.clone(),
        base: facts.base.clone(),
        base_commit: facts.base_commit.clone(),
        ahead: None,
        behind: None,
        last_activity,
        idle_seconds,
        dirty: false,
        open: session.open,
        landing: session.landing.is_some(),
        missing,
        moved_to: if missing {
            super::resume::moved_worktree(facts)
                .ok()
                .flatten()
                .map(|moved| moved.path)
        } else {
            None
        },
        pull_request: facts.pull_request,
        port: facts.port,
        remote: session.ran_on.clone().filter(|_| !session.resumed_here),
        error: None,
    };
    let read = || -> Result<(Option<usize>, Option<usize>, bool, bool), Error> {
        let base = base
            .as_ref()
            .map_err(|e| Error::declined("base_unreadable", e.clone()))?;
        let bases = Bases::with_tips(facts, base.tips.clone());
        let tip = branch_tip(&facts.repository, &facts.branch)?;
        let ahead = match &tip {
            Some(tip) => Some(commits_ahead(&facts.repository, tip, bases.primary())?),
            None => None,
        };
        let behind = match (&tip, &base.upstream) {
            (Some(tip), Some(upstream)) => Some(commits_ahead(&facts.repository, upstream, tip)?),
            _ => None,
        };
        let checkout = match missing {
            true => None,
            false => Some(super::location::checkout_of(
                &facts.path,
                &facts.repository,
            )?),
        };
        let dirty = checkout.is_some()
            && match watch {
                Some(watch) => watch.is_dirty(&facts.path)?.dirty,
                None => is_dirty(&facts.path)?,
            };
        let rebasing =
            checkout.is_some_and(|c| nodwyn_git::rebase::rebasing_branch(&c.git_dir).is_some());
        Ok((ahead, behind, dirty, rebasing))
    };
    match read() {
        Ok((ahead, behind, dirty, rebasing)) => {
            listed.ahead = ahead;
            listed.behind = behind;
            listed.dirty = dirty;
            listed.landing |= rebasing;
        }
        Err(e) => listed.error = Some(e.to_string()),
    }
    listed
}

/// When the session's log was last written (its last record), and how many seconds ago.
fn last_activity(session: &Session) -> (Option<String>, Option<u64>) {
    let Some(modified) = session
        .log_path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .and_then(|m| m.modified().ok())
    else {
        return (None, None);
    };
    let since_epoch = modified
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let idle = std::time::SystemTime::now()
        .duration_since(modified)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let at = crate::clock::Timestamp::from_unix_millis(since_epoch.as_millis() as i64);
    (Some(at.rfc3339()), Some(idle))
}
