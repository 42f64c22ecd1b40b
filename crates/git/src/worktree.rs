//! Making, listing and removing linked worktrees, always through the `git` program so the
//! person's hooks (`post-checkout`) and filters (LFS) run as with their own `git worktree add`.
//!
//! git races with itself when several `git worktree add` run on one repository at once: one
//! reads another's half-written `.git/worktrees/<name>/commondir` and fails (seen with eight at
//! once: "failed to read .git/worktrees/…/commondir"). So nodwyn's additions and removals take
//! turns, holding an exclusive lock on `nodwyn-worktrees.lock` in the git common directory.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::command::GitCommand;

/// One worktree as `git worktree list` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredWorktree {
    /// Its folder, as git recorded it.
    pub path: PathBuf,
    /// The commit it has checked out (absent for a bare entry).
    pub head: Option<String>,
    /// The full ref of its branch (`refs/heads/...`), or `None` when detached.
    pub branch: Option<String>,
    /// Whether a person locked it with `git worktree lock`.
    pub locked: bool,
    /// Whether git considers its folder gone.
    pub prunable: bool,
}

/// Makes a worktree at `path` on a new branch `branch` starting at `start`. No upstream is set
/// up (`--no-track`), so the shared `.git/config` is not written and parallel calls do not fight
/// over `config.lock`.
pub fn add_with_new_branch(
    repository: &Path,
    path: &Path,
    branch: &str,
    start: &str,
) -> Result<(), Error> {
    let _turn = crate::turns::take(repository, crate::turns::WORKTREES)?;
    GitCommand::new(repository)
        .args(["worktree", "add", "--no-track", "-b", branch])
        .arg(path)
        .arg(start)
        .run()
        .map(drop)
}

/// Makes a worktree at `path` on the existing branch `branch`.
pub fn add_on_branch(repository: &Path, path: &Path, branch: &str) -> Result<(), Error> {
    let _turn = crate::turns::take(repository, crate::turns::WORKTREES)?;
    GitCommand::new(repository)
        .args(["worktree", "add"])
        .arg(path)
        .arg(branch)
        .run()
        .map(drop)
}

/// Runs `git worktree remove`, which refuses a worktree with changes unless `force`. For a
/// worktree whose folder is gone, this unregisters that one path and nothing else (unlike
/// `git worktree prune`, which would drop every worktree whose disk is not mounted).
pub fn remove(repository: &Path, path: &Path, force: bool) -> Result<(), Error> {
    let _turn = crate::turns::take(repository, crate::turns::WORKTREES)?;
    let mut command = GitCommand::new(repository).args(["worktree", "remove"]);
    if force {
        command = command.arg("--force");
    }
    command.arg(path).run().map(drop)
}

/// Every worktree of the repository, the main one first.
pub fn list(repository: &Path) -> Result<Vec<RegisteredWorktree>, Error> {
    let stdout = GitCommand::new(repository)
        .read_only()
        .args(["worktree", "list", "--porcelain", "-z"])
        .run()?;
    Ok(parse_list(&stdout))
}

fn parse_list(stdout: &[u8]) -> Vec<RegisteredWorktree> {
    let mut worktrees = Vec::new();
    let mut current: Option<RegisteredWorktree> = None;
    // Attributes end in NUL; an empty attribute ends a record.
    for field in stdout.split(|b| *b == 0) {
        let field = String::from_utf8_lossy(field);
        if field.is_empty() {
            worktrees.extend(current.take());
            continue;
        }
        let (key, value) = field.split_once(' ').unwrap_or((&field, ""));
        if key == "worktree" {
            worktrees.extend(current.take());
            current = Some(RegisteredWorktree {
                path: PathBuf::from(value),
                head: None,
                branch: None,
                locked: false,
                prunable: false,
            });
            continue;
        }
        let Some(worktree) = current.as_mut() else {
            continue;
        };
        match key {
            "HEAD" => worktree.head = Some(value.to_owned()),
            "branch" => worktree.branch = Some(value.to_owned()),
            "locked" => worktree.locked = true,
            "prunable" => worktree.prunable = true,
            _ => {}
        }
    }
    worktrees.extend(current);
    worktrees
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_porcelain_records() {
        let out = b"worktree /r\0HEAD aaaa\0branch refs/heads/main\0\0worktree /r/.nodwyn/worktrees/x\0HEAD bbbb\0detached\0locked\0\0worktree /gone\0HEAD cccc\0branch refs/heads/y\0prunable gitdir file points to non-existent location\0\0";
        let list = parse_list(out);
        assert_eq!(list.len(), 3);
        assert_eq!(list[0].branch.as_deref(), Some("refs/heads/main"));
        assert_eq!(list[1].branch, None);
        assert!(list[1].locked);
        assert_eq!(list[1].head.as_deref(), Some("bbbb"));
        assert!(list[2].prunable);
        assert_eq!(list[2].path, PathBuf::from("/gone"));
    }
}
