//! Changing refs: deleting a branch only if it still points where nodwyn judged it, and fetching
//! a remote's ref into a local one.

use std::path::Path;

use crate::Error;
use crate::command::GitCommand;

/// Deletes the local branch `branch` if, and only if, it still points at `expected`
/// (compare-and-swap through `git update-ref -d`), so a commit made after nodwyn judged the branch
/// landed is never lost.
pub fn delete_branch_at(dir: &Path, branch: &str, expected: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .args([
            "update-ref",
            "-d",
            &format!("refs/heads/{branch}"),
            expected,
        ])
        .run()
        .map(drop)
}

/// Fetches `source` from `remote` into the local ref `destination` (forced, since it is nodwyn's
/// own scratch ref), without tags and without writing `FETCH_HEAD`, and returns the commit it got.
/// `network` gives its ssh program and deadline.
pub fn fetch_into(
    dir: &Path,
    remote: &str,
    source: &str,
    destination: &str,
    network: crate::Network<'_>,
) -> Result<String, Error> {
    GitCommand::new(dir)
        .without_prompts()
        .network(network)
        .args([
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            remote,
            &format!("+{source}:{destination}"),
        ])
        .run()?;
    crate::repo::resolve_commit(dir, destination)?
        .ok_or_else(|| Error::BadRevision(destination.to_owned()))
}

/// Deletes a ref nodwyn made for itself (such as a fetched pull request head), in-process: no
/// other program reads or writes nodwyn's scratch refs, so there is no configuration to run.
pub fn delete_ref(dir: &Path, reference: &str) -> Result<(), Error> {
    let repo = crate::repo::open(dir)?;
    match repo.find_reference(reference) {
        Ok(mut found) => found.delete().map_err(Error::read(dir)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(()),
        Err(e) => Err(Error::read(dir)(e)),
    }
}

/// Whether `name` is acceptable to git as a branch name (`git check-ref-format --branch`), so a
/// name that came from outside (a forge's answer) is never read as an option or a refspec.
pub fn is_valid_branch_name(dir: &Path, name: &str) -> Result<bool, Error> {
    if name.starts_with('-') {
        return Ok(false);
    }
    let output = GitCommand::new(dir)
        .args(["check-ref-format", "--branch", name])
        .output()?;
    Ok(output.status.success())
}
