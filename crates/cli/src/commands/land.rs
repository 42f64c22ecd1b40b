//! `nodwyn land`.

use clap::Args;
use nodwyn_core::prim::land::{Landed, LocalBase, Strategy};

use crate::commands::Invocation;
use crate::environment;
use crate::output::{self, short_commit};

/// Land a worktree session's work on its base branch: commit every change with the message
/// (credential files left out), rebase the session's commits onto the newest base (its upstream,
/// fetched first), scan what would leave for credentials, push by fast-forward only, and move the
/// local base branch where that is safe. A conflict stops with the files named and the rebase in
/// progress: resolve them, then run `land` again to continue.
#[derive(Debug, Args)]
pub struct LandArgs {
    /// The session: its full id or its 8 hex digits.
    id: String,
    /// The commit message (for the uncommitted changes, and for a squash or merge commit).
    #[arg(short, long)]
    message: String,
    /// ff-only: the commits as they are; squash: one commit; no-ff: under a merge commit.
    #[arg(long, default_value = "ff-only", value_parser = parse_strategy)]
    strategy: Strategy,
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse()
        .map_err(|e: nodwyn_core::prim::Error| e.to_string())
}

pub fn run(args: LandArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let landed = nodwyn_core::land(
        &store,
        &args.id,
        &args.message,
        args.strategy,
        &environment::host_settings(),
    )?;
    if invocation.json {
        return output::json(&landed);
    }
    output::text(describe(&landed))
}

fn describe(landed: &Landed) -> String {
    let mut lines = vec![format!(
        "landed {} commit(s) of {} on {} ({}): {} is now {}",
        landed.commits,
        landed.branch,
        landed.base,
        landed.strategy,
        landed.base,
        short_commit(&landed.landed)
    )];
    if let Some(commit) = &landed.committed {
        lines.push(format!("committed the changes as {}", short_commit(commit)));
    }
    if !landed.left_out.is_empty() {
        lines.push(format!(
            "left out of the commit (credential files): {}",
            landed.left_out.join(", ")
        ));
    }
    if let Some(push) = &landed.pushed {
        lines.push(format!(
            "pushed to {} {} ({} -> {})",
            push.remote,
            push.reference,
            push.old.as_deref().map_or("none", short_commit),
            short_commit(&push.new)
        ));
    }
    lines.push(match &landed.local_base {
        LocalBase::Moved => format!("local {} moved (no checkout has it)", landed.base),
        LocalBase::Merged { checkout } => format!(
            "local {} fast-forwarded in {}",
            landed.base,
            checkout.display()
        ),
        LocalBase::Unchanged => format!("local {} already there", landed.base),
        LocalBase::Left { why } => format!("local {} left alone: {why}", landed.base),
    });
    lines.join("\n")
}
