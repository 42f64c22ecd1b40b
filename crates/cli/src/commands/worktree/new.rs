//! `nodwyn worktree new`.

use clap::Args;
use nodwyn_core::worktree::{Created, NewWorktree, create};

use crate::commands::{Invocation, RepoArg};
use crate::config::Settings;
use crate::environment::user_config_file;
use crate::output::{self, short_commit};

/// Open a session in a new worktree of the repository, on a new branch nodwyn/<id>.
///
/// The worktree starts from the checkout's HEAD (or --base, or a pull request's head with --pr),
/// without its uncommitted changes. Run from inside a worktree, it makes a sibling based on that
/// worktree's HEAD. `.worktreeinclude` at the repository's top lists untracked files to copy in.
#[derive(Debug, Args)]
pub struct NewArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Start from this branch, tag or commit instead of HEAD.
    #[arg(long, value_name = "REF", conflicts_with = "pr")]
    base: Option<String>,
    /// Start from a pull request's head (N, #N or its URL), found with the `gh` program.
    #[arg(long, value_name = "N")]
    pr: Option<String>,
}

pub fn run(args: NewArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let dir = args.repo.dir()?;
    let repository = nodwyn_core::repository_of(&dir)?;
    let settings = Settings::resolve(user_config_file().as_deref(), Some(&repository))?;
    let created = create(
        &invocation.store()?,
        &NewWorktree {
            dir,
            base: args.base,
            pull_request: args.pr,
            location: settings.worktree_location,
        },
    )?;
    if invocation.json {
        return output::json(&created);
    }
    print_human(&created)
}

fn print_human(created: &Created) -> anyhow::Result<()> {
    let facts = &created.worktree;
    let from = if facts.base.is_empty() {
        format!("detached {}", short_commit(&facts.base_commit))
    } else {
        format!("{} at {}", facts.base, short_commit(&facts.base_commit))
    };
    output::text(format!(
        "Opened session {} in a new worktree\n  path    {}\n  branch  {} (from {from})",
        created.session,
        facts.path.display(),
        facts.branch,
    ))?;
    if let Some(number) = facts.pull_request {
        output::text(format!("  pull request #{number}"))?;
    }
    if created.uncommitted > 0 {
        output::note(format!(
            "note: {} uncommitted change(s) in the checkout it came from were not carried over",
            created.uncommitted
        ));
    }
    if !created.included.is_empty() {
        output::note(format!(
            "copied from .worktreeinclude: {}",
            created.included.join(", ")
        ));
    }
    for failure in &created.include_failed {
        output::note(format!(
            "could not copy {} from .worktreeinclude: {}",
            failure.path, failure.error
        ));
    }
    Ok(())
}
