//! The branch a session lands on, from the names people give: a local branch (`main`), a
//! remote-tracking branch (`origin/main`, which lands on `main` of `origin`), and the
//! repository's default branch for a start that is no branch at all (a tag, a commit, a
//! detached HEAD). Also the commits a base's work is judged against: its local tip, and its
//! upstream's (or the remote-tracking branch's) tip.

use std::path::Path;

use git2::ErrorCode;

use crate::Error;
use crate::repo::{branch_tip, open, upstream_tip};

/// A branch to land on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LandingBranch {
    /// The branch's name on its remote, or the local branch's name (`main`).
    pub branch: String,
    /// The remote it lives on, when it was named as a remote-tracking branch (`origin`).
    pub remote: Option<String>,
}

/// What `text` names as a branch to land on: a local branch, or a remote-tracking branch split
/// into its remote and branch (the longest remote name that fits wins, as git's do). `None` for
/// anything else (a tag, a commit, a name that is not there).
pub fn landing_branch(dir: &Path, text: &str) -> Result<Option<LandingBranch>, Error> {
    if text.starts_with('-') || text.is_empty() {
        return Ok(None);
    }
    if branch_tip(dir, text)?.is_some() {
        return Ok(Some(LandingBranch {
            branch: text.to_owned(),
            remote: None,
        }));
    }
    let text = text.strip_prefix("refs/remotes/").unwrap_or(text);
    let repo = open(dir)?;
    if repo
        .find_reference(&format!("refs/remotes/{text}"))
        .is_err()
    {
        return Ok(None);
    }
    let remotes = repo.remotes().map_err(Error::read(dir))?;
    let remote = remotes
        .iter()
        .flatten()
        .flatten()
        .filter(|r| text.starts_with(&format!("{r}/")))
        .max_by_key(|r| r.len());
    Ok(remote.map(|remote| LandingBranch {
        branch: text[remote.len() + 1..].to_owned(),
        remote: Some(remote.to_owned()),
    }))
}

/// The repository's default branch: the one `origin/HEAD` names, else the branch the main
/// checkout has; `None` when neither gives one.
pub fn default_branch(repository: &Path) -> Result<Option<LandingBranch>, Error> {
    let repo = open(repository)?;
    match repo.find_reference("refs/remotes/origin/HEAD") {
        Ok(reference) => {
            if let Ok(Some(target)) = reference.symbolic_target()
                && let Some(name) = target.strip_prefix("refs/remotes/")
                && let Some(found) = landing_branch(repository, name)?
            {
                return Ok(Some(found));
            }
        }
        Err(e) if e.code() == ErrorCode::NotFound => {}
        Err(e) => return Err(Error::read(repository)(e)),
    }
    let head = crate::repo::read_head(&repo, repository)?;
    Ok(head.branch.map(|branch| LandingBranch {
        branch,
        remote: None,
    }))
}

/// The commits a base's work is judged against, newest knowledge first: the local branch's tip,
/// its upstream's tip, and (for a base named through a remote) the remote-tracking branch's tip.
pub fn base_tips(
    repository: &Path,
    base: &str,
    remote: Option<&str>,
) -> Result<Vec<String>, Error> {
    let mut tips = Vec::new();
    if base.is_empty() {
        return Ok(tips);
    }
    tips.extend(branch_tip(repository, base)?);
    tips.extend(upstream_tip(repository, base)?);
    if let Some(remote) = remote
        && let Some(tip) =
            crate::repo::resolve_commit(repository, &format!("refs/remotes/{remote}/{base}"))?
    {
        tips.push(tip);
    }
    tips.dedup();
    Ok(tips)
}

/// The newest of `tips`: the one every other is an ancestor of (a local base behind its
/// upstream gives the upstream's tip), else the first.
pub fn newest(dir: &Path, tips: &[String]) -> Result<Option<String>, Error> {
    for tip in tips {
        let mut newest = true;
        for other in tips.iter().filter(|o| *o != tip) {
            if !crate::graph::is_ancestor(dir, other, tip)? {
                newest = false;
                break;
            }
        }
        if newest {
            return Ok(Some(tip.clone()));
        }
    }
    Ok(tips.first().cloned())
}

/// Where a session's own, not yet landed, work starts: its base commit, or, once the branch
/// shares later history with the newest base tip (after a landing, or after the base was merged
/// in), the last commit they share.
pub fn work_starts(
    dir: &Path,
    head: &str,
    base_commit: &str,
    tips: &[String],
) -> Result<String, Error> {
    let Some(newest) = newest(dir, tips)? else {
        return Ok(base_commit.to_owned());
    };
    match crate::graph::merge_base(dir, head, &newest)? {
        Some(shared) if crate::graph::is_ancestor(dir, base_commit, &shared)? => Ok(shared),
        _ => Ok(base_commit.to_owned()),
    }
}
