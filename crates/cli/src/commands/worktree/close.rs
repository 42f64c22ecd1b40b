//! `nodwyn worktree close`.

use clap::Args;
use nodwyn_core::worktree::{Closed, Which, close, close_open};

use crate::commands::Invocation;
use crate::commands::worktree::describe_branch;
use crate::output;

/// Close sessions, removing each worktree and branch only if nothing would be lost.
///
/// Nothing would be lost when the worktree has no change of any kind (untracked and ignored files
/// count) and no commit its base lacks (judged by content too, so squash merges count). Otherwise
/// both stay, and the reasons are printed. A session without a worktree is simply closed.
#[derive(Debug, Args)]
pub(crate) struct CloseArgs {
    /// The sessions: each its full id, its 8 hex digits (or a unique start of them), or its name
    /// (or a unique start of it); by default, the session whose worktree holds the current
    /// folder.
    ids: Vec<String>,
    /// Close every open session of the current folder's repository whose worktree would go
    /// with nothing lost (its work landed, or none made), and those without a worktree; the
    /// others stay open.
    #[arg(long, conflicts_with_all = ["ids", "all"])]
    landed: bool,
    /// Close every open session of the current folder's repository; a worktree in which
    /// anything would be lost stays, as with one id.
    #[arg(long, conflicts_with = "ids")]
    all: bool,
}

pub(super) fn run(args: CloseArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let closed: Vec<Closed> = if args.landed || args.all {
        let here = std::env::current_dir()?;
        let repository = nodwyn_core::repository_of(&here)?;
        let which = if args.landed {
            Which::Landed
        } else {
            Which::All
        };
        close_open(&store, &repository, which)?
    } else if args.ids.is_empty() {
        let id = crate::commands::session_or_here(None, &store)?;
        vec![close(&store, &id)?]
    } else {
        // Every id is found before any session is closed: a mistyped one closes none.
        let ids = args
            .ids
            .iter()
            .map(|id| Ok(store.find(id)?.id.to_string()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        ids.iter()
            .map(|id| Ok(close(&store, id)?))
            .collect::<anyhow::Result<_>>()?
    };
    if invocation.json {
        return match <[Closed; 1]>::try_from(closed) {
            Ok([one]) if !args.landed && !args.all => output::json(&one),
            Ok(one) => output::json(&one),
            Err(many) => output::json(&many),
        };
    }
    if closed.is_empty() {
        return output::text("No open session to close.");
    }
    let text: Vec<String> = closed.iter().map(describe).collect();
    output::text(text.join("\n"))
}

fn describe(closed: &Closed) -> String {
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
    text
}
