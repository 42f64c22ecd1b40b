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
pub(super) struct AllowArgs {
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

pub(super) fn run(args: AllowArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let answer = match args.answer {
        AllowCommand::Command { words } => StandingAnswer::Command(words),
        AllowCommand::Write { glob } => StandingAnswer::Write(glob),
        AllowCommand::Push { url } => {
            if !looks_like_a_push_url(&url) {
                return Err(crate::error::bad_input(
                    "bad_url",
                    format!(
                        "`{}` is not a push URL: give one as `git remote get-url --push origin` shows it (https://..., ssh://..., git@host:path, or a path)",
                        crate::output::printable(&url)
                    ),
                ));
            }
            StandingAnswer::Push(url)
        }
    };
    if !output::person_at_terminal() {
        return Err(crate::error::coded(
            "needs_terminal",
            "`allow` needs a terminal (its standard input and error are not one here): a standing answer is a person's decision, so it is only taken on a terminal; run it yourself in one",
        ));
    }
    let repository = args.repo.repository()?;
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

/// Whether `url` has the form of a URL git pushes to: a scheme URL, scp-like `user@host:path`,
/// or a path. A word with spaces, or nothing at all, is none of them.
fn looks_like_a_push_url(url: &str) -> bool {
    let url = url.trim();
    if url.is_empty() || url.chars().any(char::is_whitespace) {
        return false;
    }
    let scheme = url.split_once("://").is_some_and(|(scheme, rest)| {
        !rest.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let scp_like = url
        .split_once(':')
        .is_some_and(|(host, path)| !host.is_empty() && !host.contains('/') && !path.is_empty());
    let path = url.starts_with('/') || url.starts_with("./") || url.starts_with("../");
    scheme || scp_like || path
}
