//! git-land: the one step that brings a worktree session's work to its base branch.
//!
//! In order: commit every change with the message (credential files left out, signing as the
//! person configured it); make the session's own commits again on the newest base (its upstream,
//! fetched first, when it has one) in the object database, touching no file; apply the strategy
//! (as they are, squashed, or under a merge commit); scan what would leave with L1; check that
//! moving the worktree would overwrite nothing git does not track; push by fast-forward only (or,
//! with no upstream, move the local base); and only then move the session's branch and files to
//! the landed commit, after keeping the branch's old tip under a backup ref. Every refusal comes
//! before the branch is rewritten, so a refused landing leaves it exactly as it was.
//!
//! A commit that conflicts with the base is rebased by the real `git rebase` in the worktree, so
//! the conflict can be resolved there; landing again continues it. Each step is journaled in the
//! session's log before it runs, so a landing stopped anywhere is finished by the next landing or
//! undone by [`abort`] (see `recover`). Nothing here runs `rebase --abort`, `reset --hard`,
//! `checkout -f` or `clean`.
//!
//! `nodwyn land` (a person's own command) and the `git-land` primitive (an agent's call, judged by
//! the guard first) both run [`land`].

mod commit;
mod journal;
mod local_base;
mod publish;
mod recover;
mod target;

use std::fmt;
use std::str::FromStr;

use nodwyn_git::{graph, landed, rebase, refs, replay, repo, switch};
use serde::{Deserialize, Serialize};

pub use local_base::LocalBase;
pub use publish::DEFAULT_SSH_COMMAND;
pub use recover::{Aborted, abort};
pub use target::{RemoteBranch, Target, target};

use crate::Error;
use crate::context::{Context, Fact, LandOutcome, Push, WorktreeInfo};
use journal::Journal;

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
    /// How many of the session's commits landed (0 when the base had them already).
    pub commits: usize,
    /// The push, when the base has an upstream.
    pub pushed: Option<Push>,
    /// What happened to the local base branch.
    pub local_base: LocalBase,
    /// The ref keeping the branch's tip from before the landing rewrote it, when it did.
    pub backup: Option<String>,
    /// Why the session's branch and files were not moved to the landed commit, when they were
    /// not (the work is landed all the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_left: Option<String>,
}

/// Lands the session's worktree on its base branch (see the module documentation). The message
/// is the commit message for uncommitted changes, and for the squash or merge commit; it may be
/// left out when there is nothing to commit and the strategy makes no commit of its own.
pub fn land(ctx: &Context, message: Option<&str>, strategy: Strategy) -> Result<Landed, Error> {
    let worktree = ctx.require_worktree("git-land")?;
    if message.is_some_and(|m| m.trim().is_empty()) {
        return Err(Error::refused(
            "the commit message is empty: give one with -m MESSAGE, or leave -m out when there is nothing to commit",
        ));
    }
    if strategy != Strategy::FfOnly && message.is_none() {
        return Err(Error::refused(format!(
            "a {strategy} landing makes a commit of its own, so it needs a message (-m MESSAGE)"
        )));
    }
    let target = target(worktree)?;
    let dir = worktree.path.as_path();
    let checkout = &target.checkout;
    recover::refuse_stale_lock(checkout)?;
    let sign = target.config.get_bool("commit.gpgsign");
    let pending = ctx.pending_landing.clone();
    let (mut journal, committed, continued) = if let Some(rebasing) =
        rebase::rebasing_branch(&checkout.git_dir)
    {
        let own = format!("refs/heads/{}", worktree.branch);
        if rebasing.as_deref() != Some(own.as_str()) {
            return Err(Error::refused(format!(
                "a rebase of {} is in progress in {}, not one of the session's branch {}; finish or abort it first",
                rebasing.as_deref().unwrap_or("a detached HEAD"),
                dir.display(),
                worktree.branch
            )));
        }
        let Some(pending) = pending.filter(|p| p.rebase.is_some()) else {
            return Err(Error::refused(format!(
                "a rebase of {} that no landing started is in progress in {}; finish it with `git rebase --continue` or undo it with `git rebase --abort` first",
                worktree.branch,
                dir.display()
            )));
        };
        let mut journal = Journal::resume(ctx, pending);
        let left_out =
            continue_stopped_rebase(ctx, dir, worktree, sign).map_err(|e| journal.leave_open(e))?;
        let committed = commit::Committed {
            commit: None,
            left_out,
        };
        (journal, committed, true)
    } else {
        let mut journal = match pending {
            Some(pending) if pending.moving.is_some() => {
                let mut journal = Journal::resume(ctx, pending);
                recover::finish_move(ctx, &mut journal, worktree)?;
                journal
            }
            Some(pending) => Journal::resume(ctx, pending),
            None => {
                refuse_other_head(checkout, worktree)?;
                Journal::begin(ctx, &head_of(dir)?, &strategy.to_string())?
            }
        };
        refuse_other_head(checkout, worktree).map_err(|e| journal.fail(e))?;
        let committed = commit::commit_all(dir, message, sign).map_err(|e| {
            stopped(
                ctx,
                &mut journal,
                worktree,
                &commit::Committed::default(),
                e,
            )
        })?;
        (journal, committed, false)
    };
    let landing = Landing {
        ctx,
        worktree,
        target: &target,
        message,
        strategy,
        sign,
    };
    let published = landing
        .publish_committed(&mut journal)
        .map_err(|error| stopped(ctx, &mut journal, worktree, &committed, error))?;
    journal.end(LandOutcome::Landed, None)?;
    ctx.report(Fact::Landed {
        base: target.base.clone(),
        strategy: strategy.to_string(),
        landed: published.landed.clone(),
        left_out: committed.left_out.clone(),
    })?;
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
        backup: journal.state.backup.map(|(reference, _)| reference),
        branch_left: published.branch_left,
    })
}

/// Ends the journal for a landing that stopped with `error` (an interruption leaves it open, for
/// the next landing or `--abort`), and words the error: as the interruption it was, or with the
/// commit the landing made, so nobody wonders where the changes went.
fn stopped(
    ctx: &Context,
    journal: &mut Journal<'_>,
    worktree: &WorktreeInfo,
    committed: &commit::Committed,
    error: Error,
) -> Error {
    let error = interrupted_or(ctx, worktree, error, journal);
    let error = if journal.is_settled() {
        error
    } else if matches!(error, Error::Interrupted(_)) {
        journal.leave_open(error)
    } else {
        journal.fail(error)
    };
    match (&error, &committed.commit) {
        (Error::Interrupted(_), _) | (_, None) => error,
        (_, Some(commit)) => Error::refused(format!(
            "{error} (the changes were committed on {} as {}; landing again goes on from there)",
            worktree.branch,
            short(commit)
        )),
    }
}

/// An error that happened while the person or the system asked the landing to stop, worded as
/// the interruption it is, with the state it left and what to do next.
fn interrupted_or(
    ctx: &Context,
    worktree: &WorktreeInfo,
    error: Error,
    journal: &Journal<'_>,
) -> Error {
    if !ctx.interrupt.is_raised() {
        return error;
    }
    let what = match error {
        Error::Interrupted(what) => what,
        other => {
            tracing::info!(error = %other, "a step the interrupt stopped");
            while_running(&other).to_owned()
        }
    };
    let head = head_of(&worktree.path).ok();
    let committed = match &head {
        Some(head) if *head != journal.state.head => format!(
            "the changes are committed on {} as {}, and ",
            worktree.branch,
            short(head)
        ),
        _ => String::new(),
    };
    let short_id = short_id(ctx);
    Error::Interrupted(format!(
        "the landing of {} was interrupted {what}: {committed}nothing in the worktree was rewritten. Land again to go on from there, or run `nodwyn land --abort {short_id}` to undo the landing",
        worktree.branch
    ))
}

/// Which step a git command the interrupt stopped was, in words.
fn while_running(error: &Error) -> &'static str {
    let Error::Git(nodwyn_git::Error::Failed { args, .. }) = error else {
        return "while a step ran";
    };
    match args.split_whitespace().next().unwrap_or_default() {
        "commit" | "add" => "while it committed the changes",
        "fetch" => "while it fetched the base",
        "push" => {
            "while it pushed (the remote may or may not have taken the push; landing again finds out)"
        }
        "rebase" => "while it rebased",
        "merge" => "while it moved the local base",
        _ => "while a git step ran",
    }
}

/// Stops with [`Error::Interrupted`] when an interrupt was asked for; `when` says where.
fn checkpoint(ctx: &Context, when: &str) -> Result<(), Error> {
    if ctx.interrupt.is_raised() {
        return Err(Error::Interrupted(when.to_owned()));
    }
    Ok(())
}

/// Paths for a sentence: the first ten, and how many more.
fn named(paths: &[String]) -> String {
    let mut text = paths
        .iter()
        .take(10)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > 10 {
        text.push_str(&format!(" and {} more", paths.len() - 10));
    }
    text
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// What the steps after the commit did.
struct Published {
    onto: String,
    landed: String,
    commits: usize,
    pushed: Option<Push>,
    local_base: LocalBase,
    branch_left: Option<String>,
}

/// What every step after the commit works with.
#[derive(Clone, Copy)]
struct Landing<'a> {
    ctx: &'a Context,
    worktree: &'a WorktreeInfo,
    target: &'a Target,
    message: Option<&'a str>,
    strategy: Strategy,
    sign: bool,
}

impl Landing<'_> {
    /// The steps after the commit (see the module documentation). If a `git rebase` in the worktree
    /// rewrote the branch and a later step refuses, the branch and files are put back first.
    fn publish_committed(self, journal: &mut Journal<'_>) -> Result<Published, Error> {
        let Landing {
            ctx,
            worktree,
            target,
            sign,
            ..
        } = self;
        let dir = worktree.path.as_path();
        checkpoint(ctx, "before it fetched the base")?;
        let onto = newest_base(ctx, worktree, target)?;
        checkpoint(ctx, "after it fetched the base")?;
        let head = head_of(dir)?;
        let fork = fork_point(dir, worktree, &head, &onto)?;
        let own = graph::commits_between(dir, &fork, &head)?;
        let resumed = journal.state.backup.is_some() || journal.state.moving.is_some();
        if own.is_empty() && !resumed {
            return Err(Error::refused(format!(
                "nothing to land: {} has no commit and no change that {} lacks",
                worktree.branch, target.base
            )));
        }
        let (tip, commits) = if own.is_empty() || landed::is_landed(dir, &head, &onto)? {
            (onto.clone(), 0)
        } else {
            match replay::replay(dir, &fork, &head, &onto, sign, sign)
                .map_err(|e| commit::signing_failure(sign, e))?
            {
                replay::Replayed::Done { tip, kept } => (tip, kept),
                replay::Replayed::Conflict { .. } => {
                    self.rebase_in_worktree(journal, &head, &fork, &onto)?
                }
            }
        };
        let current = head_of(dir)?;
        let after = self.publish_tip(journal, &onto, &tip, &current);
        match after {
            Ok(published) => Ok(Published {
                commits,
                ..published
            }),
            Err(error) => Err(recover::put_back_rewritten(
                journal, worktree, &current, error,
            )),
        }
    }

    /// Runs the real `git rebase` in the worktree, for commits that conflict with the base: a
    /// conflict stops it there, left in progress for the person or agent to resolve. Returns the
    /// rebased tip and its commit count when it went through after all.
    fn rebase_in_worktree(
        self,
        journal: &mut Journal<'_>,
        head: &str,
        fork: &str,
        onto: &str,
    ) -> Result<(String, usize), Error> {
        let Landing {
            ctx,
            worktree,
            target,
            sign,
            ..
        } = self;
        let dir = worktree.path.as_path();
        refuse_in_the_way(dir, head, onto, "rebase the branch onto the new base")?;
        checkpoint(ctx, "before its rebase")?;
        if journal.state.backup.is_none() {
            journal.back_up(dir, head)?;
        }
        journal.rebase(onto, fork)?;
        match rebase::rebase_onto(dir, onto, fork, sign) {
            Ok(rebase::Rebased::Done) => {
                let rebased = head_of(dir)?;
                Ok((
                    rebased.clone(),
                    graph::commits_between(dir, onto, &rebased)?.len(),
                ))
            }
            Ok(rebase::Rebased::Conflict(files)) => {
                Err(journal.leave_open(conflict(ctx, &target.base, &files)))
            }
            Err(error) => {
                let error = commit::signing_failure(sign, error);
                Err(recover::undo_stopped_rebase(ctx, journal, worktree, error))
            }
        }
    }

    /// After the new tip is made: the strategy, the scan, the check of the worktree, the push (or
    /// the local base), and the move of the branch and files.
    fn publish_tip(
        self,
        journal: &mut Journal<'_>,
        onto: &str,
        tip: &str,
        current: &str,
    ) -> Result<Published, Error> {
        let Landing {
            ctx,
            worktree,
            target,
            message,
            strategy,
            sign,
        } = self;
        let dir = worktree.path.as_path();
        let landed = if tip == onto {
            onto.to_owned()
        } else {
            apply_strategy(dir, strategy, message.unwrap_or_default(), onto, tip, sign)?
        };
        if landed != onto {
            publish::refuse_credentials(dir, onto, &landed)?;
        }
        if landed != current {
            refuse_in_the_way(
                dir,
                current,
                &landed,
                "move the worktree to the landed commit",
            )?;
        }
        checkpoint(ctx, "before it pushed")?;
        let pushed = match &target.remote {
            Some(remote) if landed != onto => {
                let ssh = publish::ssh_command(&target.config, ctx.ssh_command_inherited);
                // From the main checkout, so a remote with a relative URL (`../origin.git`) means
                // what it means there, as git resolves it.
                let push = publish::push_to(&worktree.repository, remote, onto, &landed, ssh)?;
                ctx.report(Fact::Pushed(push.clone()))?;
                Some(push)
            }
            _ => None,
        };
        let mut local_base = None;
        if target.remote.is_none() {
            let moved = local_base::move_local_base(&worktree.repository, &target.base, &landed)?;
            if let LocalBase::Left { why } = &moved {
                return Err(Error::refused(format!(
                    "nothing landed: {why}; {} holds the work, so land again once that is settled",
                    worktree.branch
                )));
            }
            local_base = Some(moved);
        }
        let mut branch_left = None;
        if landed != current {
            if journal.state.backup.is_none() {
                journal.back_up(dir, current)?;
            }
            journal.moving(current, &landed)?;
            let reason = format!("nodwyn land: onto {}", target.base);
            if let Err(error) = switch::switch(dir, &worktree.branch, current, &landed, &reason) {
                branch_left = Some(format!(
                    "the branch and files stay at {} ({error}); its work is landed all the same",
                    short(current)
                ));
            }
        }
        // After a push, failing to move the local base must not make the landing look failed.
        let local_base = match local_base {
            Some(moved) => moved,
            None => local_base::move_local_base(&worktree.repository, &target.base, &landed)
                .unwrap_or_else(|e| LocalBase::Left {
                    why: format!("it could not be moved: {e}"),
                }),
        };
        Ok(Published {
            onto: onto.to_owned(),
            landed,
            commits: 0,
            pushed,
            local_base,
            branch_left,
        })
    }
}

/// Refuses when moving the worktree from `from` to `to` (to `doing`) would overwrite or delete
/// something git does not track, or a change not committed.
fn refuse_in_the_way(
    dir: &std::path::Path,
    from: &str,
    to: &str,
    doing: &str,
) -> Result<(), Error> {
    refuse_if_in_the_way(dir, from, to, |found| {
        format!(
            "the landing would have to overwrite or delete {found} in the worktree to {doing}, and git does not have their content (untracked or ignored files, or changes left out of the commit); it stopped before rewriting or pushing anything. Move them out of the way, then land again"
        )
    })
}

/// Refuses with `sentence` (given the paths, named) when moving the worktree at `dir` from
/// `from` to `to` would overwrite what git does not have (see [`switch::in_the_way`]).
fn refuse_if_in_the_way(
    dir: &std::path::Path,
    from: &str,
    to: &str,
    sentence: impl FnOnce(&str) -> String,
) -> Result<(), Error> {
    let found = switch::in_the_way(dir, from, to)?;
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::refused(sentence(&named(&found))))
}

/// Continues a rebase a conflict stopped, once no conflict marker is left in the files it
/// stopped on or in any other changed file. Returns the credential files left out.
fn continue_stopped_rebase(
    ctx: &Context,
    dir: &std::path::Path,
    worktree: &WorktreeInfo,
    sign: bool,
) -> Result<Vec<String>, Error> {
    commit::refuse_conflict_markers(dir, &rebase::unmerged_paths(dir)?)?;
    let (staged, left_out) = commit::stage(dir)?;
    commit::refuse_conflict_markers(dir, &staged)?;
    match rebase::continue_rebase(dir) {
        Ok(rebase::Rebased::Done) => Ok(left_out),
        Ok(rebase::Rebased::Conflict(files)) => Err(conflict(ctx, &worktree.base, &files)),
        Err(error) => {
            let short_id = short_id(ctx);
            Err(Error::refused(format!(
                "the rebase left in progress in {} could not go on ({}); nothing was undone. Resolve it with git, or run `nodwyn land --abort {short_id}` to put the branch and files back as they were before the landing",
                dir.display(),
                commit::signing_failure(sign, error)
            )))
        }
    }
}

fn conflict(ctx: &Context, base: &str, files: &[String]) -> Error {
    Error::refused(format!(
        "the rebase onto {base} stopped at a conflict in {}; the rebase is left in progress: resolve the files (leaving no conflict marker), then land again to continue, or run `nodwyn land --abort {}` to undo the landing",
        named(files),
        short_id(ctx)
    ))
}

/// The session's 8 hex digits, as commands take them.
fn short_id(ctx: &Context) -> &str {
    ctx.session.rsplit('-').next().unwrap_or(&ctx.session)
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
    match &target.remote {
        Some(remote) => {
            let scratch = format!("refs/nodwyn/land/{}", worktree.branch.replace('/', "-"));
            let ssh = publish::ssh_command(&target.config, ctx.ssh_command_inherited);
            // From the main checkout, where a relative remote URL means what it says.
            let fetched = refs::fetch_into(
                &worktree.repository,
                &remote.remote,
                &format!("refs/heads/{}", remote.branch),
                &scratch,
                ssh,
            );
            let _ = refs::delete_ref(&worktree.repository, &scratch);
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

/// Makes the commit the base will point at, in the object database: the tip as it is, one
/// squashed commit, or a merge commit over it.
fn apply_strategy(
    dir: &std::path::Path,
    strategy: Strategy,
    message: &str,
    onto: &str,
    tip: &str,
    sign: bool,
) -> Result<String, Error> {
    let tree = graph::tree_of(dir, tip)?;
    match strategy {
        Strategy::FfOnly => return Ok(tip.to_owned()),
        Strategy::Squash => nodwyn_git::commit::commit_tree(dir, &tree, &[onto], message, sign),
        Strategy::NoFf => nodwyn_git::commit::commit_tree(dir, &tree, &[onto, tip], message, sign),
    }
    .map_err(|e| commit::signing_failure(sign, e))
}
