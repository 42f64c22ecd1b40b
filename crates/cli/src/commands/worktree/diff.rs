//! `nodwyn worktree diff`.

use clap::Args;
use nodwyn_protocol::ChangeScope;

use crate::commands::Invocation;
use crate::environment;
use crate::output;

/// Show a session's changes since its base commit
///
/// Committed, staged, unstaged and untracked changes alike, read with no external diff or filter
/// program. Credential files are left out and named; each
/// file's diff is capped; after 30 s the files not reached are named instead.
#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
    /// Only what is not committed yet (since the worktree's HEAD)
    #[arg(long, conflicts_with = "last_turn")]
    uncommitted: bool,
    /// Only what the last turn changed (or the running one, so far)
    #[arg(long)]
    last_turn: bool,
}

pub(crate) fn run(args: DiffArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let store = invocation.store()?;
    let limits = environment::host_settings().limits;
    let scope = if args.uncommitted {
        ChangeScope::Uncommitted
    } else if args.last_turn {
        ChangeScope::LastTurn
    } else {
        ChangeScope::SinceBase
    };
    let review = nodwyn_core::worktree::changes_shown(&store, &id, scope, &limits)?;
    if invocation.json {
        return output::json(&review);
    }
    output::text(shown(&review))
}

/// A session's changes as a person reads them (`worktree diff`, chat's `/diff`); the caller
/// escapes them on the way to the terminal.
pub(crate) fn shown(review: &nodwyn_core::prim::review::Review) -> String {
    let mut lines = Vec::new();
    for file in &review.files {
        let counts = match (file.added, file.removed) {
            (Some(a), Some(r)) => format!("+{a} -{r}"),
            _ => "binary".to_owned(),
        };
        lines.push(format!("{} {} ({counts})", file.status, file.path));
        for hunk in file.hunks.iter().flatten() {
            lines.push(hunk.header.clone());
            lines.extend(hunk.lines.iter().cloned());
        }
        if let Some(note) = &file.note {
            lines.push(format!("  note: {note}"));
        }
    }
    if review.files.is_empty() {
        lines.push(format!(
            "no changes since {}",
            output::short_commit(&review.base_commit)
        ));
    }
    for omitted in &review.omitted {
        lines.push(format!("left out: {} ({})", omitted.path, omitted.why));
    }
    lines.join("\n")
}
