//! The check that comes before nodwyn runs git in a session's worktree: the folder must still be
//! that worktree of that repository.
//!
//! A worktree's `.git` is a file in the worktree, which whoever writes the worktree can change. If
//! it pointed at another git folder, git would read that folder's configuration (hooks, an
//! fsmonitor program, an ssh command) and run what it names; if it were gone, git would find the
//! repository around the worktree and commit there. So the folder is read with libgit2 first
//! (which runs nothing), and git runs only when its top folder is the worktree and its repository
//! is the session's.

use std::path::Path;

use nodwyn_git::Checkout;

use crate::Error;
use crate::context::WorktreeInfo;

/// The worktree's checkout, or a refusal when the folder is no longer that worktree.
pub fn verified(worktree: &WorktreeInfo) -> Result<Checkout, Error> {
    let gone = |why: &str| {
        Error::declined(
            "not_a_worktree",
            format!(
                "{} is no longer a worktree of {} ({why}), so nodwyn runs no git there; `git worktree repair` in the repository can restore it",
                worktree.path.display(),
                worktree.repository.display()
            ),
        )
    };
    if !worktree.path.is_dir() {
        return Err(Error::declined(
            "worktree_missing",
            format!(
                "the session's worktree {} is missing; `nodwyn worktree resume` makes it again",
                worktree.path.display()
            ),
        ));
    }
    let checkout =
        nodwyn_git::discover(&worktree.path).map_err(|_| gone("git finds no checkout there"))?;
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if real(&checkout.toplevel) != real(&worktree.path) {
        return Err(gone("it has no .git of its own"));
    }
    if real(&checkout.repository) != real(&worktree.repository) {
        return Err(gone("its .git points at another repository"));
    }
    if let Some(recorded) = &worktree.config {
        let now = nodwyn_git::fingerprint::fingerprint(&worktree.path)?;
        let changes = nodwyn_git::fingerprint::differences(recorded, &now);
        if !changes.is_empty() {
            return Err(Error::declined(
                "config_changed",
                format!(
                    "the repository's git configuration changed since the session started ({}): these settings and hooks run programs or choose where a push goes, and something may have planted them, so nodwyn runs no git here until you check them and accept the change on a terminal with `nodwyn session accept-config` (or `nodwyn land --accept-config-change`) and the session's id",
                    changes.join(", ")
                ),
            ));
        }
    }
    Ok(checkout)
}
