//! `nodwyn session hand`.

use anyhow::bail;
use clap::Args;

use crate::commands::Invocation;
use crate::environment;
use crate::output;

/// Hand a session to MCP clients, so an agent connected through `nodwyn mcp` may resume it
///
/// An MCP client resumes only sessions opened through MCP, or handed over with this command:
/// never, by itself, a session of yours (its uncommitted files, its switches). Don't ask does not
/// carry over: it is off when a client resumes the session, until you turn it on again. Only a
/// person on a terminal hands a session over.
#[derive(Debug, Args)]
pub(crate) struct HandArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
}

pub(super) fn run(args: HandArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if !output::person_at_terminal() {
        bail!(
            "`session hand` needs a terminal (its standard input and error are not one here): handing a session to another client is a person's decision, so it is only taken on a terminal; run `nodwyn session hand {}` yourself in one",
            args.id
        );
    }
    let store = invocation.store()?;
    let person = environment::host_settings().person;
    let id = nodwyn_core::hand_to(&store, &args.id, "mcp", &person)?;
    if invocation.json {
        return output::json(
            &serde_json::json!({ "session": id, "handed_to": "mcp", "by": person }),
        );
    }
    output::text(format!(
        "session {id} is handed to MCP clients: `worktree_resume` may open it (Don't ask stays off for them until you turn it on)"
    ))
}
