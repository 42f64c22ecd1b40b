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
    let fetch = || {
        GitCommand::new(dir)
            .without_prompts()
            .network(network.clone())
            .args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                remote,
                &format!("+{source}:{destination}"),
            ])
            .run()
    };
    let mut attempt = 1;
    loop {
        match fetch() {
            // git also moves the remote's tracking ref (`origin/main`) when it fetches, and two
            // fetches at once race for its lock: the loser fails though nothing is wrong.
            Err(error) if attempt < LOCK_RACE_TRIES && lost_a_ref_lock(&error) => {
                tracing::info!(attempt, %error, "a fetch lost a ref-lock race; it is tried again");
                std::thread::sleep(std::time::Duration::from_millis(50 * attempt as u64));
                attempt += 1;
            }
            fetched => {
                fetched?;
                break;
            }
        }
    }
    crate::repo::resolve_commit(dir, destination)?
        .ok_or_else(|| Error::BadRevision(destination.to_owned()))
}

/// How many times a fetch that lost a race for a ref's lock is tried in all.
const LOCK_RACE_TRIES: u32 = 5;

/// Whether git failed only because another git held a ref's lock at that moment.
fn lost_a_ref_lock(error: &Error) -> bool {
    matches!(error, Error::Failed { stderr, .. } if stderr.contains("cannot lock ref"))
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

/// A ref under a prefix, with the commit it points at and that commit's committer time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatedRef {
    /// The full name (`refs/nodwyn/snapshots/1968c13a`).
    pub name: String,
    /// The commit.
    pub commit: String,
    /// The commit's committer time, in seconds since the epoch.
    pub committed: i64,
}

/// Every ref under `prefix` (which ends in `/`) that points at a commit, read in one call.
pub fn dated_refs(dir: &Path, prefix: &str) -> Result<Vec<DatedRef>, Error> {
    let listed = GitCommand::new(dir)
        .read_only()
        .args([
            "for-each-ref",
            "--format=%(objectname) %(committerdate:unix) %(refname)",
            prefix,
        ])
        .run_text()?;
    Ok(listed
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            let commit = parts.next()?.to_owned();
            let committed = parts.next()?.parse().ok()?;
            let name = parts.next()?.to_owned();
            Some(DatedRef {
                name,
                commit,
                committed,
            })
        })
        .collect())
}

/// Deletes `reference` if, and only if, it still points at `expected` (compare-and-swap).
pub fn delete_ref_at(dir: &Path, reference: &str, expected: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .shielded()
        .args(["update-ref", "-d", reference, expected])
        .run()
        .map(drop)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        GitCommand::new(dir).args(args).run().unwrap();
    }

    #[test]
    fn a_fetch_that_loses_a_race_for_the_tracking_refs_lock_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let (origin, local) = (dir.path().join("origin"), dir.path().join("local"));
        std::fs::create_dir_all(&origin).unwrap();
        git(&origin, &["init", "-q", "-b", "main"]);
        let commit = |message: &str| {
            git(
                &origin,
                &[
                    "-c",
                    "user.name=a",
                    "-c",
                    "user.email=a@b.invalid",
                    "commit",
                    "-q",
                    "--allow-empty",
                    "-m",
                    message,
                ],
            );
        };
        commit("one");
        git(
            dir.path(),
            &["clone", "-q", origin.to_str().unwrap(), "local"],
        );
        commit("two");
        // Another fetch holds origin/main's lock for a moment, as a concurrent landing's does.
        let lock = local.join(".git/refs/remotes/origin/main.lock");
        std::fs::write(&lock, "").unwrap();
        let release = {
            let lock = lock.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(400));
                std::fs::remove_file(lock).unwrap();
            })
        };
        let network = crate::Network {
            ssh_command: None,
            deadline: crate::Network::DEFAULT_DEADLINE,
            cancel: None,
        };
        let fetched = fetch_into(
            &local,
            "origin",
            "refs/heads/main",
            "refs/nodwyn/scratch",
            network,
        );
        release.join().unwrap();
        let tip = crate::repo::resolve_commit(&origin, "main").unwrap();
        assert_eq!(fetched.unwrap(), tip.unwrap());
    }
}
