//! Pushing a commit to a remote branch by fast-forward only, through the `git` program and the
//! person's transport (`core.sshCommand`, credential helpers), and reading a remote's push URLs.

use std::path::Path;

use crate::Error;
use crate::command::GitCommand;

/// Every URL `git push REMOTE` would push to (`git remote get-url --push --all`).
pub fn push_urls(dir: &Path, remote: &str) -> Result<Vec<String>, Error> {
    let text = GitCommand::new(dir)
        .read_only()
        .args(["remote", "get-url", "--push", "--all", remote])
        .run_text()?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// How a push ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The remote branch now points at the commit.
    Done,
    /// The remote refused; git's summary (`[rejected] (non-fast-forward)`, ...).
    Rejected(String),
}

/// Pushes `commit` to `refs/heads/BRANCH` of `remote`, never forced: the remote takes it only as
/// a fast-forward. `network` gives its ssh program and deadline.
pub fn push_fast_forward(
    dir: &Path,
    remote: &str,
    commit: &str,
    branch: &str,
    network: crate::Network<'_>,
) -> Result<Pushed, Error> {
    let refspec = format!("{commit}:refs/heads/{branch}");
    let command = GitCommand::new(dir)
        .without_prompts()
        .network(network)
        .args(["push", "--porcelain", "--quiet", remote, &refspec]);
    let (output, failure) = command.output_checked()?;
    // `--porcelain` prints one line per ref: flag, TAB, from:to, TAB, summary. `!` is a refusal.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let refused = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("!\t"))
        .find_map(|rest| rest.split('\t').nth(1))
        .map(str::to_owned);
    match (failure, refused) {
        (None, _) => Ok(Pushed::Done),
        (Some(_), Some(summary)) => Ok(Pushed::Rejected(summary)),
        (Some(failure), None) => Err(failure),
    }
}
