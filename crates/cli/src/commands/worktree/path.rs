//! `nodwyn worktree path`.

use anyhow::bail;
use clap::Args;
use nodwyn_core::{Session, WorktreeState};

use crate::commands::Invocation;
use crate::output;

/// Print the folder of a session's worktree (`nodwyn worktree switch ID` goes there).
#[derive(Debug, Args)]
pub(crate) struct PathArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
}

pub(super) fn run(args: PathArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let stored = invocation.store()?.find(&id)?;
    let session = Session::load(&stored)?;
    let Some(facts) = &session.worktree else {
        bail!("session {} has no worktree", session.id);
    };
    if invocation.json {
        return output::json(&serde_json::json!({
            "session": session.id,
            "path": facts.path,
            "state": session.worktree_state,
        }));
    }
    match session.worktree_state {
        WorktreeState::Active => {}
        WorktreeState::Removed => output::note(format!(
            "note: nodwyn removed this worktree; `nodwyn worktree resume {}` makes it again",
            session.id.short()
        )),
        WorktreeState::Kept => output::note("note: this worktree was handed over with `keep`"),
    }
    output::text(facts.path.display().to_string())
}
