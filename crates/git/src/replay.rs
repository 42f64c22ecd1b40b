//! Rebasing in the object database: a branch's own commits are made again on a newer base with
//! `git merge-tree` and `git commit-tree`, one by one, without touching a worktree, an index or a
//! ref. Nothing the person or an agent left in the worktree can be overwritten, and a stop at any
//! moment leaves only unreferenced objects behind (git's own garbage collection takes them).
//!
//! It follows `git rebase`'s choices: merge commits are left out (the branch is made linear), a
//! commit that becomes empty on the new base (its change is there already) is dropped, one that
//! was empty from the start is kept, and each commit keeps its author, date and message while
//! the person becomes its committer. A conflict stops the replay and names the commit and the
//! files; the caller decides what to do (nodwyn then runs the real `git rebase` in the worktree,
//! so the conflict can be resolved there).

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};
use crate::commit::{parts, remake};

/// How a replay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replayed {
    /// Every commit was made again; `tip` is the last one (`onto` itself when every commit was
    /// dropped as already there), `kept` how many commits it has over `onto`.
    Done {
        /// The new tip.
        tip: String,
        /// How many of the branch's commits are on it.
        kept: usize,
    },
    /// Applying `commit` on the new base conflicts in `files`.
    Conflict {
        /// The commit that does not apply.
        commit: String,
        /// The files in conflict.
        files: Vec<String>,
    },
}

/// Makes the commits `upstream..tip` again on `onto` (see the module documentation). With
/// `remake_all`, a commit is made again even where it could be kept as it is (its parent
/// unchanged), so that each one is signed when `sign` is set.
pub fn replay(
    dir: &Path,
    upstream: &str,
    tip: &str,
    onto: &str,
    remake_all: bool,
    sign: bool,
) -> Result<Replayed, Error> {
    let listed = GitCommand::new(dir)
        .read_only()
        .args([
            "rev-list",
            "--reverse",
            "--topo-order",
            "--no-merges",
            &format!("{upstream}..{tip}"),
            "--",
        ])
        .run_text()?;
    let mut current = onto.to_owned();
    let mut kept = 0;
    for commit in listed.lines() {
        let original = parts(dir, commit)?;
        let parent = original
            .parent
            .clone()
            .ok_or_else(|| Error::BadRevision(format!("{commit}^")))?;
        if parent == current && !remake_all {
            current = commit.to_owned();
            kept += 1;
            continue;
        }
        let tree = match merged_tree(dir, &parent, &current, commit)? {
            Ok(tree) => tree,
            Err(files) => {
                return Ok(Replayed::Conflict {
                    commit: commit.to_owned(),
                    files,
                });
            }
        };
        let was_empty = crate::graph::tree_of(dir, &parent)? == original.tree;
        if tree == crate::graph::tree_of(dir, &current)? && !was_empty {
            continue;
        }
        current = remake(dir, &tree, &current, &original, sign)?;
        kept += 1;
    }
    Ok(Replayed::Done { tip: current, kept })
}

/// The tree of `commit`'s change (from `parent`) applied on `onto`, or the conflicted files.
fn merged_tree(
    dir: &Path,
    parent: &str,
    onto: &str,
    commit: &str,
) -> Result<Result<String, Vec<String>>, Error> {
    let (output, failure) = GitCommand::new(dir)
        .args([
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            "-z",
            &format!("--merge-base={parent}"),
            onto,
            commit,
        ])
        .output_checked()?;
    let mut records = nul_records(&output.stdout);
    let tree = records.next().unwrap_or_default();
    match output.status.code() {
        Some(0) => Ok(Ok(tree)),
        Some(1) => {
            let mut files: Vec<String> = records.collect();
            files.dedup();
            Ok(Err(files))
        }
        _ => Err(failure.unwrap_or_else(|| Error::BadRevision(commit.to_owned()))),
    }
}
