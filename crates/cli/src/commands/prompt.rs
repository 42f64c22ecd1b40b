//! `nodwyn prompt`.

use clap::Args;
use nodwyn_core::scripts::compose;

use crate::commands::Invocation;
use crate::commands::scheme_options::SchemeArgs;
use crate::output;
use crate::person::Terminal;

/// Print the system prompt an agent gets, composed by nodwyn's prompts.scm with your
/// ~/.config/nodwyn/prompts.scm and the repository's .nodwyn/prompts.scm applied (and, in a
/// session, its approved .nodwyn/init.scm), so you see what your files do.
#[derive(Debug, Args)]
pub(super) struct PromptArgs {
    #[command(flatten)]
    scheme: SchemeArgs,
    /// A sub-agent's prompt instead (one declared with define-agent in .nodwyn/init.scm).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
}

pub(super) fn run(args: PromptArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let composed = args.scheme.run(invocation, |scripting, target| {
        Ok(compose(
            scripting,
            target,
            &mut Terminal,
            args.agent.as_deref(),
        )?)
    })?;
    output::notes(&composed.notes);
    if invocation.json {
        output::json(&composed)
    } else {
        output::text(&composed.prompt)
    }
}
