//! `nodwyn session import`.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use nodwyn_core::remote::import::{ImportTo, Imported, download_github, import, read};

use crate::commands::{Invocation, RepoArg};
use crate::environment;
use crate::output;

/// Bring home sessions that ran elsewhere (`nodwyn run --headless --export`, or a run of
/// `nodwyn dispatch github`): each export is checked (an altered one is refused), its branch
/// fetched from the remote and checked to be the export's, and a worktree made on it, to be
/// read (`session events`), reviewed (`worktree diff`, `worktree review`) and landed
/// (`nodwyn land`, `nodwyn land --queue`).
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("from").required(true).args(["files", "github"]))]
pub(crate) struct ImportArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// The remote the sessions' branches are fetched from (default: the base branch's upstream's
    /// remote, else `origin`).
    #[arg(long, value_name = "NAME")]
    remote: Option<String>,
    /// The branch the sessions are to land on (default: the branch checked out); an export that
    /// would land elsewhere is refused.
    #[arg(long, value_name = "BRANCH")]
    base: Option<String>,
    /// Import every export a GitHub Actions run uploaded (through `gh run download`).
    #[arg(long, value_name = "RUN_ID", conflicts_with = "files")]
    github: Option<String>,
    /// Export files (`nodwyn run --headless --export PATH`).
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub(super) fn run(args: ImportArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let repository = args.repo.repository()?;
    let settings = crate::commands::run::settings_for(Some(&repository))?;
    let store = invocation.store()?;
    let downloads = tempfile::tempdir()?;
    let files = match &args.github {
        Some(run) => download_github(&repository, run, downloads.path())?,
        None => args.files.clone(),
    };
    let source = |file: &PathBuf| match &args.github {
        Some(run) => format!("GitHub Actions run {run}"),
        None => file.display().to_string(),
    };
    // Every file is read and checked to be an export before any is imported.
    let exports = files
        .iter()
        .map(|file| Ok((file, read(file)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let deadline = environment::host_settings_interruptible()?
        .limits
        .git_network;
    let base = match &args.base {
        Some(base) => base.clone(),
        None => nodwyn_core::remote::dispatch::checked_out_branch(&repository)?,
    };
    // Each export on its own: one refused (or imported before) does not keep the others out.
    let mut imported: Vec<Imported> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    let mut last_error = None;
    for (file, export) in &exports {
        let to = ImportTo {
            repository: &repository,
            remote: args.remote.as_deref(),
            location: settings.worktree_location,
            base: &base,
            source: source(file),
            deadline,
        };
        match import(&store, export, &to) {
            Ok(session) => {
                if !invocation.json {
                    tell(&session);
                }
                imported.push(session);
            }
            Err(error) if error.code() == "already_imported" && exports.len() > 1 => {
                output::note(format!("nodwyn: {error}"));
            }
            Err(error) => {
                let file = output::printable(&file.display().to_string());
                if exports.len() > 1 {
                    output::note(format!("nodwyn: {file}: {error}"));
                }
                refused.push(file);
                last_error = Some(error);
            }
        }
    }
    if let Some(error) = last_error {
        if exports.len() == 1 {
            return Err(error.into());
        }
        bail!(crate::error::coded(
            "not_all_imported",
            format!(
                "{} of {} exports were imported; refused: {} (each said why above)",
                imported.len(),
                exports.len(),
                refused.join(", ")
            ),
        ));
    }
    if invocation.json {
        return output::json(&imported);
    }
    if imported.len() > 1 {
        let ids: Vec<&str> = imported.iter().map(|s| s.id.as_str()).collect();
        output::note(format!(
            "`nodwyn land --queue {}` lands them one after another",
            ids.join(" ")
        ));
    }
    Ok(())
}

/// Says what an import made, and what comes next.
fn tell(session: &Imported) {
    let ran = &session.ran_on;
    let mut where_ = format!("{} on {}", ran.runner, ran.machine);
    if let Some(run) = &ran.run_id {
        where_.push_str(&format!(", run {run}"));
    }
    let where_ = output::printable(&where_);
    output::note(format!(
        "imported session {} ({where_}): {} at {} ({} commit{} on {}), worktree {}; `nodwyn worktree review {}` reviews it, `nodwyn land {}` lands it on {}",
        session.id,
        session.branch,
        &session.head[..session.head.len().min(10)],
        session.commits,
        if session.commits == 1 { "" } else { "s" },
        session.base,
        output::printable(&session.path.display().to_string()),
        session.id,
        session.id,
        session.base,
    ));
}
