//! `nodwyn worktree keep`.

use clap::Args;
use nodwyn_core::worktree::keep;

use crate::commands::Invocation;
use crate::output;

/// Hand a session's worktree and branch over to you; nodwyn forgets them.
#[derive(Debug, Args)]
pub(crate) struct KeepArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
}

pub(super) fn run(args: KeepArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let kept = keep(&invocation.store()?, &id)?;
    if invocation.json {
        return output::json(&kept);
    }
    output::text(format!(
        "{} and branch {} are yours now; nodwyn no longer manages them.",
        kept.path.display(),
        kept.branch
    ))
}
