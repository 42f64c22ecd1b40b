//! What leaves: the L1 scan of every commit a landing would publish, one by one (its added lines
//! read as text with no repository attribute, its message and identities, and the
//! credential-file denylist over the paths it adds or changes), and the fast-forward push through
//! the person's transport.

use std::path::Path;

use nodwyn_git::config::Config;
use nodwyn_git::{diff, graph, push};
use nodwyn_guard::scan::diff::scan_diff;
use nodwyn_guard::{Denylist, Scanner};

use super::target::RemoteBranch;
use crate::Error;
use crate::context::Push;

/// The ssh command a push uses when neither the environment nor git's configuration names one:
/// no prompt, so a key the agent does not hold fails at once.
pub const DEFAULT_SSH_COMMAND: &str = "ssh -o BatchMode=yes";

/// Refuses when any commit of `from..to` (each on its own: a secret added in one commit and
/// removed in the next is still pushed in the history) adds or changes a credential file, adds a
/// credential-shaped line (read as text whatever git or the repository's attributes call the
/// file), or carries one in its message or its author's or committer's name or address. The
/// sentence names each commit and what it holds.
pub(super) fn refuse_credentials(dir: &Path, from: &str, to: &str) -> Result<(), Error> {
    let found = credentials_leaving(dir, from, to)?;
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::declined(
        "credential_refused",
        format!(
            "the landing would publish {}, so nothing was pushed. Take the secret out of the files, then `git reset --soft {}` in the worktree (the files stay) and land again: a commit stays refused until it is rewritten",
            found.join("; "),
            super::short(from)
        ),
    ))
}

/// What the landing's scan (`refuse_credentials`) would refuse in `from..to`: a sentence for each commit that
/// holds a credential, naming what it holds; empty when nothing would be refused.
pub fn credentials_leaving(dir: &Path, from: &str, to: &str) -> Result<Vec<String>, Error> {
    let denylist = Denylist::standard();
    let scanner = Scanner::global();
    let mut found: Vec<String> = Vec::new();
    for commit in graph::commits_between(dir, from, to)? {
        let parts = nodwyn_git::commit::parts(dir, &commit)?;
        let parent = parts.parent.as_deref().unwrap_or(diff::EMPTY_TREE);
        let mut held: Vec<String> = Vec::new();
        for blob in diff::commit_blobs(dir, parent, &commit)? {
            let name = nodwyn_git::quote::os_name(&blob.path);
            if denylist.judge(Path::new(&name), dir).is_denied() {
                held.push(format!("the credential file {}", blob.path));
            }
            held.extend(beyond_the_diff(dir, &blob, scanner));
        }
        for finding in scan_diff(scanner, &diff::commit_patch(dir, parent, &commit)?) {
            held.push(format!(
                "what looks like a credential at {}:{} ({})",
                finding.path, finding.line, finding.rule
            ));
        }
        for finding in scanner.scan(&parts.message) {
            held.push(format!(
                "what looks like a credential in its message ({})",
                finding.rule
            ));
        }
        let identities = [&parts.author, &parts.committer]
            .map(|who| format!("{} <{}>", who.name, who.email))
            .join("\n");
        for finding in scanner.scan(identities.as_bytes()) {
            held.push(format!(
                "what looks like a credential in its author or committer ({})",
                finding.rule
            ));
        }
        if !held.is_empty() {
            found.push(format!(
                "commit {} (\"{}\") holds {}",
                super::short(&commit),
                subject(&parts.message),
                held.join(", ")
            ));
        }
    }
    Ok(found)
}

/// The most of one LFS object the landing reads to scan.
const LARGEST_SCANNED_OBJECT: u64 = 512 * 1024 * 1024;

/// What leaves with a commit beyond its diff: a submodule's commit (whose content nodwyn does
/// not scan, so it is refused) and the content of an LFS object (the diff shows only its
/// pointer; git-lfs uploads the object with the push), scanned from the local LFS store.
fn beyond_the_diff(dir: &Path, blob: &diff::NewBlob, scanner: &Scanner) -> Vec<String> {
    if blob.mode == "160000" {
        return vec![format!(
            "a change of the submodule {}, whose commits nodwyn does not scan or publish (land it from the submodule itself)",
            blob.path
        )];
    }
    let Some(pointer) = nodwyn_git::lfs::Pointer::in_blob(dir, &blob.oid) else {
        return Vec::new();
    };
    let Some(object) = pointer.local_object(dir).filter(|o| o.exists()) else {
        // Not in the local store: git-lfs has nothing of it to upload.
        return Vec::new();
    };
    if pointer.size > LARGEST_SCANNED_OBJECT {
        return vec![format!(
            "the LFS object of {} ({} bytes), too large to scan before it is uploaded",
            blob.path, pointer.size
        )];
    }
    match std::fs::read(&object) {
        Ok(content) => scanner
            .scan(&content)
            .into_iter()
            .map(|finding| {
                format!(
                    "what looks like a credential in the LFS object of {}, line {} ({})",
                    blob.path, finding.line, finding.rule
                )
            })
            .collect(),
        Err(e) => vec![format!(
            "the LFS object of {}, which could not be read to scan it ({e})",
            blob.path
        )],
    }
}

/// A commit message's first line, shortened for a sentence, with any credential in it redacted.
fn subject(message: &[u8]) -> String {
    let text = String::from_utf8_lossy(message);
    let line = Scanner::global().redact(text.lines().next().unwrap_or_default().trim());
    nodwyn_text::shortened(&line, 60)
}

/// The `GIT_SSH_COMMAND` a fetch or push needs: none when the person's environment names one
/// (`inherited`) or git's configuration has `core.sshCommand`, else the non-interactive default.
pub(super) fn ssh_command(config: &Config, inherited: bool) -> Option<&'static str> {
    if inherited || config.get("core.sshCommand").is_some() {
        return None;
    }
    Some(DEFAULT_SSH_COMMAND)
}

/// Pushes `commit` to `target` by fast-forward, and returns the push for the `git.push` record.
pub(super) fn push_to(
    dir: &Path,
    target: &RemoteBranch,
    old: &str,
    commit: &str,
    network: nodwyn_git::Network<'_>,
) -> Result<Push, Error> {
    match push::push_fast_forward(dir, &target.remote, commit, &target.branch, network)? {
        push::Pushed::Done => Ok(Push {
            remote: target.remote.clone(),
            urls: target.urls.clone(),
            reference: format!("refs/heads/{}", target.branch),
            old: Some(old.to_owned()),
            new: commit.to_owned(),
        }),
        push::Pushed::Rejected(summary) => Err(Error::declined(
            "not_fast_forward",
            format!(
                "{} refused the push to {} ({summary}); a landing never forces: if {} moved meanwhile, land again to rebase onto it",
                target.remote, target.branch, target.branch
            ),
        )),
    }
}
