//! `worktree restore`: a forced removal taken back. The session's worktree is made again on its
//! branch (made again at the snapshot's parent, the HEAD it had, when the removal deleted it) and
//! the files the removal discarded are written back from the snapshot; the session is open again.

use crate::Error;
use crate::event::RemovalSnapshot;
use crate::session::{Session, WorktreeState};
use crate::store::Store;
use crate::worktree::resume::{Resumed, resume_with};

/// Makes session `id`'s worktree again with what its latest forced removal discarded.
pub fn restore(store: &Store, id: &str) -> Result<(Resumed, RemovalSnapshot), Error> {
    let session = Session::load(&store.find(id)?)?;
    let short = session.id.short().to_owned();
    let Some(facts) = &session.worktree else {
        return Err(Error::NoWorktree(session.id.to_string()));
    };
    let Some(snapshot) = session.removal_snapshot.clone() else {
        return Err(Error::declined(
            "no_snapshot",
            match session.worktree_state {
                WorktreeState::Removed => format!(
                    "session {short}'s worktree was removed with nothing discarded, so there is nothing to restore; `nodwyn worktree resume {short}` makes it again"
                ),
                _ => format!(
                    "session {short} has no forced removal to take back (only `worktree remove --force` keeps a snapshot)"
                ),
            },
        ));
    };
    if session.worktree_state != WorktreeState::Removed {
        return Err(Error::declined(
            "worktree_present",
            format!(
                "session {short}'s worktree is there ({}), so nothing is restored over it",
                facts.path.display()
            ),
        ));
    }
    let kept = nodwyn_git::repo::resolve_commit(&facts.repository, &snapshot.reference)?;
    if kept.as_deref() != Some(snapshot.commit.as_str()) {
        return Err(Error::declined(
            "snapshot_gone",
            format!(
                "the snapshot of session {short}'s removal ({}) is gone (dropped by `worktree prune` once older than the configured age, or deleted by hand), so nothing is restored",
                snapshot.reference
            ),
        ));
    }
    if nodwyn_git::repo::branch_tip(&facts.repository, &facts.branch)?.is_none() {
        // The removal deleted the branch (its base had its commits): it comes back at the HEAD
        // the worktree had, so the files go back onto what they were changes of.
        let head = nodwyn_git::commit::parts(&facts.repository, &snapshot.commit)?
            .parent
            .ok_or_else(|| Error::declined("snapshot_gone", "the snapshot has no parent commit"))?;
        nodwyn_git::graph::update_ref(
            &facts.repository,
            &format!("refs/heads/{}", facts.branch),
            &head,
            "",
            "nodwyn: worktree restore",
        )?;
    }
    let resumed = resume_with(store, id, Some(&snapshot))?;
    Ok((resumed, snapshot))
}
