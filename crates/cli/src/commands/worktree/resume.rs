//! `nodwyn worktree resume`.

use clap::Args;
use nodwyn_core::worktree::hooks::HookEvent;
use nodwyn_core::worktree::resume;

use crate::commands::Invocation;
use crate::output::{self, short_commit};

/// Open a session again, making its worktree again if it is gone.
///
/// A worktree made again uses the session's branch if that still exists, otherwise a new branch
/// of the same name from the base branch's head.
#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
    /// Run no worktree hooks (the repository's .nodwyn/hooks.toml, nor your own).
    #[arg(long)]
    no_hooks: bool,
}

pub(super) fn run(args: ResumeArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let store = invocation.store()?;
    let resumed = resume(&store, &args.id)?;
    if invocation.json {
        output::json(&resumed)?;
        return after_resume(&store, &resumed, args.no_hooks);
    }
    let mut text = format!(
        "Resumed session {} in {}",
        resumed.session,
        resumed.root.display()
    );
    if let (true, Some(facts)) = (resumed.restored, &resumed.worktree) {
        if resumed.branch_reused == Some(true) {
            text.push_str(&format!(
                "\n  made the worktree again on its branch {}",
                facts.branch
            ));
        } else {
            text.push_str(&format!(
                "\n  made the worktree again on a new branch {} from {} at {}",
                facts.branch,
                if facts.base.is_empty() {
                    "the base commit"
                } else {
                    &facts.base
                },
                short_commit(&facts.base_commit)
            ));
        }
    }
    if let Some(finished) = resumed.finished.as_ref().filter(|f| !f.remade) {
        text.push_str(&format!(
            "\n  finished its checkout, which was cut short: wrote {} of its branch's files it lacked",
            finished.written.len()
        ));
        if !finished.rewritten.is_empty() {
            text.push_str(&format!(
                "\n  wrote {} tracked file(s) that differed from the branch's again as the branch has them; what they held is kept (`nodwyn versions list {}`): {}",
                finished.rewritten.len(),
                &resumed.session[resumed.session.len().saturating_sub(8)..],
                output::printable(&finished.rewritten.join(", "))
            ));
        }
    }
    output::text(text)?;
    for failure in &resumed.include_failed {
        output::note(format!(
            "could not copy {} from .worktreeinclude: {}",
            failure.path, failure.error
        ));
    }
    after_resume(&store, &resumed, args.no_hooks)
}

/// Runs the `post_resume` hooks of a session opened again in its worktree (`resume`, `restore`).
pub(super) fn after_resume(
    store: &nodwyn_core::Store,
    resumed: &nodwyn_core::worktree::Resumed,
    no_hooks: bool,
) -> anyhow::Result<()> {
    crate::hooks::run_after(
        store,
        &resumed.session,
        HookEvent::PostResume,
        no_hooks,
        || {
            format!(
                "session {} is open again in {}",
                resumed.session,
                resumed.root.display()
            )
        },
    )
}
