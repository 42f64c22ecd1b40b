//! `nodwyn call`.

use clap::Args;
use nodwyn_core::call::call;
use nodwyn_core::prim::{Param, Registry};
use nodwyn_core::services::Services;

use crate::commands::{Invocation, text_or_standard_input};
use crate::environment;
use crate::output;
use crate::person::Terminal;

/// Run one primitive in a session, as an agent would: the guard judges it first (standing
/// answers, Don't ask, then the person on this terminal; with no terminal a question is refused
/// with a sentence saying how to approve it), and the call, the decision and the result go to the
/// session's log. Prints the primitive's result as JSON.
#[derive(Debug, Args)]
pub(super) struct CallArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    #[arg(long)]
    session: Option<String>,
    /// List the primitives and their parameters instead.
    #[arg(long, conflicts_with_all = ["session", "primitive", "args"])]
    list: bool,
    /// The primitive (`fs-read`, `shell-exec`, `git-land`, ...).
    #[arg(required_unless_present = "list")]
    primitive: Option<String>,
    /// Its arguments: a JSON object by name, or a JSON array in parameter order; `-` reads them
    /// from standard input (for contents too long for a command line; no question can then be
    /// asked on the terminal).
    #[arg(default_value = "{}")]
    args: String,
}

pub(super) fn run(args: CallArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let registry = Registry::builtin();
    if args.list {
        return list(&registry, invocation);
    }
    let Some(primitive) = args.primitive else {
        return Err(crate::error::bad_input(
            "usage",
            "give a primitive (and --session ID outside a session's worktree), or --list",
        ));
    };
    let session = crate::commands::session_or_here(args.session, &invocation.store()?)?;
    let text = text_or_standard_input(args.args, "the arguments")?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        crate::error::bad_input(
            "bad_arguments",
            format!("the arguments are not JSON ({e}): {}", preview(&text)),
        )
    })?;
    let store = invocation.store()?;
    let mut person = Terminal;
    let settings = if primitive == "git-land" {
        environment::host_settings_interruptible()?
    } else {
        environment::host_settings_confined()
    };
    let called = call(
        &store,
        &session,
        &registry,
        &primitive,
        &json,
        &mut person,
        &settings,
        // The repository's approved strategy judges it after the rules, as in a turn.
        &Services::default(),
    )?;
    output::notes(called.note.as_slice());
    if invocation.json {
        output::json(&called)
    } else {
        output::json(&called.result)
    }
}

/// The start of a long text, for a one-line message.
fn preview(text: &str) -> String {
    let first: String = text.chars().take(80).collect();
    let first = first.lines().next().unwrap_or_default().to_owned();
    if first.len() < text.len() {
        format!("{first}...")
    } else {
        first
    }
}

fn list(registry: &Registry, invocation: &Invocation) -> anyhow::Result<()> {
    let primitives: Vec<serde_json::Value> = registry
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.name(),
                "description": p.description(),
                "worktree_only": p.worktree_only(),
                "params": p.params(),
            })
        })
        .collect();
    if invocation.json {
        return output::json(&primitives);
    }
    let mut lines = Vec::new();
    for p in registry.iter() {
        let params: Vec<String> = p.params().iter().map(Param::shown).collect();
        lines.push(
            format!("{} {}", p.name(), params.join(" "))
                .trim_end()
                .to_owned(),
        );
        lines.push(format!("    {}", p.description()));
    }
    output::text(lines.join("\n"))
}
