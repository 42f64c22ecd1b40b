//! Making commits the way the person's own `git` would: staging, reading what is staged, taking
//! paths out of the index again, `git commit` (hooks and signing as configured) and
//! `git commit-tree` for commits nodwyn assembles itself (a squash, a merge).

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};

/// A pathspec that matches `path` exactly: no glob or other pathspec magic, whatever the name.
fn literal(path: &str) -> String {
    format!(":(literal){path}")
}

/// `git add --all`: stages every change of the checkout, new, changed and deleted files alike.
pub fn stage_all(dir: &Path) -> Result<(), Error> {
    GitCommand::new(dir).args(["add", "--all"]).run().map(drop)
}

/// The paths whose staged content differs from HEAD, each on its own (renames are read as a
/// deletion and an addition, so a rename's two paths are two entries).
pub fn staged_paths(dir: &Path) -> Result<Vec<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args([
            "diff",
            "--cached",
            "--name-only",
            "--no-renames",
            "--no-ext-diff",
            "-z",
            "HEAD",
            "--",
        ])
        .run()?;
    Ok(nul_records(&stdout).collect())
}

/// Puts the index entries of `paths` back to what HEAD has (`git reset HEAD -- PATH...`): a new
/// file leaves the index, a changed one goes back to its committed content. The files on disk
/// are not touched.
pub fn unstage(dir: &Path, paths: &[String]) -> Result<(), Error> {
    if paths.is_empty() {
        return Ok(());
    }
    GitCommand::new(dir)
        .args(["reset", "--quiet", "HEAD", "--"])
        .args(paths.iter().map(|p| literal(p)))
        .run()
        .map(drop)
}

/// `git commit` of the index with `message`, hooks and signing as the person configured them,
/// no editor and no prompt. Returns the new commit.
pub fn commit(dir: &Path, message: &str) -> Result<String, Error> {
    GitCommand::new(dir)
        .without_prompts()
        .args([
            "commit",
            "--quiet",
            "--no-edit",
            "--cleanup=strip",
            "-m",
            message,
        ])
        .run()?;
    crate::repo::resolve_commit(dir, "HEAD")?.ok_or_else(|| Error::BadRevision("HEAD".to_owned()))
}

/// A commit of `tree` with `parents` and `message`, made by `git commit-tree` (which runs no
/// hook), signed (`-S`, the person's key and format) when `sign` is set. Returns it.
pub fn commit_tree(
    dir: &Path,
    tree: &str,
    parents: &[&str],
    message: &str,
    sign: bool,
) -> Result<String, Error> {
    let mut command = GitCommand::new(dir)
        .without_prompts()
        .args(["commit-tree", tree]);
    for parent in parents {
        command = command.args(["-p", parent]);
    }
    if sign {
        command = command.arg("-S");
    }
    command.args(["-m", message]).run_text()
}
