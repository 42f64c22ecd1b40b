//! Where a landing goes, and the refusals that come before anything runs: the base branch, its
//! upstream (the remote and the branch there) when it has one, the local base branch, and a
//! `core.hooksPath` inside the worktree.

use std::path::{Path, PathBuf};

use nodwyn_git::{config, push, repo};
use nodwyn_guard::denylist::normalise;

use crate::Error;
use crate::context::WorktreeInfo;

/// The remote a landing pushes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteBranch {
    /// The remote's name.
    pub remote: String,
    /// The branch on the remote (`main`).
    pub branch: String,
    /// Every URL a push to it reaches.
    pub urls: Vec<String>,
}

/// Where a landing goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The worktree's checkout, verified to be the session's.
    pub checkout: nodwyn_git::Checkout,
    /// The worktree's effective git configuration, read once.
    pub config: config::Config,
    /// The base branch.
    pub base: String,
    /// Its upstream, when it has one on a remote.
    pub remote: Option<RemoteBranch>,
    /// The local base branch's tip, when the branch exists.
    pub local_tip: Option<String>,
}

/// Works out where the session in `worktree` lands, or refuses.
pub fn target(worktree: &WorktreeInfo) -> Result<Target, Error> {
    let dir = &worktree.path;
    let checkout = crate::checkout::verified(worktree)?;
    if worktree.base.is_empty() {
        return Err(Error::declined(
            "no_base",
            format!(
                "{} has no base branch to land on (it started from a tag, a commit or a detached HEAD, and the repository has no default branch); name one with `nodwyn land --onto BRANCH`",
                worktree.branch
            ),
        ));
    }
    let config = config::Config::read(dir)?;
    refuse_hooks_inside(&config, dir)?;
    refuse_lfs_endpoints_of_the_repository(&config, dir)?;
    let base = worktree.base.clone();
    let remote = match upstream(&config, dir, &base)? {
        Some(remote) => Some(remote),
        None => named_remote(dir, worktree, &base)?,
    };
    let local_tip = repo::branch_tip(&worktree.repository, &base)?;
    if remote.is_none() && local_tip.is_none() {
        return Err(Error::declined(
            "nowhere_to_land",
            format!(
                "there is nowhere to land: {base} has no upstream on a remote and there is no local {base} branch to move"
            ),
        ));
    }
    Ok(Target {
        checkout,
        config,
        base,
        remote,
        local_tip,
    })
}

/// Where a landing of `worktree` would go now, in words: the remote branch that would move
/// (`main of origin`), or the local base; or, when a landing would be refused before anything
/// runs, why.
pub fn destination(worktree: &WorktreeInfo) -> Result<String, String> {
    match target(worktree) {
        Ok(Target {
            remote: Some(remote),
            ..
        }) => Ok(format!("{} of {}", remote.branch, remote.remote)),
        Ok(target) => Ok(format!("the local {}", target.base)),
        Err(error) => Err(error.to_string()),
    }
}

/// Where a push of the base goes on its upstream's remote (`branch.<base>.remote` and
/// `.merge`), if it has one, by git's own rule, `push.default` (`simple` unless the person set
/// another): to the upstream branch when the person pushes to upstreams (`upstream`,
/// `tracking`), else to the branch of the base's own name; an upstream of another name is then
/// refused, naming both (`simple` and git refuse it; a `git checkout -b feature origin/main`
/// sets one), so a feature branch never lands on `main` by accident.
fn upstream(
    config: &config::Config,
    dir: &Path,
    base: &str,
) -> Result<Option<RemoteBranch>, Error> {
    let Some(remote) = config.get(&format!("branch.{base}.remote")) else {
        return Ok(None);
    };
    let Some(merge) = config.get(&format!("branch.{base}.merge")) else {
        return Ok(None);
    };
    // An upstream that is a local branch (`remote = .`) is not a remote.
    if remote == "." || remote.is_empty() {
        return Ok(None);
    }
    let Some(branch) = merge.strip_prefix("refs/heads/") else {
        return Err(Error::declined(
            "upstream_not_a_branch",
            format!(
                "the upstream of {base} is {merge}, which is not a branch; landing pushes only to a branch"
            ),
        ));
    };
    let rule = config.get("push.default").unwrap_or("simple");
    let branch = match rule {
        "upstream" | "tracking" => branch,
        "nothing" => {
            return Err(Error::declined(
                "push_default_nothing",
                format!(
                    "push.default is `nothing` in your git configuration, so git pushes {base} nowhere without being told where; land with `--onto BRANCH`, or set push.default"
                ),
            ));
        }
        // `current`, `matching`: the branch of the same name.
        "current" | "matching" => base,
        _ if branch != base => {
            return Err(Error::declined(
                "upstream_of_another_name",
                format!(
                    "{base} tracks {branch} of {remote}, a branch of another name, and git's push.default ({rule}) pushes a branch only to its own name, so landing would not move {branch} of {remote}: nothing was landed. Land on {branch} with `nodwyn land --onto {branch}`, or push to upstreams with `git config push.default upstream`"
                ),
            ));
        }
        _ => base,
    };
    remote_branch(dir, remote, branch, &format!("the upstream of {base}")).map(Some)
}

/// The base on the remote it was named through (`--base origin/main`), when the local base
/// branch has no upstream of its own.
fn named_remote(
    dir: &Path,
    worktree: &WorktreeInfo,
    base: &str,
) -> Result<Option<RemoteBranch>, Error> {
    let Some(remote) = &worktree.base_remote else {
        return Ok(None);
    };
    remote_branch(dir, remote, base, "the base").map(Some)
}

/// `branch` on `remote`, with every URL a push to it reaches; refused when either name could be
/// read as an option (`what` names where they came from).
fn remote_branch(
    dir: &Path,
    remote: &str,
    branch: &str,
    what: &str,
) -> Result<RemoteBranch, Error> {
    if remote.starts_with('-') || branch.starts_with('-') {
        return Err(Error::declined(
            "option_like_name",
            format!("{what} ({remote} {branch}) could be read as an option; landing refuses it"),
        ));
    }
    Ok(RemoteBranch {
        remote: remote.to_owned(),
        branch: branch.to_owned(),
        urls: push::push_urls(dir, remote)?,
    })
}

/// Refuses an LFS endpoint the repository's `.lfsconfig` chooses: git-lfs's pre-push would send
/// the landing's objects there, a place no push URL check looked at. One the person's own git
/// configuration sets to the same URL is theirs, and goes.
fn refuse_lfs_endpoints_of_the_repository(
    config: &config::Config,
    dir: &Path,
) -> Result<(), Error> {
    let chosen: Vec<(String, String)> = nodwyn_git::lfs::lfsconfig_endpoints(dir)?
        .into_iter()
        .filter(|(key, url)| config.get(key) != Some(url.as_str()))
        .collect();
    let Some((key, url)) = chosen.first() else {
        return Ok(());
    };
    Err(Error::declined(
        "lfs_endpoint_refused",
        format!(
            "the repository's .lfsconfig sends LFS objects to {url} ({key}), which is repository content choosing where the landing's files go, so nothing was landed; if that is where they belong, set it in your own git configuration (`git config {key} {url}` in the repository), or take it out of .lfsconfig"
        ),
    ))
}

/// Refuses a `core.hooksPath` inside the worktree: whoever can write the worktree (the agent)
/// could have written the hooks a commit or push would run.
fn refuse_hooks_inside(config: &config::Config, dir: &Path) -> Result<(), Error> {
    let Some(hooks) = config.hooks_path()? else {
        return Ok(());
    };
    let real = |p: &Path| -> PathBuf { p.canonicalize().unwrap_or_else(|_| normalise(p)) };
    let (hooks_real, dir_real) = (real(&hooks), real(dir));
    let lower = |p: &Path| p.to_string_lossy().to_lowercase();
    if hooks_real.starts_with(&dir_real)
        || normalise(&hooks).starts_with(normalise(dir))
        || lower(&hooks_real).starts_with(&lower(&dir_real))
    {
        return Err(Error::declined(
            "hooks_in_worktree",
            format!(
                "core.hooksPath is {}, inside the session's worktree, where the agent could have written the hooks; landing refuses to run them (set core.hooksPath elsewhere, or unset it)",
                hooks.display()
            ),
        ));
    }
    Ok(())
}
