//! `nodwyn versions list` and `nodwyn versions restore`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use nodwyn_core::clock::Timestamp;

use crate::commands::Invocation;
use crate::output;

#[derive(Debug, Subcommand)]
pub enum VersionsCommand {
    List(ListArgs),
    Restore(RestoreArgs),
}

/// List the versions nodwyn kept of a session's files before `fs-write` or `fs-edit` replaced
/// them (they live in the repository's `.nodwyn/versions/`, and outlive the worktree).
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The session: its full id or its 8 hex digits.
    id: String,
}

/// Write a kept version back to its file (or to --to PATH). What the file holds now is kept
/// first, as a new version, so a restore can be undone too.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The session: its full id or its 8 hex digits.
    id: String,
    /// The version's number, as `versions list` shows it.
    #[arg(value_name = "VERSION")]
    number: u64,
    /// Write it here instead of to the file it was kept from.
    #[arg(long, value_name = "PATH")]
    to: Option<PathBuf>,
}

pub fn run(command: VersionsCommand, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    match command {
        VersionsCommand::List(args) => {
            let (session, versions) = nodwyn_core::versions::list(&store, &args.id)?;
            if invocation.json {
                return output::json(&serde_json::json!({
                    "session": session.id,
                    "versions": versions,
                }));
            }
            if versions.is_empty() {
                return output::text(format!("session {} has no kept version", session.id));
            }
            let rows: Vec<Vec<String>> = versions
                .iter()
                .map(|v| {
                    vec![
                        v.version.to_string(),
                        Timestamp::from_unix_millis(v.kept_at_ms as i64).rfc3339(),
                        v.size.to_string(),
                        v.before.clone(),
                        v.path.display().to_string(),
                    ]
                })
                .collect();
            output::text(output::table(
                &["VERSION", "KEPT", "BYTES", "BEFORE", "PATH"],
                &rows,
            ))
        }
        VersionsCommand::Restore(args) => {
            let restored =
                nodwyn_core::versions::restore(&store, &args.id, args.number, args.to.as_deref())?;
            if invocation.json {
                return output::json(&restored);
            }
            let kept = match restored.kept {
                Some(kept) => format!("; what it held before is version {kept}"),
                None => String::new(),
            };
            output::text(format!(
                "restored version {} to {}{kept}",
                restored.version,
                restored.path.display()
            ))
        }
    }
}
