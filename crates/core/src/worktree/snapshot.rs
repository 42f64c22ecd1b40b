//! Removal you can take back: before `worktree remove --force` discards a worktree's changes, a
//! commit on its HEAD keeps its tracked and untracked files as they are (ignored files are not
//! kept: they are what a build makes again), under `refs/nodwyn/snapshots/<short id>`;
//! `nodwyn worktree restore` makes the worktree again and puts those files back.
//!
//! Credential files the worktree does not track are left out (a snapshot lives in the
//! repository's objects, which a `git push --mirror` would publish), and so are untracked files
//! too large to read; both are named. A second forced removal of the same session keeps the
//! first snapshot reachable as the new one's second parent.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use nodwyn_git::diff::{Objects, Snapshot};

use crate::Error;
use crate::event::{RemovalSnapshot, WorktreeFacts};

/// Where snapshots are kept, one ref per session.
pub const SNAPSHOTS: &str = "refs/nodwyn/snapshots/";

/// The longest the snapshot of a worktree's files may take before the removal is refused.
const SNAPSHOT_TIME: Duration = Duration::from_secs(120);

/// A snapshot `worktree prune` dropped (or, with `--dry-run`, would drop).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Dropped {
    /// The ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The snapshot commit, which stays in the object database until git collects it.
    pub commit: String,
    /// How many whole days old it is.
    pub days: u64,
}

/// Drops the snapshots of `repository` older than `age` (by their commit's time), each by
/// compare-and-swap; with `dry_run` only says which.
pub fn drop_older_than(
    repository: &Path,
    age: Duration,
    dry_run: bool,
) -> Result<Vec<Dropped>, Error> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut dropped = Vec::new();
    for kept in nodwyn_git::refs::dated_refs(repository, SNAPSHOTS)? {
        let seconds = now.saturating_sub(u64::try_from(kept.committed).unwrap_or(0));
        if seconds < age.as_secs() {
            continue;
        }
        if !dry_run {
            nodwyn_git::refs::delete_ref_at(repository, &kept.name, &kept.commit)?;
        }
        dropped.push(Dropped {
            reference: kept.name,
            commit: kept.commit,
            days: seconds / 86_400,
        });
    }
    Ok(dropped)
}

/// The ref of session `short_id`'s snapshot.
pub fn reference(short_id: &str) -> String {
    format!("{SNAPSHOTS}{short_id}")
}

/// Keeps the worktree of `facts` (checked out at `head`) as a snapshot commit of session
/// `short_id`. A failure is the removal's refusal: nothing is discarded that was not kept.
pub(crate) fn keep(
    facts: &WorktreeFacts,
    head: &str,
    short_id: &str,
) -> Result<RemovalSnapshot, Error> {
    let objects = nodwyn_git::repo::common_dir(&facts.repository)?.join("objects");
    let denylist = nodwyn_guard::Denylist::standard();
    let credentials = Mutex::new(Vec::new());
    let leave_out = |path: &str| {
        let name = nodwyn_git::quote::os_name(path);
        let denied = denylist.judge(Path::new(&name), &facts.path).is_denied();
        if denied {
            credentials
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(path.to_owned());
        }
        denied
    };
    let snapshot = Snapshot::take_with(
        &facts.path,
        SNAPSHOT_TIME,
        &Objects::KeptIn {
            folder: &objects,
            leave_out: &leave_out,
        },
    )?;
    let tree = snapshot.tree()?;
    let reference = reference(short_id);
    let earlier = nodwyn_git::repo::resolve_commit(&facts.repository, &reference)?;
    let mut parents = vec![head];
    parents.extend(earlier.as_deref());
    let message = format!(
        "nodwyn: the files `worktree remove --force` discarded from {}\n\n`nodwyn worktree restore {short_id}` puts them back.",
        facts.branch
    );
    let commit =
        nodwyn_git::commit::commit_tree(&facts.repository, &tree, &parents, &message, false)?;
    nodwyn_git::graph::update_ref(
        &facts.repository,
        &reference,
        &commit,
        earlier.as_deref().unwrap_or(""),
        "nodwyn: worktree remove --force",
    )?;
    let mut left_out = credentials
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    left_out.extend(snapshot.too_large.iter().map(|(path, _)| path.clone()));
    left_out.sort();
    left_out.dedup();
    Ok(RemovalSnapshot {
        reference,
        commit,
        left_out,
    })
}
