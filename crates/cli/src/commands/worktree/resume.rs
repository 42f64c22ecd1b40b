//! `nodwyn worktree resume`.

use clap::Args;
use nodwyn_core::worktree::resume;

use crate::commands::Invocation;
use crate::output::{self, short_commit};

/// Open a session again, making its worktree again if it is gone.
///
/// A worktree made again uses the session's branch if that still exists, otherwise a new branch
/// of the same name from the base branch's head.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
}

pub fn run(args: ResumeArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let resumed = resume(&invocation.store()?, &args.id)?;
    if invocation.json {
        return output::json(&resumed);
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
    output::text(text)?;
    for failure in &resumed.include_failed {
        output::note(format!(
            "could not copy {} from .worktreeinclude: {}",
            failure.path, failure.error
        ));
    }
    Ok(())
}
