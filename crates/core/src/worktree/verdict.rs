//! What removing a session's worktree would lose: the one judgement `close`, `prune` and
//! `remove` share.
//!
//! Nothing is lost when the worktree has no change of any kind (staged, unstaged, untracked or
//! ignored), no git operation is half done in it, and neither its branch nor its HEAD has a
//! commit its base lacks. "Lacks" is judged by content as well as ancestry (see
//! [`nodwyn_git::landed`]), against the base branch as it is now and against that branch's
//! upstream, so a branch squash-merged on the forge counts as landed too. A base branch that is
//! gone leaves the recorded base commit to judge against.

use std::path::{Path, PathBuf};

use nodwyn_git::base::{base_tips, newest};
use nodwyn_git::landed::{commits_ahead, is_landed};
use nodwyn_git::repo::branch_tip;
use nodwyn_git::status::{Detail, changes, operation_in_progress};
use nodwyn_git::worktree::{RegisteredWorktree, list};

use crate::Error;
use crate::error::preview;
use crate::event::WorktreeFacts;
use crate::store::Store;
use crate::worktree::location::is_nodwyn_path;

/// The commits a worktree's work is judged against.
#[derive(Debug, Clone)]
pub(crate) struct Bases {
    /// Commit ids: the base branch's tip, then its upstream's; or the recorded base commit.
    commits: Vec<String>,
    /// How to name the base in a sentence.
    name: String,
}

impl Bases {
    pub(crate) fn of(facts: &WorktreeFacts) -> Result<Self, Error> {
        Ok(Self::with_tips(facts, Self::tips_of(facts)?))
    }

    /// The tips of `facts`' base branch, newest first: counts are taken against the newest (a
    /// local base left behind by a landing counts against its upstream, which has the landed
    /// work). The same for every worktree of the same base, so a caller may share them.
    pub(crate) fn tips_of(facts: &WorktreeFacts) -> Result<Vec<String>, Error> {
        let repository = &facts.repository;
        let mut commits = base_tips(repository, &facts.base, facts.base_remote.as_deref())?;
        if let Some(newest) = newest(repository, &commits)? {
            commits.retain(|c| *c != newest);
            commits.insert(0, newest);
        }
        Ok(commits)
    }

    /// The bases of `facts` from its base branch's tips (see [`Bases::tips_of`]), or its base
    /// commit when there are none.
    pub(crate) fn with_tips(facts: &WorktreeFacts, mut commits: Vec<String>) -> Self {
        let name = if commits.is_empty() {
            commits.push(facts.base_commit.clone());
            format!("the base commit {}", short(&facts.base_commit))
        } else {
            facts.base.clone()
        };
        Self { commits, name }
    }

    /// The commit counts are taken against (the base branch's tip, or the base commit).
    pub(crate) fn primary(&self) -> &str {
        &self.commits[0]
    }

    /// How many commits `tip` has that the base lacks, or `None` when its work has landed.
    pub(crate) fn unlanded(&self, repository: &Path, tip: &str) -> Result<Option<usize>, Error> {
        for base in &self.commits {
            if is_landed(repository, tip, base)? {
                return Ok(None);
            }
        }
        Ok(Some(commits_ahead(repository, tip, self.primary())?))
    }
}

/// Finds how git has `path` registered, if it does.
pub(crate) fn registration(
    repository: &Path,
    path: &Path,
) -> Result<Option<RegisteredWorktree>, Error> {
    Ok(registered_at(&list(repository)?, path))
}

/// The worktree of `registered` at `path`, if git lists one there.
pub(crate) fn registered_at(
    registered: &[RegisteredWorktree],
    path: &Path,
) -> Option<RegisteredWorktree> {
    let wanted = comparable(path);
    registered
        .iter()
        .find(|w| comparable(&w.path) == wanted)
        .cloned()
}

/// Whether some worktree (other than at `except`) has `branch` checked out.
pub(crate) fn checked_out_elsewhere(
    repository: &Path,
    branch: &str,
    except: &Path,
) -> Result<Option<PathBuf>, Error> {
    let full = format!("refs/heads/{branch}");
    let except = comparable(except);
    Ok(list(repository)?
        .into_iter()
        .find(|w| w.branch.as_deref() == Some(full.as_str()) && comparable(&w.path) != except)
        .map(|w| w.path))
}

fn comparable(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Every reason the worktree of `facts` must stay: it is not one nodwyn made, a landing of its
/// session (`landing`) is in progress, or removing it would lose something. Empty when it may go.
pub(crate) fn keep_reasons(
    store: &Store,
    facts: &WorktreeFacts,
    landing: Option<&nodwyn_prim::PendingLanding>,
) -> Result<Vec<String>, Error> {
    keep_reasons_with(store, facts, landing, &Judging::default())
}

/// What a judgement of many worktrees reads once for all, or knows from elsewhere.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Judging<'a> {
    /// The repository's worktrees as `git worktree list` gave them (read once for a prune of
    /// hundreds); `None` reads them for this one.
    pub registered: Option<&'a [RegisteredWorktree]>,
    /// The commit a finished pull request's head has: a branch and HEAD at exactly that commit
    /// are no reason to stay (their commits are not lost with the worktree, and the branch
    /// itself stays).
    pub on_the_forge: Option<&'a str>,
}

/// [`keep_reasons`], with what `judging` knows.
pub(crate) fn keep_reasons_with(
    store: &Store,
    facts: &WorktreeFacts,
    landing: Option<&nodwyn_prim::PendingLanding>,
    judging: &Judging<'_>,
) -> Result<Vec<String>, Error> {
    let on_the_forge = judging.on_the_forge;
    let path = &facts.path;
    if !is_nodwyn_path(store, &facts.repository, path) {
        return Ok(vec![format!(
            "{} is not in one of nodwyn's worktree folders",
            path.display()
        )]);
    }
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(vec![format!(
            "the worktree folder {} is missing",
            path.display()
        )]);
    }
    let found = match judging.registered {
        Some(registered) => registered_at(registered, path),
        None => registration(&facts.repository, path)?,
    };
    let Some(registered) = found else {
        return Ok(vec![format!(
            "git does not list {} as a worktree",
            path.display()
        )]);
    };
    let mut reasons = Vec::new();
    if landing.is_some() {
        reasons.push(landing_in_progress(&facts.branch));
    }
    if registered.locked {
        reasons.push("it is locked with `git worktree lock`".to_owned());
    }
    let checkout = match super::location::checkout_of(path, &facts.repository) {
        Ok(checkout) => checkout,
        // Its state cannot be read without trusting what its content chose: it stays.
        Err(Error::Git(untrusted @ nodwyn_git::Error::Redirected { .. })) => {
            reasons.push(untrusted.to_string());
            return Ok(reasons);
        }
        Err(e) => return Err(e),
    };
    if let Some(operation) = operation_in_progress(&checkout.git_dir) {
        reasons.push(format!("{operation} is in progress in it"));
    }
    let changed: Vec<String> = changes(path, Detail::Folders)?
        .into_iter()
        .map(|c| c.path)
        .collect();
    if !changed.is_empty() {
        reasons.push(format!(
            "{} uncommitted change(s), counting untracked and ignored files: {}",
            changed.len(),
            preview(&changed)
        ));
    }
    let bases = Bases::of(facts)?;
    let tip = branch_tip(&facts.repository, &facts.branch)?;
    if let Some(kept) = on_the_forge {
        if tip.as_deref() != Some(kept) || checkout.head.commit.as_deref() != Some(kept) {
            reasons.push(format!(
                "its pull request's head is {}, and the worktree has moved on from it",
                short(kept)
            ));
        }
        return Ok(reasons);
    }
    if let Some(tip) = &tip
        && let Some(count) = bases.unlanded(&facts.repository, tip)?
    {
        reasons.push(format!(
            "branch {} has {count} commit(s) that {} lacks",
            facts.branch, bases.name
        ));
    }
    if let Some(head) = &checkout.head.commit
        && tip.as_deref() != Some(head.as_str())
        && let Some(count) = bases.unlanded(&facts.repository, head)?
    {
        let at = match &checkout.head.branch {
            Some(branch) => format!("on branch {branch}"),
            None => format!("detached at {}", short(head)),
        };
        reasons.push(format!(
            "its HEAD ({at}) has {count} commit(s) that {} lacks",
            bases.name
        ));
    }
    Ok(reasons)
}

/// The reason a worktree stays while its landing is unfinished.
pub(crate) fn landing_in_progress(branch: &str) -> String {
    format!(
        "a landing of {branch} is in progress (`nodwyn land` goes on with it, `nodwyn land --abort` undoes it)"
    )
}

/// The first 12 hex digits of a commit id.
pub(crate) fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// The short ids of the other sessions of the repository that claim the worktree at `facts.path`
/// as theirs: a worktree two logs claim (one a copy, or not nodwyn's) is removed by neither.
pub(crate) fn other_claimants(
    store: &Store,
    facts: &WorktreeFacts,
    owner: &crate::id::SessionId,
) -> Result<Vec<String>, Error> {
    let (sessions, _) = crate::session::sessions_of(store, &facts.repository)?;
    Ok(claimants_among(&sessions, facts, owner))
}

/// [`other_claimants`] among sessions already read.
pub(crate) fn claimants_among(
    sessions: &[crate::session::Session],
    facts: &WorktreeFacts,
    owner: &crate::id::SessionId,
) -> Vec<String> {
    sessions
        .iter()
        .filter(|s| s.id != *owner && s.active_worktree().is_some_and(|f| f.path == facts.path))
        .map(|s| s.id.short().to_owned())
        .collect()
}

/// Why a worktree other sessions also claim stays.
pub(crate) fn claimed_by_others(others: &[String]) -> String {
    format!(
        "session(s) {} claim the same worktree, so its owner is not certain",
        others.join(", ")
    )
}
