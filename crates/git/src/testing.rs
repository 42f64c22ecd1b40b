//! Repositories the crate's tests change: a few files, a linked worktree, git run as a test
//! would run it.

use std::path::{Path, PathBuf};

use crate::command::GitCommand;

pub(crate) fn git(dir: &Path, args: &[&str]) {
    GitCommand::new(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .run()
        .unwrap();
}

pub(crate) fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository of a few files (one executable, one symlink, one in an ignored folder) and a
/// linked worktree of it, as `nodwyn worktree new` makes; the worktree's folder.
pub(crate) fn worktree(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    write(&repo, "a.txt", "alpha\n");
    write(&repo, "run.sh", "#!/bin/sh\n");
    write(&repo, "dir/b.txt", "beta\n");
    write(&repo, "dir/deep/c.txt", "gamma\n");
    write(&repo, ".gitignore", "*.log\nignored/\nbuild/\n");
    write(&repo, "build/keep.txt", "kept\n");
    std::fs::set_permissions(
        repo.join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("a.txt", repo.join("link")).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["add", "-f", "build/keep.txt"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let worktree = dir.join("worktree");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            worktree.to_str().unwrap(),
        ],
    );
    worktree
}
