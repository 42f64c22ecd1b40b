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

mod branch;
mod commit;
mod journal;
mod local_base;
mod publish;
mod recover;
mod steps;
mod stop;
mod summary;
mod target;

use std::fmt;
use std::str::FromStr;

use nodwyn_git::{graph, rebase, refs, repo};
use serde::{Deserialize, Serialize};

pub use branch::{BranchPushed, push_branch};
pub use commit::NewFiles;
pub use local_base::LocalBase;
pub use publish::{DEFAULT_SSH_COMMAND, credentials_leaving};
pub use recover::{Aborted, abort};
pub use target::{RemoteBranch, Target, destination, target};

use crate::Error;
use crate::context::{Context, Fact, LandOutcome, Push, WorktreeInfo};
use journal::Journal;
use steps::Landing;
use stop::stopped;

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
            other => Err(Error::declined(
                "bad_strategy",
                format!("`{other}` is not a landing strategy: use ff-only, squash or no-ff"),
            )),
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
    /// New files no primitive wrote (a command's cache, a test's output), left out of an
    /// agent's landing: they stay in the worktree, and naming them (`include`) lands them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_written: Vec<String>,
    /// The new files the landing committed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub new_files: Vec<String>,
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
pub fn land(
    ctx: &Context,
    message: Option<&str>,
    strategy: Strategy,
    include: &[String],
) -> Result<Landed, Error> {
    let worktree = ctx.require_worktree("git-land")?;
    if message.is_some_and(|m| m.trim().is_empty()) {
        return Err(Error::declined(
            "empty_message",
            "the commit message is empty: give one with -m MESSAGE, or leave -m out when there is nothing to commit",
        ));
    }
    if strategy != Strategy::FfOnly && message.is_none() {
        return Err(Error::declined(
            "message_needed",
            format!(
                "a {strategy} landing makes a commit of its own, so it needs a message (-m MESSAGE)"
            ),
        ));
    }
    // Landings of one repository take turns, from reading the newest base to moving it: one
    // that waits then rebases onto what the one before it landed, instead of being refused.
    let _turn = take_landing_turn(ctx, worktree)?;
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
            return Err(Error::declined(
                "other_rebase_in_progress",
                format!(
                    "a rebase of {} is in progress in {}, not one of the session's branch {}; finish or abort it first",
                    rebasing.as_deref().unwrap_or("a detached HEAD"),
                    dir.display(),
                    worktree.branch
                ),
            ));
        }
        let Some(pending) = pending.filter(|p| p.rebase.is_some()) else {
            return Err(Error::declined(
                "unstarted_rebase_in_progress",
                format!(
                    "a rebase of {} that no landing started is in progress in {}; finish it with `git rebase --continue` or undo it with `git rebase --abort` first",
                    worktree.branch,
                    dir.display()
                ),
            ));
        };
        let mut journal = Journal::resume(ctx, pending);
        let left_out =
            continue_stopped_rebase(ctx, dir, worktree, sign).map_err(|e| journal.leave_open(e))?;
        let committed = commit::Committed {
            commit: None,
            left_out,
            ..commit::Committed::default()
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
                refuse_changed_since_review(ctx, dir)?;
                refuse_unasked_deletions(ctx, dir, include)?;
                Journal::begin(ctx, &head_of(dir)?, &strategy.to_string())?
            }
        };
        refuse_other_head(checkout, worktree).map_err(|e| journal.fail(e))?;
        let new_files = commit::NewFiles {
            written: ctx.written.as_deref(),
            named: include,
        };
        let committed = commit::commit_all(dir, message, sign, new_files).map_err(|e| {
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
    journal.report(Fact::Landed {
        base: target.base.clone(),
        strategy: strategy.to_string(),
        landed: published.landed.clone(),
        left_out: committed.left_out.clone(),
    })?;
    if let Some((what, why)) = journal.unrecorded() {
        return Err(Error::declined(
            "landed_unrecorded",
            format!(
                "landed: {what}, so the work is published; but the session's log could not record it ({why}). Once the log can be written again (free some disk space), `nodwyn land {}` finds it landed and records it",
                short_id(&ctx.session)
            ),
        ));
    }
    Ok(Landed {
        branch: worktree.branch.clone(),
        base: target.base,
        strategy,
        committed: committed.commit,
        left_out: committed.left_out,
        not_written: committed.not_written,
        new_files: committed.new_files,
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

/// A landing commits the deletion of a tracked file only when someone asked for it. A file can
/// vanish from a worktree without anyone deleting it (a checkout cut short, a command's clean-up
/// gone wrong), and landing that would delete it on the base for everyone. An agent's landing
/// refuses every deletion it did not name in `include`; a person's refuses the deletion of files
/// missing from the folder that were not removed with `git rm`, until they confirm it (they were
/// shown the names: [`crate::context::Context::deletions_confirmed`]).
pub(crate) fn refuse_unasked_deletions(
    ctx: &Context,
    dir: &std::path::Path,
    include: &[String],
) -> Result<(), Error> {
    let missing = nodwyn_git::commit::missing_files(dir)?;
    if ctx.written.is_some() {
        let chosen = commit::NewFiles {
            written: Some(&[]),
            named: include,
        };
        let mut deleted = nodwyn_git::commit::staged_deletions(dir)?;
        deleted.extend(missing);
        deleted.sort();
        deleted.dedup();
        let unnamed: Vec<String> = deleted.into_iter().filter(|p| !chosen.keeps(p)).collect();
        if unnamed.is_empty() {
            return Ok(());
        }
        return Err(Error::declined(
            "unnamed_deletions",
            format!(
                "the landing would delete {} tracked file(s) that were not named: {}; name each in include to land its deletion, or bring them back (`git checkout -- FILE`); nothing was landed",
                unnamed.len(),
                named(&unnamed)
            ),
        )
        .about_files(&unnamed));
    }
    if missing.is_empty() || ctx.deletions_confirmed {
        return Ok(());
    }
    Err(Error::declined(
        "unconfirmed_deletions",
        format!(
            "{} tracked file(s) are missing from {} without having been removed with `git rm`, and landing would delete them: {}; nothing was landed. Land their deletion with `--delete-missing`, or bring them back with `git -C {} checkout -- .`",
            missing.len(),
            dir.display(),
            named(&missing),
            dir.display()
        ),
    )
    .about_files(&missing))
}

/// Waits for the repository's landing turn (telling the person watching whose landing it waits
/// for), and holds it until dropped. Ctrl-C while waiting stops before anything began.
fn take_landing_turn(
    ctx: &Context,
    worktree: &WorktreeInfo,
) -> Result<nodwyn_git::turns::Turn, Error> {
    let holder = format!(
        "session {} (process {})",
        short_id(&ctx.session),
        std::process::id()
    );
    let flag = ctx.interrupt.flag();
    let turn = nodwyn_git::turns::take_waiting(
        &worktree.repository,
        nodwyn_git::turns::LANDING,
        &holder,
        &flag,
        |other| {
            let whose = if other.is_empty() {
                "another session"
            } else {
                other
            };
            ctx.notices.tell(&format!(
                "waiting for another landing of this repository ({whose}) to finish; then {} rebases onto what it landed",
                worktree.branch
            ));
        },
    )?;
    turn.ok_or_else(|| {
        Error::Interrupted(
            "stopped while waiting for another landing to finish; nothing was landed or changed"
                .to_owned(),
        )
    })
}

/// A landing after a person was shown the session's changes lands exactly what they saw: a file
/// changed since (by an agent's command, or anything else) is refused before anything is
/// committed, with how to see it.
fn refuse_changed_since_review(ctx: &Context, dir: &std::path::Path) -> Result<(), Error> {
    let Some(reviewed) = &ctx.reviewed_tree else {
        return Ok(());
    };
    let now = nodwyn_git::diff::Snapshot::take(dir, ctx.limits.diff_time)?.tree()?;
    if &now == reviewed {
        return Ok(());
    }
    Err(Error::declined(
        "changed_since_review",
        format!(
            "the worktree's files changed since you were last shown them, so nothing was landed: look at the changes again with `nodwyn worktree diff {}`, then land",
            short_id(&ctx.session)
        ),
    ))
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
            let short_id = short_id(&ctx.session);
            Err(Error::declined(
                "rebase_stuck",
                format!(
                    "the rebase left in progress in {} could not go on ({}); nothing was undone. Resolve it with git, or run `nodwyn land --abort {short_id}` to put the branch and files back as they were before the landing",
                    dir.display(),
                    commit::signing_failure(sign, error)
                ),
            ))
        }
    }
}

fn conflict(ctx: &Context, base: &str, files: &[String]) -> Error {
    Error::declined(
        "merge_conflict",
        format!(
            "the rebase onto {base} stopped at a conflict in {}; the rebase is left in progress: resolve the files (leaving no conflict marker), then land again to continue, or run `nodwyn land --abort {}` to undo the landing",
            named(files),
            short_id(&ctx.session)
        ),
    )
    .about_files(files)
}

/// A session id's 8 hex digits, as commands take them.
fn short_id(session: &str) -> &str {
    session.rsplit('-').next().unwrap_or(session)
}

/// Refuses unless the worktree has the session's branch checked out, and no other git operation
/// is unfinished there.
fn refuse_other_head(
    checkout: &nodwyn_git::Checkout,
    worktree: &WorktreeInfo,
) -> Result<(), Error> {
    let dir = &checkout.toplevel;
    if let Some(what) = nodwyn_git::status::operation_in_progress(&checkout.git_dir) {
        return Err(Error::declined(
            "operation_in_progress",
            format!(
                "{what} is in progress in {}; finish or abort it first",
                dir.display()
            ),
        ));
    }
    let expected = worktree.branch.as_str();
    if checkout.head.branch.as_deref() != Some(expected) {
        return Err(Error::declined(
            "branch_not_checked_out",
            format!(
                "{} does not have the session's branch {expected} checked out, so landing refuses: check it out again first",
                dir.display()
            ),
        ));
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
                nodwyn_git::Network {
                    ssh_command: ssh,
                    deadline: ctx.limits.git_network,
                    cancel: Some(ctx.interrupt.flag()),
                },
            );
            let _ = refs::delete_ref(&worktree.repository, &scratch);
            Ok(fetched?)
        }
        None => target
            .local_tip
            .clone()
            .ok_or_else(|| Error::declined("no_base", "there is no base to land on")),
    }
}

fn head_of(dir: &std::path::Path) -> Result<String, Error> {
    repo::resolve_commit(dir, "HEAD")?
        .ok_or_else(|| Error::declined("no_head", format!("{} has no HEAD commit", dir.display())))
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
        (None, None) => Err(Error::declined(
            "no_shared_history",
            format!(
                "{} shares no history with its base, so there is nothing to rebase",
                worktree.branch
            ),
        )),
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
