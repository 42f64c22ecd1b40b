//! Taking a worktree away: its folder through `git worktree remove`, and its branch only when the
//! base already has the branch's work and no other checkout uses it. Shared by `close`, `prune`
//! and `remove`, which each decide beforehand whether the folder may go.

use nodwyn_git::refs::delete_branch_at;
use nodwyn_git::repo::branch_tip;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, Record, RemovalSnapshot, RemovedBy, WorktreeFacts};
use crate::log::EventLog;
use crate::worktree::verdict::{Bases, checked_out_elsewhere, registration};

/// What happened to a worktree's branch when its folder went.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BranchOutcome {
    /// Whether the branch was deleted.
    pub deleted: bool,
    /// Why it stayed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// Removes the folder (if git still has it registered or it is still on disk), then settles the
/// branch, and records `worktree.remove`.
pub(crate) fn remove_worktree(
    log: &EventLog,
    facts: &WorktreeFacts,
    force: bool,
    discarded: Vec<String>,
    snapshot: Option<RemovalSnapshot>,
    by: RemovedBy,
) -> Result<BranchOutcome, Error> {
    if registration(&facts.repository, &facts.path)?.is_some() {
        crate::worktree::trash::take_away(&facts.repository, &facts.path, force)?;
    } else if let Some(moved) =
        checked_out_elsewhere(&facts.repository, &facts.branch, &facts.path)?
    {
        // Nothing is recorded that did not happen: the worktree lives on where git says it is.
        return Err(Error::declined(
            "worktree_moved",
            format!(
                "the worktree of {} is now at {} (moved with `git worktree move`), so nodwyn removes nothing and records nothing; move it back to {}, or run `git worktree remove` there yourself",
                facts.branch,
                moved.display(),
                facts.path.display()
            ),
        ));
    } else if facts.path.exists() {
        return Err(Error::declined(
            "not_a_worktree",
            format!(
                "{} is no longer a worktree git knows, so nodwyn leaves the folder and records nothing",
                facts.path.display()
            ),
        ));
    }
    crate::worktree::trash::empty_beside(&facts.path);
    nodwyn_prim::fault::point("removed-unrecorded");
    let branch = settle_branch(facts)?;
    log.append(&Record::new(
        Timestamp::now(),
        Event::WorktreeRemove {
            path: facts.path.clone(),
            branch: facts.branch.clone(),
            branch_deleted: branch.deleted,
            branch_kept: branch.kept.clone(),
            discarded,
            snapshot,
            by,
        },
    ))?;
    // The snapshots of its files taken as turns began serve reviews of that worktree alone.
    let kept = crate::store::kept_objects_beside(log.path());
    if let Err(error) = std::fs::remove_dir_all(&kept)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(folder = %kept.display(), %error, "the worktree's snapshots were not removed");
    }
    Ok(branch)
}

/// Deletes the session's branch if its work has landed and no checkout has it; otherwise says
/// why it stays.
fn settle_branch(facts: &WorktreeFacts) -> Result<BranchOutcome, Error> {
    let repository = &facts.repository;
    let Some(tip) = branch_tip(repository, &facts.branch)? else {
        return Ok(BranchOutcome::default());
    };
    let kept = |why: String| {
        Ok(BranchOutcome {
            deleted: false,
            kept: Some(why),
        })
    };
    if let Some(elsewhere) = checked_out_elsewhere(repository, &facts.branch, &facts.path)? {
        return kept(format!("it is checked out in {}", elsewhere.display()));
    }
    let bases = Bases::of(facts)?;
    if let Some(count) = bases.unlanded(repository, &tip)? {
        return kept(format!(
            "it has {count} commit(s) that its base lacks; `git branch -D {}` deletes it",
            facts.branch
        ));
    }
    if let Err(e) = delete_branch_at(repository, &facts.branch, &tip) {
        tracing::warn!(error = %e, branch = facts.branch, "branch not deleted");
        return kept("it moved while nodwyn was removing the worktree".to_owned());
    }
    Ok(BranchOutcome {
        deleted: true,
        kept: None,
    })
}
