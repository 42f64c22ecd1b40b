//! Putting a landing right after it stopped: finishing a move of the worktree's files that a
//! killed process left half done, putting the branch back when a step refuses after a rebase in
//! the worktree rewrote it, and [`abort`], which returns the branch and the files to how they
//! were before the landing began.
//!
//! None of it runs `rebase --abort`, `reset --hard` or `checkout -f`: a file is written only at a
//! path the landing itself may have written, and whatever such a file held that no commit has is
//! first kept in a commit under one of the session's backup refs.

use std::path::Path;

use nodwyn_git::{GitCommand, graph, rebase, repo, switch};
use serde::Serialize;

use super::journal::Journal;
use super::{head_of, named, short};
use crate::Error;
use crate::context::{Context, LandOutcome, WorktreeInfo};

/// What `nodwyn land --abort` did.
#[derive(Debug, Clone, Serialize)]
pub struct Aborted {
    /// The session's branch.
    pub branch: String,
    /// Whether a landing was in progress (if not, nothing was changed).
    pub undone: bool,
    /// The commit the branch points at now: its tip before the landing began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The backup ref keeping the branch's tip from before anything rewrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// The backup ref keeping what the files the abort wrote held (a conflict being resolved),
    /// when they held anything no commit had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// What of the landing reached the remote before it stopped, which no abort takes back: a
    /// sentence, when its push had begun (checked on the remote itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<String>,
}

/// Refuses while git's index lock is held in the worktree: a git process is running there, or
/// was killed before it finished.
pub(super) fn refuse_stale_lock(checkout: &nodwyn_git::Checkout) -> Result<(), Error> {
    let lock = checkout.git_dir.join("index.lock");
    if lock.exists() {
        return Err(Error::declined(
            "stale_lock",
            format!(
                "{} exists: a git process in {} is running, or was stopped before it finished; if none is running, delete that file, then try again",
                lock.display(),
                checkout.toplevel.display()
            ),
        ));
    }
    Ok(())
}

/// Undoes the landing in progress (see the module documentation); with none in progress it
/// changes nothing, so running it twice is safe.
pub fn abort(ctx: &Context) -> Result<Aborted, Error> {
    let worktree = ctx.require_worktree("land --abort")?;
    let mut aborted = Aborted {
        branch: worktree.branch.clone(),
        undone: false,
        head: None,
        backup: None,
        kept: None,
        reached: None,
    };
    let Some(pending) = ctx.pending_landing.clone() else {
        return Ok(aborted);
    };
    let checkout = crate::checkout::verified(worktree)?;
    refuse_stale_lock(&checkout)?;
    let dir = worktree.path.as_path();
    let branch = format!("refs/heads/{}", worktree.branch);
    let mut journal = Journal::resume(ctx, pending.clone());
    let backup = pending.backup.as_ref().map(|(_, commit)| commit.clone());
    if let Some(rebasing) = rebase::rebasing_branch(&checkout.git_dir) {
        if rebasing.as_deref() != Some(branch.as_str()) {
            return Err(Error::declined(
                "other_rebase_in_progress",
                format!(
                    "a rebase of {} is in progress in {}, not the landing's; finish or abort it with git first",
                    rebasing.as_deref().unwrap_or("a detached HEAD"),
                    dir.display()
                ),
            ));
        }
        let Some(backup) = &backup else {
            return Err(Error::declined(
                "no_backup",
                format!(
                    "the landing's journal keeps no backup of {}, so nodwyn cannot tell what to put back; undo the rebase with git",
                    worktree.branch
                ),
            ));
        };
        let onto = pending.rebase.as_ref().map(|(onto, _)| onto.as_str());
        aborted.kept = quit_rebase(&mut journal, worktree, backup, onto)?;
    } else if let Some((from, to)) = &pending.moving {
        let paths = switch::changed_between(dir, from, to)?;
        let differing = only(switch::differing(dir, from, &paths)?, &paths);
        aborted.kept = keep(&mut journal, dir, from, &differing)?;
        switch::put_back(dir, from, &differing)?;
        if repo::branch_tip(dir, &worktree.branch)?.as_deref() == Some(to.as_str()) {
            graph::update_ref(dir, &branch, from, to, "nodwyn land --abort")?;
        }
    }
    let tip = tip_of(dir, worktree)?;
    if let Some(backup) = &backup
        && &tip != backup
    {
        refuse_rewritten_in_the_way(dir, &tip, backup)?;
        journal.back_up(dir, &tip)?;
        switch::switch(dir, &worktree.branch, &tip, backup, "nodwyn land --abort")?;
    }
    let tip = tip_of(dir, worktree)?;
    if tip != pending.head && is_child(dir, &tip, &pending.head)? {
        // The landing's own commit of the changes: the branch goes back, the files stay, and
        // the changes are uncommitted again, as they were.
        journal.back_up_once(dir, &tip)?;
        graph::update_ref(dir, &branch, &pending.head, &tip, "nodwyn land --abort")?;
        switch::reset_index(dir, &pending.head)?;
    }
    aborted.reached = pending
        .push
        .as_ref()
        .and_then(|(remote, reference, commit)| reached(ctx, worktree, remote, reference, commit));
    journal.end(LandOutcome::Aborted, None)?;
    aborted.undone = true;
    aborted.head = Some(tip_of(dir, worktree)?);
    aborted.backup = journal.state.backup.map(|(reference, _)| reference);
    Ok(aborted)
}

/// Finishes a move of the worktree's files and branch that a stopped process left half done: a
/// path holds either the old commit's version or the new one's, so each is brought to the new
/// one. A path that holds neither was changed since, and the landing refuses.
pub(super) fn finish_move(
    ctx: &Context,
    journal: &mut Journal<'_>,
    worktree: &WorktreeInfo,
) -> Result<(), Error> {
    let Some((from, to)) = journal.state.moving.clone() else {
        return Ok(());
    };
    let dir = worktree.path.as_path();
    let short_id = super::short_id(&ctx.session);
    let tip = tip_of(dir, worktree)?;
    if tip == to {
        journal.state.moving = None;
        return Ok(());
    }
    if tip != from {
        return Err(Error::declined(
            "branch_moved_since",
            format!(
                "an earlier landing stopped while it moved {} from {} to {}, and the branch has moved since; run `nodwyn land --abort {short_id}` to put it back as it was before that landing",
                worktree.branch,
                short(&from),
                short(&to)
            ),
        ));
    }
    let paths = switch::changed_between(dir, &from, &to)?;
    let not_from = only(switch::differing(dir, &from, &paths)?, &paths);
    let not_to = only(switch::differing(dir, &to, &paths)?, &paths);
    let neither: Vec<String> = not_from
        .iter()
        .filter(|p| not_to.contains(p))
        .cloned()
        .collect();
    if !neither.is_empty() {
        return Err(Error::declined(
            "files_changed_since",
            format!(
                "an earlier landing stopped while it moved the worktree's files, and {} changed since; run `nodwyn land --abort {short_id}` (it keeps what they hold in a backup ref) to put the files back as they were",
                named(&neither)
            ),
        ));
    }
    switch::put_back(dir, &to, &not_to)?;
    graph::update_ref(
        dir,
        &format!("refs/heads/{}", worktree.branch),
        &to,
        &from,
        "nodwyn land: finished",
    )?;
    journal.state.moving = None;
    Ok(())
}

/// When a step refused after a `git rebase` in the worktree rewrote the branch (`current` is not
/// the backup), puts the branch and files back at the backup and says so in the error. An
/// interruption leaves everything as it is, for the next landing to go on from.
pub(super) fn put_back_rewritten(
    journal: &mut Journal<'_>,
    worktree: &WorktreeInfo,
    current: &str,
    error: Error,
) -> Error {
    let Some((_, backup)) = journal.state.backup.clone() else {
        return error;
    };
    if backup == current || matches!(error, Error::Interrupted(_)) {
        return error;
    }
    let dir = worktree.path.as_path();
    let mut put_back = || -> Result<String, Error> {
        refuse_rewritten_in_the_way(dir, current, &backup)?;
        let kept = journal.back_up(dir, current)?;
        switch::switch(
            dir,
            &worktree.branch,
            current,
            &backup,
            "nodwyn land: put back",
        )?;
        Ok(kept)
    };
    match put_back() {
        Ok(kept) => Error::declined(
            "rebase_undone",
            format!(
                "{error}; {} was put back at {} as it was before the landing (the rebased commits are kept in {kept})",
                worktree.branch,
                short(&backup)
            ),
        ),
        Err(why) => Error::declined(
            "rebase_not_undone",
            format!(
                "{error}; {} stays rebased at {}, because putting it back failed ({why})",
                worktree.branch,
                short(current)
            ),
        ),
    }
}

/// After a `git rebase` in the worktree stopped for a reason other than a conflict (a signing
/// failure, a hook): the rebase is given up, the branch and files put back, the landing ended.
pub(super) fn undo_stopped_rebase(
    ctx: &Context,
    journal: &mut Journal<'_>,
    worktree: &WorktreeInfo,
    error: Error,
) -> Error {
    let dir = worktree.path.as_path();
    let in_progress = crate::checkout::verified(worktree)
        .ok()
        .and_then(|c| rebase::rebasing_branch(&c.git_dir))
        .is_some();
    let backup = journal.state.backup.clone().map(|(_, commit)| commit);
    let onto = journal.state.rebase.clone().map(|(onto, _)| onto);
    let (Some(backup), true) = (backup, in_progress) else {
        return journal.fail(error);
    };
    match quit_rebase(journal, worktree, &backup, onto.as_deref()) {
        Ok(_) if ctx.interrupt.is_raised() => Error::Interrupted(
            "while it rebased (the rebase it had begun was undone)".to_owned(),
        ),
        Ok(_) => journal.fail(Error::declined("rebase_stopped", format!(
            "the rebase onto the base stopped ({error}); the branch and files were put back as they were"
        ))),
        Err(why) => {
            let short_id = super::short_id(&ctx.session);
            journal.leave_open(Error::declined("rebase_stopped_not_undone", format!(
                "the rebase in {} stopped ({error}) and could not be undone ({why}); run `nodwyn land --abort {short_id}` once that is settled",
                dir.display()
            )))
        }
    }
}

/// Gives up the rebase in progress: what the files it wrote hold is kept, the rebase's state is
/// dropped (`git rebase --quit`, which touches no file), those files get the backup's version,
/// and HEAD is the branch again. Returns the ref keeping the files, if any.
fn quit_rebase(
    journal: &mut Journal<'_>,
    worktree: &WorktreeInfo,
    backup: &str,
    onto: Option<&str>,
) -> Result<Option<String>, Error> {
    let dir = worktree.path.as_path();
    let head = head_of(dir)?;
    let mut made = switch::changed_between(dir, backup, &head)?;
    if let Some(onto) = onto {
        made.extend(switch::changed_between(dir, backup, onto)?);
    }
    let differing = switch::differing(dir, backup, &made)?;
    let kept = keep(journal, dir, backup, &differing)?;
    GitCommand::new(dir)
        .shielded()
        .args(["rebase", "--quit"])
        .run()?;
    switch::put_back(dir, backup, &differing)?;
    GitCommand::new(dir)
        .shielded()
        .args([
            "symbolic-ref",
            "-m",
            "nodwyn land --abort",
            "HEAD",
            &format!("refs/heads/{}", worktree.branch),
        ])
        .run()?;
    Ok(kept)
}

/// Keeps what the worktree holds at `paths` in a commit on `parent`, under a backup ref.
fn keep(
    journal: &mut Journal<'_>,
    dir: &Path,
    parent: &str,
    paths: &[String],
) -> Result<Option<String>, Error> {
    if paths.is_empty() {
        return Ok(None);
    }
    let commit = switch::snapshot(
        dir,
        parent,
        paths,
        "nodwyn: what the worktree's files held when the landing was undone",
    )?;
    Ok(Some(journal.back_up(dir, &commit)?))
}

fn refuse_rewritten_in_the_way(dir: &Path, from: &str, to: &str) -> Result<(), Error> {
    super::steps::refuse_if_in_the_way(dir, from, to, |found| {
        format!(
            "putting the branch back would overwrite {found} in the worktree, which no commit holds; move them out of the way, then try again"
        )
    })
}

fn only(found: Vec<String>, within: &[String]) -> Vec<String> {
    let within: std::collections::HashSet<&String> = within.iter().collect();
    found.into_iter().filter(|p| within.contains(p)).collect()
}

fn tip_of(dir: &Path, worktree: &WorktreeInfo) -> Result<String, Error> {
    repo::branch_tip(dir, &worktree.branch)?.ok_or_else(|| {
        Error::declined(
            "branch_gone",
            format!("the branch {} is gone", worktree.branch),
        )
    })
}

/// Whether `child`'s first parent is `parent`.
fn is_child(dir: &Path, child: &str, parent: &str) -> Result<bool, Error> {
    Ok(nodwyn_git::commit::parts(dir, child)?.parent.as_deref() == Some(parent))
}
/// Whether the push a stopped landing began reached the remote: `reference` of `remote` is
/// fetched and holds `commit`. A sentence saying what reached it, or that it could not be
/// checked; `None` when it did not reach it.
fn reached(
    ctx: &Context,
    worktree: &WorktreeInfo,
    remote: &str,
    reference: &str,
    commit: &str,
) -> Option<String> {
    let dir = worktree.repository.as_path();
    let scratch = format!(
        "refs/nodwyn/fetch/abort-{}",
        worktree.branch.replace('/', "-")
    );
    let network = nodwyn_git::Network {
        deadline: ctx.limits.git_network,
        cancel: Some(ctx.interrupt.flag()),
        ..nodwyn_git::Network::default()
    };
    let branch = reference.strip_prefix("refs/heads/").unwrap_or(reference);
    let fetched = nodwyn_git::refs::fetch_into(dir, remote, reference, &scratch, network);
    let sentence = match fetched {
        Ok(tip) => {
            let holds = graph::is_ancestor(dir, commit, &tip).unwrap_or(false);
            let _ = nodwyn_git::refs::delete_ref(dir, &scratch);
            if !holds {
                return None;
            }
            format!(
                "the landing's push had reached {remote} before it stopped: {branch} of {remote} is at {} and holds the landed commit {}, which an abort does not take back (undo it there with a new commit, or land again, which finds the work landed)",
                super::short(&tip),
                super::short(commit)
            )
        }
        Err(error) => format!(
            "whether the landing's push reached {remote} could not be checked ({error}); look at {branch} of {remote} for the commit {}",
            super::short(commit)
        ),
    };
    Some(sentence)
}
