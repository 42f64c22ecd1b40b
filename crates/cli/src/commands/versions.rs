//! `nodwyn versions list` and `nodwyn versions restore`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use nodwyn_core::clock::Timestamp;

use crate::commands::{Invocation, RepoArg};
use crate::output;

#[derive(Debug, Subcommand)]
pub(super) enum VersionsCommand {
    List(ListArgs),
    Restore(RestoreArgs),
}

/// List the versions kept of a session's files
///
/// nodwyn keeps a file's content before `fs-write` or `fs-edit` replaces it, in the repository's
/// `.nodwyn/versions/`, where it outlives the worktree. Without an id, every session of the
/// repository that has any.
#[derive(Debug, Args)]
pub(super) struct ListArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: Option<String>,
    #[command(flatten)]
    repo: RepoArg,
}

/// Write a kept version back to its file
///
/// Or to --to PATH. What the file holds now is kept first, as a new version, so a restore can be
/// undone too.
#[derive(Debug, Args)]
pub(super) struct RestoreArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
    /// The version's number, as `versions list` shows it.
    #[arg(value_name = "VERSION")]
    number: u64,
    /// Write it here instead of to the file it was kept from.
    #[arg(long, value_name = "PATH")]
    to: Option<PathBuf>,
}

pub(super) fn run(command: VersionsCommand, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    match command {
        VersionsCommand::List(args) => {
            let listed = match &args.id {
                Some(id) => vec![nodwyn_core::versions::list(&store, id)?],
                None => nodwyn_core::versions::list_repository(&store, &args.repo.repository()?)?,
            };
            if invocation.json {
                return match (&args.id, listed.as_slice()) {
                    (Some(_), [one]) => output::json(one),
                    _ => output::json(&listed),
                };
            }
            let rows: Vec<Vec<String>> = listed
                .iter()
                .flat_map(|s| s.versions.iter().map(move |v| (s, v)))
                .map(|(s, v)| {
                    vec![
                        s.session.rsplit('-').next().unwrap_or_default().to_owned(),
                        v.version.to_string(),
                        Timestamp::from_unix_millis(v.kept_at_ms as i64).rfc3339(),
                        v.size.to_string(),
                        v.before.clone(),
                        v.path.display().to_string(),
                    ]
                })
                .collect();
            if rows.is_empty() {
                return output::text("no kept version");
            }
            output::text(output::table(
                &["SESSION", "VERSION", "KEPT", "BYTES", "BEFORE", "PATH"],
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
