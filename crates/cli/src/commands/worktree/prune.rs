//! `nodwyn worktree prune`.

use clap::Args;
use nodwyn_core::worktree::prune;
use nodwyn_core::worktree::snapshot::drop_older_than;

use crate::commands::{Invocation, RepoArg};
use crate::{environment, output};

/// Remove the worktrees of closed sessions that `close` would remove, and drop the snapshots of
/// forced removals older than `[worktrees] snapshot_days` (default 30).
///
/// Says why each of the others stays. Never touches a worktree nodwyn did not make.
#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Say what would be removed, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Also remove worktrees kept only for commits their base lacks, when `gh` reports their
    /// pull request merged or closed with its head at exactly those commits (the branch stays).
    #[arg(long)]
    merged: bool,
}

pub(super) fn run(args: PruneArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let repository = args.repo.repository()?;
    let (report, unreadable) = prune(&invocation.store()?, &repository, args.dry_run, args.merged)?;
    output::note_unreadable(&unreadable);
    let settings = nodwyn_config::Settings::resolve(
        environment::user_config_file().as_deref(),
        Some(&repository),
    )?;
    let dropped = drop_older_than(&repository, settings.snapshot_age(), args.dry_run)?;
    let verb = if args.dry_run {
        "would drop"
    } else {
        "dropped"
    };
    let dropped: Vec<String> = dropped
        .iter()
        .map(|d| {
            format!(
                "{verb} the snapshot {} of a forced removal, {} day(s) old (`[worktrees] snapshot_days`)",
                d.reference, d.days
            )
        })
        .collect();
    if invocation.json {
        // The document stays the worktrees' list; what happened to snapshots goes to stderr.
        for line in &dropped {
            output::note(line);
        }
        return output::json(&report);
    }
    if report.is_empty() && !dropped.is_empty() {
        return output::text(dropped.join("\n"));
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
            match entry.pull_request {
                Some(pr) => lines.push(format!(
                    "{verb} {}: its pull request #{} was {} (its branch stays)",
                    entry.path.display(),
                    pr.number,
                    pr.state
                )),
                None => lines.push(format!("{verb} {}", entry.path.display())),
            }
        } else {
            lines.push(format!(
                "kept {}: {}",
                entry.path.display(),
                entry.kept.join("; ")
            ));
        }
    }
    lines.extend(dropped);
    output::text(lines.join("\n"))
}
