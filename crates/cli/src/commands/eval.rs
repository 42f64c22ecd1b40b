//! `nodwyn eval`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use nodwyn_core::scheme::Source;
use nodwyn_core::scripts::eval;

use crate::commands::Invocation;
use crate::commands::scheme_options::SchemeArgs;
use crate::output;
use crate::person::Terminal;

/// Run Scheme in a session's context, after nodwyn's prompts, your overrides and the
/// repository's approved strategy, and print its value. Primitives are procedures of their own
/// name, judged by the guard as an agent's calls are: a question is asked on this terminal, and
/// with no terminal it is refused with a sentence saying how to approve it.
#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    #[command(flatten)]
    scheme: SchemeArgs,
    /// The expression, such as '(fs-read "README.md")'.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    expression: Option<String>,
    /// Run this file instead; `-` reads the script from standard input (no question can then be
    /// asked on the terminal).
    #[arg(long, value_name = "FILE.scm")]
    file: Option<PathBuf>,
}

pub(super) fn run(args: EvalArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let source = match (&args.expression, &args.file) {
        (Some(expression), None) => Source::expression(expression.clone()),
        (None, Some(file)) if file.as_os_str() == "-" => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("could not read the script from standard input")?;
            Source::file(std::path::Path::new("<stdin>"), text)
        }
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("could not read {}", file.display()))?;
            Source::file(file, text)
        }
        _ => anyhow::bail!("give an expression or --file FILE.scm"),
    };
    let ran = args.scheme.run(invocation, |scripting, target| {
        Ok(eval(scripting, target, &mut Terminal, source)?)
    })?;
    output::notes(&ran.notes);
    if invocation.json {
        output::json(&serde_json::json!({
            "value": ran.value.json,
            "text": ran.value.text,
            "loaded": ran.loaded,
            "notes": ran.notes,
        }))
    } else if ran.value.text.is_empty() {
        Ok(())
    } else {
        output::text(&ran.value.text)
    }
}
