//! `nodwyn land`.

use clap::Args;
use nodwyn_core::prim::Notices;
use nodwyn_core::prim::land::{Aborted, Landed, Strategy};
use nodwyn_core::store::Store;
use nodwyn_core::worktree::hooks::HookEvent;

use crate::commands::Invocation;
use crate::environment;
use crate::output::{self, short_commit};

/// Land a worktree session's work on its base branch: commit every change with the message
/// (credential files left out), rebase the session's commits onto the newest base (its upstream,
/// fetched first), scan what would leave for credentials, push by fast-forward only, and move the
/// local base branch where that is safe. The branch and files move only once all of that went
/// through; before the branch is rewritten, its tip is kept under `refs/nodwyn/backup/`.
///
/// A conflict stops with the files named and the rebase in progress: resolve them, then run
/// `land` again to continue. Ctrl-C stops at the next safe point and says what state it left;
/// `land` again goes on from there, and `land --abort` puts the branch and files back as they
/// were before the landing began.
#[derive(Debug, Args)]
pub(super) struct LandArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
    /// Land these sessions one after another, in this order, each onto what the one before it
    /// landed, stopping at the first that needs you (a conflict, a refusal) and saying which
    /// landed. Every session is found before any lands.
    #[arg(long, value_name = "ID", num_args = 1.., conflicts_with_all = ["id", "abort", "onto", "accept_config_change"])]
    queue: Vec<String>,
    /// The commit message (for the uncommitted changes, and for a squash or merge commit);
    /// needed only when there is something to commit.
    #[arg(short, long, conflicts_with = "abort")]
    message: Option<String>,
    /// ff-only: the commits as they are; squash: one commit; no-ff: under a merge commit.
    #[arg(long, default_value = "ff-only", value_parser = parse_strategy, conflicts_with = "abort")]
    strategy: Strategy,
    /// Land on this branch instead of the session's base (a local branch, or a remote-tracking
    /// one such as origin/main); it becomes the session's base for later landings too.
    #[arg(long, value_name = "BRANCH", conflicts_with = "abort")]
    onto: Option<String>,
    /// Undo the landing in progress (stopped at a conflict, by Ctrl-C, or killed): the branch
    /// and the worktree's files go back to how they were before it began. Safe to run twice.
    #[arg(long)]
    abort: bool,
    /// The repository's git configuration changed since the session started (a hook, an
    /// fsmonitor, a push URL: what the landing refuses over): show the change, and, when you
    /// accept it on this terminal, land with it. An agent's commands have no terminal.
    #[arg(long)]
    accept_config_change: bool,
    /// Land the deletion of tracked files that are missing from the worktree without having been
    /// removed with `git rm` (a landing refuses it otherwise, naming them; on a terminal it asks).
    #[arg(long, conflicts_with = "abort")]
    delete_missing: bool,
    /// Run no worktree hooks (the repository's .nodwyn/hooks.toml, nor your own).
    #[arg(long, conflicts_with = "abort")]
    no_hooks: bool,
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse()
        .map_err(|e: nodwyn_core::prim::Error| e.to_string())
}

pub(super) fn run(args: LandArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let mut settings = environment::host_settings_interruptible()?;
    settings.notices = Notices::to(|text| output::note(text));
    if !args.queue.is_empty() {
        return queue(&args, &store, &settings, invocation);
    }
    let id = crate::commands::session_or_here(args.id.clone(), &store)?;
    if args.abort {
        let aborted = nodwyn_core::abort_landing(&store, &id, &settings)?;
        if invocation.json {
            return output::json(&aborted);
        }
        return output::text(describe_abort(&aborted));
    }
    if args.accept_config_change {
        crate::commands::session::accept_config::accept(&store, &id, &settings.person)?;
    }
    let land = |delete_missing| {
        nodwyn_core::land(
            &store,
            &id,
            args.message.as_deref(),
            args.strategy,
            args.onto.as_deref(),
            delete_missing,
            &settings,
        )
    };
    let landed = match land(args.delete_missing) {
        Err(refused) if refused.code() == "unconfirmed_deletions" && asks(invocation) => {
            let missing = refused.files();
            let prompt = format!(
                "{} tracked file(s) are missing from the worktree, not removed with `git rm`: {}\nland their deletion? [y/N] ",
                missing.len(),
                output::printable(&missing.join(", "))
            );
            match crate::asking::yes_or_no(&nodwyn_text::escape_lines(&prompt)) {
                Some(true) => land(true)?,
                _ => return Err(refused.into()),
            }
        }
        landed => landed?,
    };
    if invocation.json {
        output::json(&landed)?;
    } else {
        output::text(landed.summary())?;
    }
    after_landing(&store, &id, args.no_hooks)
}

/// Runs the `post_land` hooks of a session whose work just landed.
fn after_landing(store: &Store, id: &str, no_hooks: bool) -> anyhow::Result<()> {
    crate::hooks::run_after(store, id, HookEvent::PostLand, no_hooks, || {
        format!("session {id}'s work landed")
    })
}

/// `land --queue`: every session found first (an unknown or repeated one refused before anything
/// lands), then each landed in order, its summary printed as it lands; the first that does not
/// land stops the queue, and the error says which landed and which were not started.
fn queue(
    args: &LandArgs,
    store: &Store,
    settings: &nodwyn_core::host::HostSettings,
    invocation: &Invocation,
) -> anyhow::Result<()> {
    let mut ids: Vec<String> = Vec::with_capacity(args.queue.len());
    for given in &args.queue {
        let id = store.find(given)?.id.short().to_owned();
        if ids.contains(&id) {
            return Err(crate::error::coded(
                "queued_twice",
                format!("session {id} is in the queue twice ({given}); give each session once"),
            ));
        }
        ids.push(id);
    }
    let mut landed: Vec<(String, Landed)> = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        let result = nodwyn_core::land(
            store,
            id,
            args.message.as_deref(),
            args.strategy,
            None,
            args.delete_missing,
            settings,
        );
        match result {
            Ok(one) => {
                if !invocation.json {
                    output::text(format!("{id}: {}", one.summary()))?;
                }
                landed.push((id.clone(), one));
                if let Err(error) = after_landing(store, id, args.no_hooks) {
                    let rest = &ids[n + 1..];
                    return Err(error.context(format!(
                        "the queue stopped after {id} (not started: {})",
                        listed(rest)
                    )));
                }
            }
            Err(error) => {
                let done: Vec<&str> = landed.iter().map(|(id, _)| id.as_str()).collect();
                let rest = &ids[n + 1..];
                return Err(anyhow::Error::from(error).context(format!(
                    "the queue stopped at {id}, which needs you (landed: {}; not started: {})",
                    listed(&done),
                    listed(rest)
                )));
            }
        }
    }
    if invocation.json {
        let document: Vec<serde_json::Value> = landed
            .iter()
            .map(|(id, one)| serde_json::json!({"id": id, "landed": one}))
            .collect();
        return output::json(&document);
    }
    Ok(())
}

fn listed(ids: &[impl AsRef<str>]) -> String {
    if ids.is_empty() {
        return "none".to_owned();
    }
    ids.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
}

/// Whether a question can be put to the person: text output, and a terminal on both ends.
fn asks(invocation: &Invocation) -> bool {
    use std::io::IsTerminal;
    !invocation.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

fn describe_abort(aborted: &Aborted) -> String {
    if !aborted.undone {
        return format!(
            "no landing of {} is in progress; nothing to undo",
            aborted.branch
        );
    }
    // The worktree is put back; what reached the remote is said, not claimed undone.
    let what = match aborted.reached {
        Some(_) => "undid the landing in the worktree",
        None => "undid the landing",
    };
    let mut lines = vec![format!(
        "{what}: {} is at {} again, with the files as they were before it",
        aborted.branch,
        aborted.head.as_deref().map_or("?", short_commit)
    )];
    if let Some(reached) = &aborted.reached {
        lines.push(output::printable(reached));
    }
    if let Some(backup) = &aborted.backup {
        lines.push(format!("its tip during the landing is kept in {backup}"));
    }
    if let Some(kept) = &aborted.kept {
        lines.push(format!(
            "what the files held when the landing was undone is kept in {kept}"
        ));
    }
    lines.join("\n")
}
