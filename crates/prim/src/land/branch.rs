//! Pushing a session's own branch, for work done where nobody can land it: a headless run on a CI
//! runner (`nodwyn run --headless --push-branch`) sends its branch home this way, and a person
//! lands it there later with the one guarded landing.
//!
//! The same refusals as a landing's publish step stand, in the same order: the session's changes
//! committed (credential files left out, and, as in an agent's landing, new files no primitive
//! wrote), every commit since the session's base scanned for credentials, the push a
//! fast-forward, and only to the remote its base came from, whose every push URL the caller's
//! allow list must name. Only `refs/heads/<the session's branch>` moves; the base is never
//! pushed.

use nodwyn_git::push;

use super::{commit, head_of, publish, target};
use crate::Error;
use crate::context::{Context, Fact, Push};

/// What pushing the branch did.
#[derive(Debug, Clone)]
pub struct BranchPushed {
    /// The session's branch.
    pub branch: String,
    /// The commit made of the uncommitted changes, if there were any.
    pub committed: Option<String>,
    /// Changed credential files left out of that commit.
    pub left_out: Vec<String>,
    /// New files no primitive wrote, left in the worktree and out of the commit.
    pub not_written: Vec<String>,
    /// The branch's tip, as pushed.
    pub head: String,
    /// The push; `None` when the session made no commit, so there was nothing to push.
    pub push: Option<Push>,
}

/// Commits the session's changes with `message`, scans what would leave, and pushes the session's
/// branch to its base's remote, when `allowed` approves every push URL of that remote.
pub fn push_branch(
    ctx: &Context,
    message: &str,
    allowed: impl Fn(&[String]) -> bool,
) -> Result<BranchPushed, Error> {
    let worktree = ctx.require_worktree("push-branch")?;
    let target = target(worktree)?;
    let Some(remote) = &target.remote else {
        return Err(Error::declined(
            "no_remote",
            format!(
                "the session's base ({}) has no branch on a remote, so there is nowhere to push {}; start the session from a remote branch (`--base origin/main`) or give the base an upstream",
                if worktree.base.is_empty() {
                    "a commit"
                } else {
                    &worktree.base
                },
                worktree.branch
            ),
        ));
    };
    if !allowed(&remote.urls) {
        return Err(Error::declined(
            "push_not_allowed",
            format!(
                "{} of {} is not in the push list of your allow.toml, so {} was not pushed; if it is where the branch belongs, `nodwyn allow push URL` adds it",
                remote.urls.join(", "),
                remote.remote,
                worktree.branch
            ),
        ));
    }
    let dir = worktree.path.as_path();
    let sign = target.config.get_bool("commit.gpgsign");
    let new_files = commit::NewFiles {
        written: ctx.written.as_deref(),
        named: &[],
    };
    let committed = commit::commit_all(dir, Some(message), sign, new_files)?;
    let head = head_of(dir)?;
    if head == worktree.base_commit {
        return Ok(BranchPushed {
            branch: worktree.branch.clone(),
            committed: None,
            left_out: committed.left_out,
            not_written: committed.not_written,
            head,
            push: None,
        });
    }
    publish::refuse_credentials(dir, &worktree.base_commit, &head)?;
    let network = nodwyn_git::Network {
        ssh_command: publish::ssh_command(&target.config, ctx.ssh_command_inherited),
        deadline: ctx.limits.git_network,
        cancel: Some(ctx.interrupt.flag()),
    };
    // From the main checkout, so a relative remote URL means what it means there.
    match push::push_fast_forward(
        &worktree.repository,
        &remote.remote,
        &head,
        &worktree.branch,
        network,
    )? {
        push::Pushed::Done => {}
        push::Pushed::Rejected(summary) => {
            return Err(Error::declined(
                "push_refused",
                format!(
                    "{} refused the push of {} ({summary}); a push never forces, so nothing was pushed",
                    remote.remote, worktree.branch
                ),
            ));
        }
    }
    let push = Push {
        remote: remote.remote.clone(),
        urls: remote.urls.clone(),
        reference: format!("refs/heads/{}", worktree.branch),
        old: None,
        new: head.clone(),
    };
    ctx.report(Fact::Pushed(push.clone()))?;
    Ok(BranchPushed {
        branch: worktree.branch.clone(),
        committed: committed.commit,
        left_out: committed.left_out,
        not_written: committed.not_written,
        head,
        push: Some(push),
    })
}
