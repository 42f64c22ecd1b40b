//! `nodwyn worktree restore`.

use clap::Args;

use crate::commands::Invocation;
use crate::output;

/// Take back a forced removal: make the session's worktree again on its branch and put back the
/// files `worktree remove --force` discarded (tracked changes, deletions and untracked files, as
/// its snapshot under refs/nodwyn/snapshots/ID kept them; not ignored files or credential files).
/// The session is open again.
#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it).
    id: String,
    /// Run no worktree hooks (the repository's .nodwyn/hooks.toml, nor your own).
    #[arg(long)]
    no_hooks: bool,
}

pub(super) fn run(args: RestoreArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let (resumed, snapshot) = nodwyn_core::worktree::restore(&store, &args.id)?;
    if invocation.json {
        output::json(&serde_json::json!({
            "session": resumed.session,
            "path": resumed.root,
            "snapshot": snapshot,
            "branch_reused": resumed.branch_reused,
            "included": resumed.included,
        }))?;
        return super::resume::after_resume(&store, &resumed, args.no_hooks);
    }
    let mut text = format!(
        "Restored session {} in {}\n  put back the files its removal discarded, from {}",
        resumed.session,
        resumed.root.display(),
        snapshot.reference
    );
    if !snapshot.left_out.is_empty() {
        text.push_str(&format!(
            "\n  not kept by the removal, so not put back: {}",
            snapshot.left_out.join(", ")
        ));
    }
    output::text(text)?;
    for failure in &resumed.include_failed {
        output::note(format!(
            "could not copy {} from .worktreeinclude: {}",
            failure.path, failure.error
        ));
    }
    super::resume::after_resume(&store, &resumed, args.no_hooks)
}
