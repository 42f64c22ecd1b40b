//! `nodwyn allow`: a person's standing answers, written for them.

use clap::{Args, Subcommand};
use nodwyn_core::allow::{Allowed, StandingAnswer, allow};

use crate::commands::{Invocation, RepoArg};
use crate::output;

/// Add a standing answer to the repository's `.nodwyn/allow.toml` (kept untracked: nodwyn lists
/// it in `.git/info/exclude`).
///
/// A standing answer approves an agent's calls of one kind without asking: commands starting
/// with these words, writes to paths matching a glob, pushes to a remote URL. It is a person's
/// decision, so it is only taken on a terminal (an agent's commands run without one).
#[derive(Debug, Args)]
pub struct AllowArgs {
    #[command(subcommand)]
    answer: AllowCommand,
    #[command(flatten)]
    repo: RepoArg,
}

#[derive(Debug, Subcommand)]
enum AllowCommand {
    /// Commands that start with these words (`nodwyn allow command cargo test`).
    Command {
        /// The words, each a whole argument.
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Writes to paths matching a glob, relative to the session's folder (`src/**`).
    Write {
        /// The glob.
        glob: String,
    },
    /// Pushes (landings) to a remote URL.
    Push {
        /// The URL, as `git remote get-url --push` shows it.
        url: String,
    },
}

pub fn run(args: AllowArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if !output::person_at_terminal() {
        anyhow::bail!(
            "`allow` needs a terminal (its standard input and error are not one here): a standing answer is a person's decision, so it is only taken on a terminal; run it yourself in one"
        );
    }
    let repository = args.repo.repository()?;
    let answer = match args.answer {
        AllowCommand::Command { words } => StandingAnswer::Command(words),
        AllowCommand::Write { glob } => StandingAnswer::Write(glob),
        AllowCommand::Push { url } => StandingAnswer::Push(url),
    };
    let allowed = allow(&repository, &answer)?;
    if invocation.json {
        return output::json(&allowed);
    }
    output::text(describe(&allowed))
}

fn describe(allowed: &Allowed) -> String {
    let mut text = if allowed.added {
        format!("added to {}", allowed.path.display())
    } else {
        format!("{} already has it", allowed.path.display())
    };
    if allowed.excluded_now {
        text.push_str("\nlisted in .git/info/exclude, so git never tracks it");
    }
    text
}
