//! `nodwyn worktree port`.

use clap::Args;
use nodwyn_core::Session;

use crate::commands::Invocation;
use crate::output;

/// Print the port of a session's worktree: the one its commands and hooks find in
/// `NODWYN_PORT`, for a dev server started there (`npm run dev -- --port $(nodwyn worktree port)`).
/// It comes from the branch's name, within `[worktrees] ports` of your configuration (default
/// 10000-19999), and no other session of the repository with a worktree holds it.
#[derive(Debug, Args)]
pub(crate) struct PortArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
}

pub(super) fn run(args: PortArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let id = crate::commands::session_or_here(args.id, &store)?;
    let session = Session::load(&store.find(&id)?)?;
    let Some(facts) = &session.worktree else {
        return Err(crate::error::coded(
            "no_worktree",
            format!(
                "session {} works in its folder, not in a worktree of its own, so it has no port",
                session.id.short()
            ),
        ));
    };
    let Some(port) = facts.port else {
        return Err(crate::error::coded(
            "no_port",
            format!(
                "session {} has no port: it was made before nodwyn gave worktrees ports, or when every port of the range was taken",
                session.id.short()
            ),
        ));
    };
    if invocation.json {
        return output::json(&serde_json::json!({
            "session": session.id,
            "port": port,
        }));
    }
    output::text(port.to_string())
}
