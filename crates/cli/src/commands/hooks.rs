//! `nodwyn hooks approve`.

use clap::{Args, Subcommand};
use nodwyn_core::worktree::hooks::{approve_hooks, hooks_approved, read_hooks_file};

use crate::commands::{Invocation, RepoArg};
use crate::output;
use crate::person::Terminal;

/// A repository's worktree hooks (`.nodwyn/hooks.toml`).
#[derive(Debug, Subcommand)]
pub(super) enum HooksCommand {
    /// Read the repository's .nodwyn/hooks.toml and approve it, on a terminal: its hooks then run
    /// (confined) when worktrees are made, resumed, removed and landed, until the file changes.
    Approve(ApproveArgs),
}

#[derive(Debug, Args)]
pub(super) struct ApproveArgs {
    #[command(flatten)]
    repo: RepoArg,
}

pub(super) fn run(command: HooksCommand, invocation: &Invocation) -> anyhow::Result<()> {
    let HooksCommand::Approve(args) = command;
    let repository = args.repo.repository()?;
    let store = invocation.store()?;
    let Some(hooks) = read_hooks_file(&repository)? else {
        return output::text(format!(
            "{} has no .nodwyn/hooks.toml: nothing to approve",
            repository.display()
        ));
    };
    if hooks_approved(&store, &repository, &hooks)? {
        return output::text(format!(
            "{} is approved already (sha256 {})",
            hooks.file.path.display(),
            &hooks.sha256[..12]
        ));
    }
    if !output::person_at_terminal() {
        return Err(crate::error::coded(
            "needs_terminal",
            "`hooks approve` needs a terminal (its standard input and error are not one here): approving a repository's hooks is a person's decision; run it yourself in one",
        ));
    }
    match approve_hooks(&store, &repository, &hooks, None, &mut Terminal)? {
        Some(true) => output::text(format!(
            "approved {} (sha256 {}): its hooks run until it changes",
            hooks.file.path.display(),
            &hooks.sha256[..12]
        )),
        _ => Err(crate::error::coded(
            "not_approved",
            format!(
                "{} was not approved, so its hooks do not run",
                hooks.file.path.display()
            ),
        )),
    }
}
