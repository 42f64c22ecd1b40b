//! `nodwyn session accept-config`, and the question `nodwyn land --accept-config-change` asks.

use anyhow::bail;
use clap::Args;

use crate::commands::Invocation;
use crate::environment;
use crate::output;

/// Accept a change of the repository's git configuration for a session
///
/// nodwyn records, when a session's worktree is made, what in the repository's git configuration
/// can run a program or choose where a push goes (hooks, core.fsmonitor, core.sshCommand,
/// credential helpers, filters, remote and push URLs, includes, aliases). The landing, the
/// review and git-status refuse while it differs; after you have checked the change, accept it
/// here, on a terminal (an agent's commands have none).
#[derive(Debug, Args)]
pub(crate) struct AcceptConfigArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
}

pub(crate) fn run(args: AcceptConfigArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let person = environment::host_settings().person;
    accept(&store, &args.id, &person)
}

/// Shows what changed in the repository's configuration since session `id` recorded it and
/// records it as accepted when the person at the terminal says so; an error when they do not,
/// or when nobody is at a terminal.
pub(crate) fn accept(store: &nodwyn_core::Store, id: &str, person: &str) -> anyhow::Result<()> {
    let changes = nodwyn_core::worktree::config::changes(store, id)?;
    if changes.is_empty() {
        output::note(
            "the repository's git configuration has not changed since the session recorded it",
        );
        return Ok(());
    }
    let shown: Vec<String> = changes
        .iter()
        .map(|change| format!("  {}", output::printable(change)))
        .collect();
    let question = format!(
        "the repository's git configuration changed since session {id} recorded it:\n{}\n\
         these run programs or choose where a push goes; check them (`git config --list --show-scope`, the hooks folder) first.\n\
         accept them? [y/N] ",
        shown.join("\n")
    );
    match crate::person::confirm(&question) {
        Some(true) => Ok(nodwyn_core::worktree::config::accept(store, id, person)?),
        Some(false) => bail!("not accepted: the landing, the review and git-status still refuse"),
        None => bail!(
            "accepting a change of the repository's git configuration needs you at a terminal (an agent's commands have none); run `nodwyn session accept-config {id}` in one"
        ),
    }
}
