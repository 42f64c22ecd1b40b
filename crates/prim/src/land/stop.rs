//! How a landing that stops ends: the journal closed (or left open, for an interruption), and the
//! error worded as what happened: the interruption, with the step it cut and what to do next, or
//! a refusal with the commit the landing made.

use super::journal::Journal;
use super::{commit, head_of, short, short_id};
use crate::Error;
use crate::context::{Context, WorktreeInfo};

/// Ends the journal for a landing that stopped with `error` (an interruption leaves it open, for
/// the next landing or `--abort`), and words the error: as the interruption it was, or with the
/// commit the landing made, so nobody wonders where the changes went.
pub(super) fn stopped(
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
        (_, Some(commit)) => {
            let sentence = format!(
                "{error} (the changes were committed on {} as {}; landing again goes on from there)",
                worktree.branch,
                short(commit)
            );
            // The refusal's code and files stay what a program acts on.
            error.reworded(sentence)
        }
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
    let short_id = short_id(&ctx.session);
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
pub(super) fn checkpoint(ctx: &Context, when: &str) -> Result<(), Error> {
    if ctx.interrupt.is_raised() {
        return Err(Error::Interrupted(when.to_owned()));
    }
    Ok(())
}
