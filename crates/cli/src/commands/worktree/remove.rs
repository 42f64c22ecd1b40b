//! `nodwyn worktree remove`.

use clap::Args;
use nodwyn_core::worktree::hooks::HookEvent;
use nodwyn_core::worktree::remove;

use crate::commands::Invocation;
use crate::commands::worktree::describe_branch;
use crate::output;

/// Remove a session's worktree; its branch goes only if its base has its work.
///
/// Refused while the worktree has changes of any kind (untracked and ignored files included)
/// unless --force, which discards them and names every file, after keeping the tracked and
/// untracked ones (not ignored files, nor credential files) in a snapshot commit under
/// refs/nodwyn/snapshots/ID: `nodwyn worktree restore ID` brings them back. Commits are never
/// discarded.
#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
    /// Discard uncommitted, untracked and ignored files (never commits), keeping a snapshot of
    /// all but ignored and credential files first.
    #[arg(long)]
    force: bool,
    /// End the processes working in the worktree (a dev server you started there): SIGTERM,
    /// then SIGKILL after 5 s. Never one holding a terminal (your shell, or what runs in a
    /// terminal's foreground), which is named and left alone.
    #[arg(long)]
    reap: bool,
    /// Run no worktree hooks (the repository's .nodwyn/hooks.toml, nor your own).
    #[arg(long)]
    no_hooks: bool,
}

pub(super) fn run(args: RemoveArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let id = crate::commands::session_or_here(args.id.clone(), &store)?;
    // The worktree's teardown first: a failing one keeps it, unless `--force`.
    let ran = crate::hooks::run(&store, &id, HookEvent::PreRemove, args.no_hooks)?;
    if let Some(failed) = ran.failed() {
        let stopped = crate::hooks::failure(
            HookEvent::PreRemove,
            failed,
            "the worktree was about to be removed",
        );
        if !args.force {
            return Err(stopped.context("the worktree stays (`--force` removes it all the same)"));
        }
        output::note(format!(
            "note: {stopped:#}; removing it all the same (--force)"
        ));
    }
    let removed = remove(&store, &id, args.force, args.reap)?;
    if invocation.json {
        return output::json(&removed);
    }
    let mut text = format!("Removed {}.", removed.path.display());
    for process in &removed.reaped {
        text.push_str(&format!(
            "\n  ended process {} ({}), which worked in it",
            process.pid,
            output::printable(&process.command)
        ));
    }
    for process in &removed.left_running {
        text.push_str(&format!(
            "\n  left process {} ({}) alone: it holds a terminal; its folder is gone",
            process.pid,
            output::printable(&process.command)
        ));
    }
    if !removed.discarded.is_empty() {
        text.push_str(&format!(
            "\n  discarded {} file(s):",
            removed.discarded.len()
        ));
        for file in &removed.discarded {
            text.push_str(&format!("\n    {file}"));
        }
    }
    if let Some(snapshot) = &removed.snapshot {
        text.push_str(&format!(
            "\n  kept them (but ignored files) in {}: `nodwyn worktree restore {}` brings them back",
            snapshot.reference,
            removed.session.rsplit('-').next().unwrap_or(&removed.session)
        ));
        if !snapshot.left_out.is_empty() {
            text.push_str(&format!(
                "\n  not kept (credential files, or too large to read): {}",
                snapshot.left_out.join(", ")
            ));
        }
    }
    text.push_str(&format!(
        "\n  {}",
        describe_branch(&removed.branch)
            .replace("the branch", &format!("branch {}", removed.branch_name),)
    ));
    output::text(text)
}
