//! What leaves: the L1 scan of the commits a landing would publish (added lines only, and the
//! credential-file denylist over the paths they touch), and the fast-forward push through the
//! person's transport.

use std::path::Path;

use nodwyn_git::config::Config;
use nodwyn_git::{diff, push};
use nodwyn_guard::scan::diff::scan_diff;
use nodwyn_guard::{Denylist, Scanner};

use super::target::RemoteBranch;
use crate::Error;
use crate::context::Push;

/// The ssh command a push uses when neither the environment nor git's configuration names one:
/// no prompt, so a key the agent does not hold fails at once.
pub const DEFAULT_SSH_COMMAND: &str = "ssh -o BatchMode=yes";

/// Refuses when the commits `from..to` add a credential-shaped line or touch a credential file.
pub fn refuse_credentials(dir: &Path, from: &str, to: &str) -> Result<(), Error> {
    let range = format!("{from}..{to}");
    let unified = diff::unified(dir, &range)?;
    let denylist = Denylist::standard();
    let mut files: Vec<String> = Vec::new();
    for line in unified.split(|b| *b == b'\n') {
        if let Some(path) = line.strip_prefix(b"+++ b/") {
            let path = String::from_utf8_lossy(path).into_owned();
            if denylist.judge(Path::new(&path), dir).is_denied() {
                files.push(path);
            }
        }
    }
    if !files.is_empty() {
        return Err(Error::refused(format!(
            "the landing would publish credential files ({}); it stopped before pushing. Take them out of the branch's commits, then land again",
            files.join(", ")
        )));
    }
    let findings = scan_diff(Scanner::global(), &unified);
    if findings.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = findings
        .iter()
        .map(|f| format!("{}:{} ({})", f.path, f.line, f.rule))
        .collect();
    Err(Error::refused(format!(
        "the landing would publish what looks like a credential at {}; it stopped before pushing. Remove it from the branch's commits (or, if it is not a secret, write it so it does not look like one), then land again",
        named.join(", ")
    )))
}

/// The `GIT_SSH_COMMAND` a fetch or push needs: none when the person's environment names one
/// (`inherited`) or git's configuration has `core.sshCommand`, else the non-interactive default.
pub fn ssh_command(config: &Config, inherited: bool) -> Option<&'static str> {
    if inherited || config.get("core.sshCommand").is_some() {
        return None;
    }
    Some(DEFAULT_SSH_COMMAND)
}

/// Pushes `commit` to `target` by fast-forward, and returns the push for the `git.push` record.
pub fn push_to(
    dir: &Path,
    target: &RemoteBranch,
    old: &str,
    commit: &str,
    ssh: Option<&str>,
) -> Result<Push, Error> {
    match push::push_fast_forward(dir, &target.remote, commit, &target.branch, ssh)? {
        push::Pushed::Done => Ok(Push {
            remote: target.remote.clone(),
            urls: target.urls.clone(),
            reference: format!("refs/heads/{}", target.branch),
            old: Some(old.to_owned()),
            new: commit.to_owned(),
        }),
        push::Pushed::Rejected(summary) => Err(Error::refused(format!(
            "{} refused the push to {} ({summary}); a landing never forces: if {} moved meanwhile, land again to rebase onto it",
            target.remote, target.branch, target.branch
        ))),
    }
}
