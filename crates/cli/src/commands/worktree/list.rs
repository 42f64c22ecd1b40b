//! `nodwyn worktree list`.

use std::path::Path;

use clap::Args;
use nodwyn_core::session::Unreadable;
use nodwyn_core::store::Store;
use nodwyn_core::worktree::{Listed, list};

use crate::commands::{Invocation, RepoArg};
use crate::output::{self, table};

/// List nodwyn's worktrees of the repository.
///
/// For each: its session, name, branch, base, commits ahead of the base and behind its upstream,
/// how long since the session last did anything, and whether it is open,
/// landing (a landing stopped at a conflict or by an interrupt, or a rebase in progress), dirty
/// (as `git status` says), or missing from disk; `remote` for a session that ran elsewhere and
/// came home with `nodwyn session import`, until it is resumed here.
///
/// When a `nodwyn serve` of this version and data directory is running, the list comes from it:
/// it watches the worktrees it has checked (inotify), so one nothing touched since is not checked
/// again.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    repo: RepoArg,
}

pub(super) fn run(args: ListArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let repository = args.repo.repository()?;
    let store = invocation.store()?;
    let (worktrees, unreadable) = match listed_by_daemon(&store, &repository) {
        Some(listed) => listed,
        None => list(&store, &repository)?,
    };
    output::note_unreadable(&unreadable);
    if invocation.json {
        return output::json(&worktrees);
    }
    if worktrees.is_empty() {
        return output::text(format!("No nodwyn worktrees in {}.", repository.display()));
    }
    let rows: Vec<Vec<String>> = worktrees
        .iter()
        .map(|w| {
            let mut state = vec![match (&w.remote, w.open) {
                (Some(_), _) => "remote",
                (None, true) => "open",
                (None, false) => "closed",
            }];
            if w.landing {
                state.push("landing");
            }
            if w.moved_to.is_some() {
                state.push("moved");
            } else if w.missing {
                state.push("missing");
            } else if w.dirty {
                state.push("dirty");
            }
            if w.error.is_some() {
                state.push("unreadable");
            }
            vec![
                w.id.clone(),
                w.name.clone().unwrap_or_else(|| "-".to_owned()),
                w.branch.clone(),
                if w.base.is_empty() {
                    "-".to_owned()
                } else {
                    w.base.clone()
                },
                w.ahead.map_or("-".to_owned(), |n| n.to_string()),
                w.behind.map_or("-".to_owned(), |n| n.to_string()),
                w.idle_seconds.map_or("-".to_owned(), output::age),
                state.join(","),
                w.moved_to.as_ref().unwrap_or(&w.path).display().to_string(),
            ]
        })
        .collect();
    output::text(table(
        &[
            "ID", "NAME", "BRANCH", "BASE", "AHEAD", "BEHIND", "AGE", "STATE", "PATH",
        ],
        &rows,
    ))?;
    for w in worktrees.iter().filter(|w| w.moved_to.is_some()) {
        output::note(format!(
            "note: {} was moved with `git worktree move`; `nodwyn worktree resume {}` has the session follow it",
            w.id, w.id
        ));
    }
    for w in worktrees.iter().filter(|w| w.error.is_some()) {
        output::note(format!(
            "could not read {}: {}",
            w.path.display(),
            w.error.as_deref().unwrap_or_default()
        ));
    }
    Ok(())
}

/// The worktrees as a running daemon of the same data lists them (its watcher remembers what did
/// not change), or `None` to list them here: no such daemon, or it could not answer.
fn listed_by_daemon(store: &Store, repository: &Path) -> Option<(Vec<Listed>, Vec<Unreadable>)> {
    #[derive(serde::Deserialize)]
    struct Answer {
        worktrees: Vec<Listed>,
        unreadable: Vec<Unreadable>,
    }
    let mut client = crate::remote::same_daemon(store.home())?;
    let answer = client
        .request("worktree.list", serde_json::json!({"repo": repository}))
        .ok()?;
    let answer: Answer = serde_json::from_value(answer).ok()?;
    tracing::debug!("the worktrees were listed by the daemon");
    Some((answer.worktrees, answer.unreadable))
}
