//! Moving a worktree's branch, index and files from one commit to another, and putting files
//! back, without losing anything git has no business overwriting.
//!
//! `git checkout`, `git rebase` and `git read-tree -u` all overwrite an *ignored* file that stands
//! where the new commit has a file (a build output, a copied `.env`), and `reset --hard`,
//! `rebase --abort` or `checkout -f` overwrite changes too. Nothing here does: [`in_the_way`]
//! names every untracked or ignored file a move would touch so the caller refuses first,
//! [`switch`] moves by a two-way `git read-tree -m -u` (which refuses to overwrite a change) and
//! a compare-and-swap of the branch, and [`put_back`] writes a commit's version of named paths
//! only, after [`snapshot`] has kept what they held in a commit.

use std::collections::HashSet;
use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_byte_records};

/// The paths `commit` tracks.
pub fn tracked(dir: &Path, commit: &str) -> Result<HashSet<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit])
        .run()?;
    Ok(names(&stdout).into_iter().collect())
}

/// The paths whose content differs between the commits `from` and `to` (renames as a deletion
/// and an addition).
pub fn changed_between(dir: &Path, from: &str, to: &str) -> Result<Vec<String>, Error> {
    crate::diff::paths_between(dir, from, to, false)
}

/// What in the worktree at `dir` (whose index and HEAD are at `from`) stands in the way of
/// moving to `to`: untracked or ignored files, links or folders where `to` has a file, files
/// where it needs a folder, and changes to tracked files the move would replace. Empty when the
/// move overwrites nothing but `from`'s own content.
pub fn in_the_way(dir: &Path, from: &str, to: &str) -> Result<Vec<String>, Error> {
    let changed = changed_between(dir, from, to)?;
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    let was_tracked = tracked(dir, from)?;
    let mut found = Vec::new();
    for path in &changed {
        if was_tracked.contains(path) {
            continue;
        }
        if std::fs::symlink_metadata(on_disk(dir, path)).is_ok() {
            found.push(path.clone());
            continue;
        }
        let os_name = crate::quote::os_name(path);
        let mut ancestor = Path::new(&os_name).parent();
        while let Some(folder) = ancestor.filter(|a| !a.as_os_str().is_empty()) {
            let name = crate::quote::quote(folder.as_os_str().as_encoded_bytes());
            if !was_tracked.contains(&name)
                && std::fs::symlink_metadata(dir.join(folder)).is_ok_and(|m| !m.is_dir())
            {
                found.push(name);
                break;
            }
            ancestor = folder.parent();
        }
    }
    let changed: HashSet<&String> = changed.iter().collect();
    for path in uncommitted(dir, from)? {
        if changed.contains(&path) {
            found.push(path);
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Tracked paths whose file or index entry differs from `commit`.
fn uncommitted(dir: &Path, commit: &str) -> Result<Vec<String>, Error> {
    let mut paths = Vec::new();
    for cached in [false, true] {
        let mut command = GitCommand::new(dir).read_only().args([
            "diff",
            "--name-only",
            "--no-renames",
            "--no-ext-diff",
            "-z",
        ]);
        if cached {
            command = command.args(["--cached", commit]);
        }
        paths.extend(names(&command.arg("--").run()?));
    }
    Ok(paths)
}

/// Moves the checked-out `branch` of the worktree at `dir` from the commit `from` to `to`: its
/// files and index by a two-way `git read-tree -m -u` (git refuses, changing nothing, when that
/// would overwrite a change), then the branch by compare-and-swap. If the branch moved meanwhile,
/// the files go back to `from` and the error is returned. Both steps run shielded from the
/// terminal's Ctrl-C; call [`in_the_way`] first, since read-tree overwrites ignored files.
pub fn switch(dir: &Path, branch: &str, from: &str, to: &str, reason: &str) -> Result<(), Error> {
    read_tree_move(dir, from, to)?;
    let moved = crate::graph::update_ref(dir, &format!("refs/heads/{branch}"), to, from, reason);
    if let Err(error) = moved {
        read_tree_move(dir, to, from)?;
        return Err(error);
    }
    Ok(())
}

fn read_tree_move(dir: &Path, from: &str, to: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .shielded()
        .args(["read-tree", "-m", "-u", from, to])
        .run()
        .map(drop)
}

/// The paths where the worktree at `dir` differs from `commit`: files `commit` tracks that are
/// changed or missing, and those of `made` (paths something may have written) that exist though
/// `commit` does not track them.
pub fn differing(dir: &Path, commit: &str, made: &[String]) -> Result<Vec<String>, Error> {
    let scratch = ScratchIndex::new(dir, commit)?;
    scratch
        .command(dir)
        .args(["update-index", "-q", "--refresh"])
        .output()?;
    let stdout = scratch
        .command(dir)
        .read_only()
        .args(["diff-files", "--name-only", "-z", "--"])
        .run()?;
    let mut paths: Vec<String> = names(&stdout);
    let tracked = tracked(dir, commit)?;
    paths.extend(
        made.iter()
            .filter(|p| !tracked.contains(*p))
            .filter(|p| std::fs::symlink_metadata(on_disk(dir, p)).is_ok_and(|m| !m.is_dir()))
            .cloned(),
    );
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// A commit on `parent` that holds what the worktree at `dir` has now at `paths` (a missing file
/// as deleted), and `parent`'s content elsewhere: what [`put_back`] will overwrite, kept.
pub fn snapshot(
    dir: &Path,
    parent: &str,
    paths: &[String],
    message: &str,
) -> Result<String, Error> {
    let scratch = ScratchIndex::new(dir, parent)?;
    scratch
        .command(dir)
        .args(["update-index", "--add", "--remove", "-z", "--stdin"])
        .input(nul_list(paths))
        .run()?;
    let tree = scratch.command(dir).args(["write-tree"]).run_text()?;
    crate::commit::commit_tree(dir, &tree, &[parent], message, false)
}

/// Writes `commit`'s version of each of `paths` into the worktree at `dir` (removing the files
/// it does not track), then makes the index `commit`'s tree. Other files are not touched.
pub fn put_back(dir: &Path, commit: &str, paths: &[String]) -> Result<(), Error> {
    let tracked = tracked(dir, commit)?;
    let (present, absent): (Vec<&String>, Vec<&String>) =
        paths.iter().partition(|p| tracked.contains(*p));
    for path in absent {
        let file = on_disk(dir, path);
        if std::fs::symlink_metadata(&file).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(&file).map_err(|source| Error::Io { path: file, source })?;
        }
    }
    if !present.is_empty() {
        let scratch = ScratchIndex::new(dir, commit)?;
        scratch
            .command(dir)
            .shielded()
            .args(["checkout-index", "--force", "-z", "--stdin"])
            .input(nul_list(present))
            .run()?;
    }
    reset_index(dir, commit)
}

/// Writes the files of `commit` into the worktree at `dir` (`git restore --worktree`): each file
/// it has, tracked or not, as it has it, and the tracked files it lacks removed. The index is left
/// as it is, so what differs from HEAD shows as changes and the new files as untracked ones;
/// ignored files and untracked files `commit` does not have are not touched.
pub fn write_files_of(dir: &Path, commit: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .shielded()
        .args([
            "restore",
            "--no-overlay",
            "--worktree",
            "--source",
            commit,
            "--",
            ":/",
        ])
        .run()
        .map(drop)
}

/// Makes the index of the checkout at `dir` `commit`'s tree, touching no file (git's mixed
/// reset), and refreshes what it knows of the files on disk.
pub fn reset_index(dir: &Path, commit: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .shielded()
        .args(["read-tree", commit])
        .run()?;
    GitCommand::new(dir)
        .args(["update-index", "-q", "--refresh"])
        .output()
        .map(drop)
}

/// The names of `-z` output, as [`crate::quote`] shows them.
fn names(stdout: &[u8]) -> Vec<String> {
    nul_byte_records(stdout).map(crate::quote::quote).collect()
}

/// Where a name (as [`crate::quote`] shows it) is on disk, under `dir`.
fn on_disk(dir: &Path, name: &str) -> std::path::PathBuf {
    dir.join(crate::quote::os_name(name))
}

/// Paths for a `-z --stdin` list: each one's bytes (a quoted name read back) and a NUL.
fn nul_list<S: AsRef<str>>(paths: impl IntoIterator<Item = S>) -> Vec<u8> {
    let mut list = Vec::new();
    for path in paths {
        list.extend_from_slice(crate::quote::os_name(path.as_ref()).as_encoded_bytes());
        list.push(0);
    }
    list
}

/// A temporary index in the checkout's git folder, loaded with a commit's tree; git commands
/// run against it leave the real index alone.
struct ScratchIndex {
    _folder: tempfile::TempDir,
    file: std::path::PathBuf,
}

impl ScratchIndex {
    fn new(dir: &Path, commit: &str) -> Result<Self, Error> {
        let git_dir = crate::repo::discover(dir)?.git_dir;
        let folder = tempfile::Builder::new()
            .prefix("nodwyn-index-")
            .tempdir_in(&git_dir)
            .map_err(|source| Error::Io {
                path: git_dir.clone(),
                source,
            })?;
        let file = folder.path().join("index");
        let scratch = Self {
            _folder: folder,
            file,
        };
        scratch.command(dir).args(["read-tree", commit]).run()?;
        Ok(scratch)
    }

    fn command(&self, dir: &Path) -> GitCommand {
        GitCommand::new(dir).env("GIT_INDEX_FILE", &self.file)
    }
}
