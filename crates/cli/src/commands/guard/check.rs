//! `nodwyn guard check`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use nodwyn_core::guard::{Denylist, Judged};

use crate::commands::Invocation;
use crate::output::{self, table};

/// Say, for each path, whether the credential-file denylist keeps it from an agent (`deny`) or
/// not (`allow`), and by which rule. Paths are judged after normalisation, and a symbolic link
/// by what it points to.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The paths, relative to the current folder or absolute.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Returns whether every path was allowed.
pub(super) fn run(args: CheckArgs, invocation: &Invocation) -> anyhow::Result<bool> {
    let base = std::env::current_dir().context("could not read the current folder")?;
    let judged: Vec<Judged> = args
        .paths
        .iter()
        .map(|path| Denylist::standard().judge(path, &base))
        .collect();
    let allowed = judged.iter().all(|j| !j.is_denied());
    if invocation.json {
        output::json(&judged)?;
        return Ok(allowed);
    }
    let rows: Vec<Vec<String>> = judged
        .iter()
        .map(|j| {
            let mut rule = j.rule.clone().unwrap_or_else(|| "-".to_owned());
            if let Some(target) = &j.target {
                rule.push_str(&format!(" (links to {})", target.display()));
            }
            vec![
                if j.is_denied() { "deny" } else { "allow" }.to_owned(),
                j.path.display().to_string(),
                rule,
            ]
        })
        .collect();
    output::text(table(&["VERDICT", "PATH", "RULE"], &rows))?;
    Ok(allowed)
}
