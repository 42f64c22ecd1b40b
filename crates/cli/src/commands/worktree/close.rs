//! `nodwyn worktree close`.

use clap::Args;
use nodwyn_core::worktree::close;

use crate::commands::Invocation;
use crate::commands::worktree::describe_branch;
use crate::output;

/// Close a session, removing its worktree and branch only if nothing would be lost.
///
/// Nothing would be lost when the worktree has no change of any kind (untracked and ignored files
/// count) and no commit its base lacks (judged by content too, so squash merges count). Otherwise
/// both stay, and the reasons are printed.
#[derive(Debug, Args)]
pub struct CloseArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
}

pub fn run(args: CloseArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let closed = close(&invocation.store()?, &id)?;
    if invocation.json {
        return output::json(&closed);
    }
    let mut text = format!("Closed session {}.", closed.session);
    if closed.removed {
        text.push_str(" Its worktree was removed; nothing was lost.");
        if let Some(branch) = &closed.branch {
            text.push_str(&format!("\n  {}", describe_branch(branch)));
        }
    } else if !closed.kept.is_empty() {
        text.push_str(" Its worktree stays, because:");
        for reason in &closed.kept {
            text.push_str(&format!("\n  - {reason}"));
        }
    }
    output::text(text)
}
