//! The last step of a landing: moving the local base branch to the landed commit, only ever
//! safely. By compare-and-swap of its ref when no checkout has it; by `git merge --ff-only` in a
//! clean checkout that has it; not at all in a checkout with changes, or when the local branch
//! holds commits the landing does not.

use std::path::{Path, PathBuf};

use nodwyn_git::{graph, repo, status, worktree};
use serde::Serialize;

use crate::Error;

/// What happened to the local base branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "how")]
pub enum LocalBase {
    /// Its ref was moved by compare-and-swap (no checkout has it).
    Moved,
    /// `git merge --ff-only` moved it in the clean checkout that has it.
    Merged {
        /// That checkout.
        checkout: PathBuf,
    },
    /// It already pointed at the landed commit.
    Unchanged,
    /// It was left where it was.
    Left {
        /// Why, in words.
        why: String,
    },
}

impl LocalBase {
    /// Whether the local base branch now points at the landed commit.
    pub fn is_at_landed(&self) -> bool {
        !matches!(self, LocalBase::Left { .. })
    }
}

/// Moves the local branch `base` of `repository` to `landed`, if it can be done safely.
pub(super) fn move_local_base(
    repository: &Path,
    base: &str,
    landed: &str,
) -> Result<LocalBase, Error> {
    let Some(tip) = repo::branch_tip(repository, base)? else {
        return Ok(LocalBase::Left {
            why: format!("there is no local {base} branch"),
        });
    };
    if tip == landed {
        return Ok(LocalBase::Unchanged);
    }
    if !graph::is_ancestor(repository, &tip, landed)? {
        return Ok(LocalBase::Left {
            why: format!(
                "the local {base} has commits the landing does not (unpublished work of another session or a person?), so it was not moved"
            ),
        });
    }
    let reference = format!("refs/heads/{base}");
    let checkout = worktree::list(repository)?
        .into_iter()
        .find(|w| w.branch.as_deref() == Some(reference.as_str()) && !w.prunable);
    let Some(checkout) = checkout else {
        graph::update_ref(
            repository,
            &reference,
            landed,
            &tip,
            "nodwyn land: fast-forward",
        )?;
        return Ok(LocalBase::Moved);
    };
    let changed = status::changes(&checkout.path, status::Detail::Folders)?
        .iter()
        .any(|c| c.code != "??" && c.code != "!!");
    if changed {
        return Ok(LocalBase::Left {
            why: format!(
                "{base} is checked out in {} with uncommitted changes, so it was not moved",
                checkout.path.display()
            ),
        });
    }
    match graph::merge_fast_forward(&checkout.path, landed) {
        Ok(()) => Ok(LocalBase::Merged {
            checkout: checkout.path,
        }),
        Err(e) => Ok(LocalBase::Left {
            why: after_a_failed_move(&checkout.path, &tip, landed, &e),
        }),
    }
}

/// What a fast-forward of the checkout `dir` that failed left, said truly: git may have written
/// some of the landed commit's files before it stopped (a full disk), and those are put back, so
/// the checkout is as it was; or, when that fails too, each is named with how to finish.
fn after_a_failed_move(dir: &Path, from: &str, to: &str, error: &nodwyn_git::Error) -> String {
    let shown = dir.display();
    let moved = match nodwyn_git::repair::moved_files(dir, from, to) {
        Ok(moved) => moved,
        Err(why) => {
            return format!(
                "git merge --ff-only in {shown} did not move it ({error}), and what it left could not be read ({why}): check `git -C {shown} status`"
            );
        }
    };
    if moved.is_empty() {
        return format!(
            "git merge --ff-only in {shown} did not move it, and left its files as they were: {error}"
        );
    }
    match nodwyn_git::repair::put_back_move(dir, from, &moved) {
        Ok(()) => format!(
            "git merge --ff-only in {shown} stopped midway ({error}); the {} file(s) it had written were put back, so the checkout is as it was",
            moved.len()
        ),
        Err(why) => format!(
            "git merge --ff-only in {shown} stopped midway ({error}) and {} file(s) there now hold the landed commit's content ({}), which could not be put back ({why}); finish with `git -C {shown} merge --ff-only {to}`, or put them back with `git -C {shown} checkout HEAD -- .`",
            moved.len(),
            super::named(&moved)
        ),
    }
}
