//! `nodwyn session list`.

use clap::Args;
use nodwyn_core::{WorktreeState, sessions_of};
use serde::Serialize;

use crate::commands::{Invocation, RepoArg};
use crate::output::{self, table};

/// List the sessions of the repository, oldest first. The same list comes from the repository,
/// from any of its worktrees, or from a folder below them.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    repo: RepoArg,
}

#[derive(Debug, Serialize)]
struct Row {
    session: String,
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    started: String,
    root: std::path::PathBuf,
    repository: std::path::PathBuf,
    open: bool,
    /// Where it ran, for a session imported from another machine and not resumed here since.
    #[serde(skip_serializing_if = "Option::is_none")]
    remote: Option<nodwyn_core::event::RanOn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    worktree: Option<WorktreeRow>,
    /// What an agent's model used in the session, every turn together.
    usage: nodwyn_protocol::TurnUsage,
}

#[derive(Debug, Serialize)]
struct WorktreeRow {
    path: std::path::PathBuf,
    branch: String,
    base: String,
    base_commit: String,
    state: WorktreeState,
}

pub(super) fn run(args: ListArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let repository = args.repo.repository()?;
    let (sessions, unreadable) = sessions_of(&invocation.store()?, &repository)?;
    output::note_unreadable(&unreadable);
    let rows: Vec<Row> = sessions
        .into_iter()
        .map(|session| Row {
            session: session.id.to_string(),
            id: session.id.short().to_owned(),
            name: session.worktree.as_ref().and_then(|w| w.name.clone()),
            started: session.started.clone(),
            root: session.root.clone(),
            repository: session.repository.clone(),
            open: session.open,
            remote: session.ran_on.clone().filter(|_| !session.resumed_here),
            worktree: session.worktree.as_ref().map(|facts| WorktreeRow {
                path: facts.path.clone(),
                branch: facts.branch.clone(),
                base: facts.base.clone(),
                base_commit: facts.base_commit.clone(),
                state: session.worktree_state,
            }),
            usage: session.usage,
        })
        .collect();
    if invocation.json {
        return output::json(&rows);
    }
    if rows.is_empty() {
        return output::text(format!("No sessions in {}.", repository.display()));
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let worktree = match &row.worktree {
                None => "-".to_owned(),
                Some(w) => match w.state {
                    WorktreeState::Active => w.branch.clone(),
                    WorktreeState::Removed => format!("{} (removed)", w.branch),
                    WorktreeState::Kept => format!("{} (handed over)", w.branch),
                },
            };
            vec![
                row.session.clone(),
                row.name.clone().unwrap_or_else(|| "-".to_owned()),
                match (&row.remote, row.open) {
                    (Some(_), _) => "remote",
                    (None, true) => "open",
                    (None, false) => "closed",
                }
                .to_owned(),
                worktree,
                match row.usage.input_tokens + row.usage.output_tokens {
                    0 => "-".to_owned(),
                    tokens => tokens.to_string(),
                },
                row.root.display().to_string(),
            ]
        })
        .collect();
    output::text(table(
        &["SESSION", "NAME", "STATE", "WORKTREE", "TOKENS", "ROOT"],
        &cells,
    ))
}
