//! git-land: the one step that brings a worktree session's work to its base branch.
//!
//! In order: commit every change with the message (credential files left out, signing as the
//! person configured it); rebase only the session's own commits onto the newest base (its
//! upstream, fetched first, when it has one); apply the strategy (as they are, squashed, or under
//! a merge commit); scan what would leave with L1; push by fast-forward only; move the local base
//! branch only where that is safe. A conflict stops the rebase with the files named and leaves it
//! in progress; landing again continues it once they are resolved.
//!
//! `nodwyn land` (a person's own command) and the `git-land` primitive (an agent's call, judged by
//! the guard first) both run [`land`].

mod commit;
mod local_base;
mod publish;
mod target;

use std::fmt;
use std::str::FromStr;

use nodwyn_git::{graph, rebase, refs, repo};
use serde::{Deserialize, Serialize};

pub use local_base::LocalBase;
pub use publish::DEFAULT_SSH_COMMAND;
pub use target::{RemoteBranch, Target, target};

use crate::Error;
use crate::context::{Context, Fact, Push, WorktreeInfo};

/// How the session's commits land.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// As they are, on top of the base (the default).
    #[default]
    FfOnly,
    /// As one commit with the message.
    Squash,
    /// Under a merge commit with the message.
    NoFf,
}

impl FromStr for Strategy {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        match text {
            "ff-only" => Ok(Strategy::FfOnly),
            "squash" => Ok(Strategy::Squash),
            "no-ff" => Ok(Strategy::NoFf),
            other => Err(Error::refused(format!(
                "`{other}` is not a landing strategy: use ff-only, squash or no-ff"
            ))),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::FfOnly => "ff-only",
            Strategy::Squash => "squash",
            Strategy::NoFf => "no-ff",
        })
    }
}

/// What a landing did.
#[derive(Debug, Clone, Serialize)]
pub struct Landed {
    /// The session's branch.
    pub branch: String,
    /// The base branch it landed on.
    pub base: String,
    /// The strategy.
    pub strategy: Strategy,
    /// The commit made of the uncommitted changes, if there were any.
    pub committed: Option<String>,
    /// Changed credential files left out of the commit.
    pub left_out: Vec<String>,
    /// Whether a rebase a conflict had stopped was continued.
    pub continued: bool,
    /// The base commit the work was put on.
    pub onto: String,
    /// The commit the base branch now points at.
    pub landed: String,
    /// How many of the session's commits landed.
    pub commits: usize,
    /// The push, when the base has an upstream.
    pub pushed: Option<Push>,
    /// What happened to the local base branch.
    pub local_base: LocalBase,
}

/// Lands the session's worktree on its base branch (see the module documentation). The message
/// is the commit message for uncommitted changes, and for the squash or merge commit.
pub fn land(ctx: &Context, message: &str, strategy: Strategy) -> Result<Landed, Error> {
    let worktree = ctx.require_worktree("git-land")?;
    if message.trim().is_empty() {
        return Err(Error::refused(
            "the landing needs a commit message (-m MESSAGE)",
        ));
    }
    let target = target(worktree)?;
    let dir = worktree.path.as_path();
    let checkout = &target.checkout;
    let sign = target.config.get_bool("commit.gpgsign");
    let (continued, committed) = if let Some(rebasing) = rebase::rebasing_branch(&checkout.git_dir)
    {
        if rebasing.as_deref() != Some(format!("refs/heads/{}", worktree.branch).as_str()) {
            return Err(Error::refused(format!(
                "a rebase of {} is in progress in {}, not one of the session's branch {}; finish or abort it first",
                rebasing.as_deref().unwrap_or("a detached HEAD"),
                dir.display(),
                worktree.branch
            )));
        }
        let left_out = continue_stopped_rebase(dir, worktree, sign)?;
        (
            true,
            commit::Committed {
                commit: None,
                left_out,
            },
        )
    } else {
        refuse_other_head(checkout, worktree)?;
        (false, commit::commit_all(dir, message, sign)?)
    };
    let published = publish_committed(ctx, worktree, &target, message, strategy, sign);
    // A later step that stops leaves the commit in place: say so, so nobody wonders where the
    // changes went.
    let published = match (published, &committed.commit) {
        (Err(error), Some(commit)) => {
            return Err(Error::refused(format!(
                "{error} (the changes were committed on {} as {}; landing again goes on from there)",
                worktree.branch,
                &commit[..commit.len().min(12)]
            )));
        }
        (published, _) => published?,
    };
    ctx.report(Fact::Landed {
        base: target.base.clone(),
        strategy: strategy.to_string(),
        landed: published.landed.clone(),
        left_out: committed.left_out.clone(),
    });
    Ok(Landed {
        branch: worktree.branch.clone(),
        base: target.base,
        strategy,
        committed: committed.commit,
        left_out: committed.left_out,
        continued,
        onto: published.onto,
        landed: published.landed,
        commits: published.commits,
        pushed: published.pushed,
        local_base: published.local_base,
    })
}

/// What the steps after the commit did.
struct Published {
    onto: String,
    landed: String,
    commits: usize,
    pushed: Option<Push>,
    local_base: LocalBase,
}

/// The steps after the commit: rebase onto the newest base, the strategy, the scan, the push, and
/// the local base.
fn publish_committed(
    ctx: &Context,
    worktree: &WorktreeInfo,
    target: &Target,
    message: &str,
    strategy: Strategy,
    sign: bool,
) -> Result<Published, Error> {
    let dir = worktree.path.as_path();
    let onto = newest_base(ctx, worktree, target)?;
    let head = head_of(dir)?;
    let fork = fork_point(dir, worktree, &head, &onto)?;
    let own = graph::commits_between(dir, &fork, &head)?;
    if own.is_empty() {
        return Err(Error::refused(format!(
            "nothing to land: {} has no commit and no change that {} lacks",
            worktree.branch, target.base
        )));
    }
    if fork != onto || sign {
        match rebase::rebase_onto(dir, &onto, &fork, sign)
            .map_err(|e| commit::signing_failure(sign, e))?
        {
            rebase::Rebased::Done => {}
            rebase::Rebased::Conflict(files) => return Err(conflict(&target.base, &files)),
        }
    }
    let head = head_of(dir)?;
    let landed = apply_strategy(dir, worktree, strategy, message, &onto, &head, sign)?;
    publish::refuse_credentials(dir, &onto, &landed)?;
    let pushed = match &target.remote {
        Some(remote) => {
            let ssh = publish::ssh_command(&target.config, ctx.ssh_command_inherited);
            let push = publish::push_to(dir, remote, &onto, &landed, ssh)?;
            ctx.report(Fact::Pushed(push.clone()));
            Some(push)
        }
        None => None,
    };
    // After a push, failing to move the local base must not make the landing look failed.
    let local_base = local_base::move_local_base(&worktree.repository, &target.base, &landed)
        .unwrap_or_else(|e| LocalBase::Left {
            why: format!("it could not be moved: {e}"),
        });
    if pushed.is_none()
        && let LocalBase::Left { why } = &local_base
    {
        return Err(Error::refused(format!(
            "nothing landed: {why}; {} holds the rebased work, so land again once that is settled",
            worktree.branch
        )));
    }
    Ok(Published {
        onto,
        landed,
        commits: own.len(),
        pushed,
        local_base,
    })
}

/// Continues a rebase a conflict stopped, once no conflict marker is left in the files it
/// stopped on or in any other changed file. Returns the credential files left out.
fn continue_stopped_rebase(
    dir: &std::path::Path,
    worktree: &WorktreeInfo,
    sign: bool,
) -> Result<Vec<String>, Error> {
    commit::refuse_conflict_markers(dir, &rebase::unmerged_paths(dir)?)?;
    let (staged, left_out) = commit::stage(dir)?;
    commit::refuse_conflict_markers(dir, &staged)?;
    match rebase::continue_rebase(dir).map_err(|e| commit::signing_failure(sign, e))? {
        rebase::Rebased::Done => Ok(left_out),
        rebase::Rebased::Conflict(files) => Err(conflict(&worktree.base, &files)),
    }
}

fn conflict(base: &str, files: &[String]) -> Error {
    Error::refused(format!(
        "the rebase onto {base} stopped at a conflict in {}; the rebase is left in progress: resolve the files (leaving no conflict marker), then land again to continue",
        files.join(", ")
    ))
}

/// Refuses unless the worktree has the session's branch checked out, and no other git operation
/// is unfinished there.
fn refuse_other_head(
    checkout: &nodwyn_git::Checkout,
    worktree: &WorktreeInfo,
) -> Result<(), Error> {
    let dir = &checkout.toplevel;
    if let Some(what) = nodwyn_git::status::operation_in_progress(&checkout.git_dir) {
        return Err(Error::refused(format!(
            "{what} is in progress in {}; finish or abort it first",
            dir.display()
        )));
    }
    let expected = worktree.branch.as_str();
    if checkout.head.branch.as_deref() != Some(expected) {
        return Err(Error::refused(format!(
            "{} does not have the session's branch {expected} checked out, so landing refuses: check it out again first",
            dir.display()
        )));
    }
    Ok(())
}

/// The newest base: the upstream's tip, fetched now, or the local base branch's tip.
fn newest_base(ctx: &Context, worktree: &WorktreeInfo, target: &Target) -> Result<String, Error> {
    let dir = worktree.path.as_path();
    match &target.remote {
        Some(remote) => {
            let scratch = format!("refs/nodwyn/land/{}", worktree.branch.replace('/', "-"));
            let ssh = publish::ssh_command(&target.config, ctx.ssh_command_inherited);
            let fetched = refs::fetch_into(
                dir,
                &remote.remote,
                &format!("refs/heads/{}", remote.branch),
                &scratch,
                ssh,
            );
            let _ = refs::delete_ref(dir, &scratch);
            Ok(fetched?)
        }
        None => target
            .local_tip
            .clone()
            .ok_or_else(|| Error::refused("there is no base to land on")),
    }
}

fn head_of(dir: &std::path::Path) -> Result<String, Error> {
    repo::resolve_commit(dir, "HEAD")?
        .ok_or_else(|| Error::refused(format!("{} has no HEAD commit", dir.display())))
}

/// Where the session's own commits start: after the recorded base commit, or after where the
/// branch last met the newest base, whichever is later.
fn fork_point(
    dir: &std::path::Path,
    worktree: &WorktreeInfo,
    head: &str,
    onto: &str,
) -> Result<String, Error> {
    let recorded = Some(worktree.base_commit.clone())
        .filter(|c| graph::is_ancestor(dir, c, head).unwrap_or(false));
    let met = graph::merge_base(dir, head, onto)?;
    match (recorded, met) {
        (Some(recorded), Some(met)) if graph::is_ancestor(dir, &recorded, &met)? => Ok(met),
        (Some(recorded), _) => Ok(recorded),
        (None, Some(met)) => Ok(met),
        (None, None) => Err(Error::refused(format!(
            "{} shares no history with its base, so there is nothing to rebase",
            worktree.branch
        ))),
    }
}

/// Makes the commit the base will point at: HEAD as it is, one squashed commit, or a merge commit
/// over it; the session's branch follows (compare-and-swap), so the worktree stays clean.
fn apply_strategy(
    dir: &std::path::Path,
    worktree: &WorktreeInfo,
    strategy: Strategy,
    message: &str,
    onto: &str,
    head: &str,
    sign: bool,
) -> Result<String, Error> {
    let tree = graph::tree_of(dir, head)?;
    let commit = match strategy {
        Strategy::FfOnly => return Ok(head.to_owned()),
        Strategy::Squash => nodwyn_git::commit::commit_tree(dir, &tree, &[onto], message, sign),
        Strategy::NoFf => nodwyn_git::commit::commit_tree(dir, &tree, &[onto, head], message, sign),
    }
    .map_err(|e| commit::signing_failure(sign, e))?;
    graph::update_ref(
        dir,
        &format!("refs/heads/{}", worktree.branch),
        &commit,
        head,
        &format!("nodwyn land: {strategy}"),
    )?;
    Ok(commit)
}
