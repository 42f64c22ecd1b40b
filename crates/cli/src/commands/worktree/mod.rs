//! `nodwyn worktree ...`: the life of a session's worktree.

mod close;
pub(crate) mod diff;
mod keep;
mod list;
mod new;
mod path;
mod port;
mod prune;
mod remove;
mod restore;
mod resume;
mod review;
pub(crate) mod switch;

use clap::Subcommand;

use crate::commands::{Invocation, Outcome};

#[derive(Debug, Subcommand)]
pub(super) enum WorktreeCommand {
    New(new::NewArgs),
    List(list::ListArgs),
    Path(path::PathArgs),
    Port(port::PortArgs),
    Close(close::CloseArgs),
    Resume(resume::ResumeArgs),
    Restore(restore::RestoreArgs),
    Remove(remove::RemoveArgs),
    Keep(keep::KeepArgs),
    Prune(prune::PruneArgs),
    Diff(diff::DiffArgs),
    Review(review::ReviewArgs),
    /// Go to a session's worktree (with `nodwyn shell-init`'s shell function), the checkout
    /// (`^`) or the folder before (`-`).
    Switch(switch::SwitchArgs),
}

pub(super) fn run(command: WorktreeCommand, invocation: &Invocation) -> anyhow::Result<Outcome> {
    let done = match command {
        WorktreeCommand::Review(args) => return review::run(args, invocation),
        WorktreeCommand::New(args) => new::run(args, invocation),
        WorktreeCommand::List(args) => list::run(args, invocation),
        WorktreeCommand::Path(args) => path::run(args, invocation),
        WorktreeCommand::Port(args) => port::run(args, invocation),
        WorktreeCommand::Close(args) => close::run(args, invocation),
        WorktreeCommand::Resume(args) => resume::run(args, invocation),
        WorktreeCommand::Restore(args) => restore::run(args, invocation),
        WorktreeCommand::Remove(args) => remove::run(args, invocation),
        WorktreeCommand::Keep(args) => keep::run(args, invocation),
        WorktreeCommand::Prune(args) => prune::run(args, invocation),
        WorktreeCommand::Diff(args) => diff::run(args, invocation),
        WorktreeCommand::Switch(args) => switch::run(args, invocation),
    };
    done.map(|()| Outcome::Success)
}

/// A sentence on what became of a session's branch when its worktree went.
fn describe_branch(branch: &nodwyn_core::worktree::BranchOutcome) -> String {
    match (&branch.kept, branch.deleted) {
        (_, true) => "the branch was deleted: its base has all of its work".to_owned(),
        (Some(why), false) => format!("the branch stays: {why}"),
        (None, false) => "the branch was already gone".to_owned(),
    }
}
