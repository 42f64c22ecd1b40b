//! `nodwyn session dont-ask`.

use anyhow::bail;
use clap::Args;

use crate::commands::Invocation;
use crate::environment;
use crate::output;

/// Turn "Don't ask" on (or, with --off, off) for a session
///
/// The guard then answers the session's ordinary questions (writes, commands, a landing) itself. Security confirms (a push to a URL allow.toml
/// does not list, a write under .git/ or .nodwyn/, a write outside the session's folder) still
/// need a person each time. Only a person on a terminal turns it on: no primitive, script or
/// command an agent runs can.
#[derive(Debug, Args)]
pub(crate) struct DontAskArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
    /// Turn it off again.
    #[arg(long)]
    off: bool,
}

pub(super) fn run(args: DontAskArgs, invocation: &Invocation) -> anyhow::Result<()> {
    // An agent's commands run with stdin closed: they cannot turn the switch on for themselves.
    if !args.off && !output::person_at_terminal() {
        bail!(
            "`session dont-ask` needs a terminal (its standard input and error are not one here): turning Don't ask on is a person's decision, so it is only taken on a terminal; run `nodwyn session dont-ask {}` yourself in one",
            args.id
        );
    }
    let store = invocation.store()?;
    let person = environment::host_settings().person;
    let id = nodwyn_core::set_dont_ask(&store, &args.id, !args.off, &person)?;
    if invocation.json {
        return output::json(
            &serde_json::json!({ "session": id, "dont_ask": !args.off, "by": person }),
        );
    }
    output::text(if args.off {
        format!("Don't ask is off for session {id}")
    } else {
        format!("Don't ask is on for session {id} (turned on by {person})")
    })
}
