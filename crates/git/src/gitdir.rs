//! Which git directory nodwyn's git runs against in a folder, found without trusting what the
//! folder's content says.
//!
//! A linked worktree's `.git` is a file in the worktree naming its git directory, and whoever
//! writes the worktree can change it: pointed at a repository made for the purpose, git would
//! read that repository's configuration and run what it names (an fsmonitor program, a filter)
//! with the person's rights, on a mere `git status`. So before nodwyn runs git or libgit2 in a
//! linked worktree, the file is checked against the repository side: it must name
//! `<common>/worktrees/<name>` of a repository with a working tree, outside the worktree, whose
//! `gitdir` names this very `.git` back. The run is then pinned to that directory (`GIT_DIR` and
//! `GIT_WORK_TREE`), so nothing reads the file again between the check and git's start.
//!
//! A main checkout's `.git` is a folder, whose content commands cannot write (see nodwyn-proc);
//! it is used as it is.

use std::path::{Path, PathBuf};

use crate::Error;

/// Where git runs for a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitDir {
    /// A main checkout, a nested repository, or no repository at all: git finds its own way.
    Plain,
    /// A linked worktree whose `.git` file was checked: its top folder and its git directory.
    Linked {
        /// The worktree's top folder.
        top: PathBuf,
        /// Its git directory, `<common>/worktrees/<name>`.
        git_dir: PathBuf,
    },
}

/// The git directory of the checkout holding `dir`, or why the checkout's `.git` cannot be
/// trusted.
pub fn of(dir: &Path) -> Result<GitDir, Error> {
    let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for top in start.ancestors() {
        let entry = top.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&entry) else {
            continue;
        };
        if meta.is_dir() {
            return Ok(GitDir::Plain);
        }
        let refuse = |why: &str| Error::Redirected {
            dir: top.to_path_buf(),
            why: why.to_owned(),
        };
        if !meta.is_file() {
            return Err(refuse("its .git is a link"));
        }
        let git_dir = linked(top, &entry).map_err(|why| refuse(&why))?;
        return Ok(GitDir::Linked {
            top: top.to_path_buf(),
            git_dir,
        });
    }
    Ok(GitDir::Plain)
}

/// The git directory the `.git` file `entry` of the worktree `top` names, once checked.
fn linked(top: &Path, entry: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(entry).map_err(|e| format!("its .git: {e}"))?;
    let named = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|named| !named.is_empty())
        .ok_or("its .git names no git directory")?;
    let git_dir = top
        .join(named)
        .canonicalize()
        .map_err(|_| "its .git names a git directory that does not exist".to_owned())?;
    let registry = git_dir.parent().filter(|p| p.ends_with("worktrees"));
    let Some(common) = registry.and_then(Path::parent) else {
        return Err("its .git names no repository's worktree".to_owned());
    };
    let Some(main) = common.parent().filter(|_| common.ends_with(".git")) else {
        return Err("its .git names a repository without a working tree".to_owned());
    };
    if common.starts_with(top) || main.starts_with(top) {
        return Err("its .git names a repository inside the worktree itself".to_owned());
    }
    let main_entry = main.join(".git");
    if !std::fs::symlink_metadata(&main_entry).is_ok_and(|m| m.is_dir())
        || main_entry.canonicalize().ok().as_deref() != Some(common)
    {
        return Err("its .git names a repository that is no checkout's".to_owned());
    }
    let back = std::fs::read_to_string(git_dir.join("gitdir")).unwrap_or_default();
    let back = Path::new(back.trim());
    if back.canonicalize().ok().as_deref() != entry.canonicalize().ok().as_deref() {
        return Err("the repository does not know this worktree there".to_owned());
    }
    let shared = std::fs::read_to_string(git_dir.join("commondir")).unwrap_or_default();
    if git_dir.join(shared.trim()).canonicalize().ok().as_deref() != Some(common) {
        return Err("the worktree's git directory belongs to another repository".to_owned());
    }
    Ok(git_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ran = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(ran.status.success(), "{ran:?}");
    }

    /// A repository with one commit and a linked worktree `wt` beside it.
    fn repository_with_worktree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        git(
            &repo,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "one",
            ],
        );
        git(&repo, &["worktree", "add", "-q", "../wt", "-b", "side"]);
        (dir, repo, root.join("wt"))
    }

    #[test]
    fn a_worktree_is_pinned_to_its_own_git_directory() {
        let (_dir, repo, wt) = repository_with_worktree();
        std::fs::create_dir(wt.join("sub")).unwrap();
        assert_eq!(
            of(&wt.join("sub")).unwrap(),
            GitDir::Linked {
                top: wt.clone(),
                git_dir: repo.join(".git/worktrees/wt"),
            }
        );
        assert_eq!(of(&repo).unwrap(), GitDir::Plain);
    }

    #[test]
    fn a_git_file_pointed_at_another_repository_is_refused() {
        let (_dir, _repo, wt) = repository_with_worktree();
        // A repository made inside the worktree, with a worktree entry naming it back.
        let evil = wt.join("evil");
        std::fs::create_dir(&evil).unwrap();
        git(&evil, &["init", "-q"]);
        let admin = evil.join(".git/worktrees/wt");
        std::fs::create_dir_all(&admin).unwrap();
        std::fs::write(
            admin.join("gitdir"),
            format!("{}\n", wt.join(".git").display()),
        )
        .unwrap();
        std::fs::write(admin.join("commondir"), "../..\n").unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
        let refused = of(&wt).unwrap_err();
        assert_eq!(refused.code(), "worktree_redirected");
        assert!(
            refused.to_string().contains("inside the worktree"),
            "{refused}"
        );
        // Beside it, elsewhere: the repository must know the worktree at this path.
        std::fs::write(wt.join(".git"), "gitdir: /nonexistent\n").unwrap();
        assert!(of(&wt).is_err());
    }

    #[test]
    fn a_git_file_of_another_repositorys_worktree_is_refused() {
        let (_dir, _repo, wt) = repository_with_worktree();
        let (_other_dir, _other, other_wt) = repository_with_worktree();
        let other_git = std::fs::read_to_string(other_wt.join(".git")).unwrap();
        std::fs::write(wt.join(".git"), other_git).unwrap();
        let refused = of(&wt).unwrap_err();
        assert!(
            refused.to_string().contains("does not know this worktree"),
            "{refused}"
        );
    }
}
