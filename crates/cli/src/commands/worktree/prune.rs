//! `nodwyn worktree prune`.

use clap::Args;
use nodwyn_core::worktree::prune;

use crate::commands::{Invocation, RepoArg};
use crate::output;

/// Remove the worktrees of closed sessions that `close` would remove.
///
/// Says why each of the others stays. Never touches a worktree nodwyn did not make.
#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Say what would be removed, and change nothing.
    #[arg(long)]
    dry_run: bool,
}

pub(super) fn run(args: PruneArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let repository = args.repo.repository()?;
    let (report, unreadable) = prune(&invocation.store()?, &repository, args.dry_run)?;
    output::note_unreadable(&unreadable);
    if invocation.json {
        return output::json(&report);
    }
    if report.is_empty() {
        return output::text(format!("No nodwyn worktrees in {}.", repository.display()));
    }
    let mut lines = Vec::new();
    for entry in &report {
        if entry.removed {
            let verb = if args.dry_run {
                "would remove"
            } else {
                "removed"
            };
            lines.push(format!("{verb} {}", entry.path.display()));
        } else {
            lines.push(format!(
                "kept {}: {}",
                entry.path.display(),
                entry.kept.join("; ")
            ));
        }
    }
    output::text(lines.join("\n"))
}
