//! Rebasing a branch onto a newer base with the `git` program (signing and hooks as the person
//! configured them, no editor), and reading a rebase a conflict stopped.

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};

/// How a rebase ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rebased {
    /// Every commit was applied.
    Done,
    /// A conflict stopped it; these paths are unmerged and the rebase is left in progress.
    Conflict(Vec<String>),
}

/// `git rebase --onto ONTO UPSTREAM` of the checked-out branch in `dir`: the commits after
/// `upstream` are applied on `onto`. With `force`, every commit is made again even where it could
/// be kept as it is (so each one is signed when signing is configured). A stop that is not a
/// conflict (a signing failure, a hook, an interrupt) is returned as the error with the rebase
/// left as it stopped: `git rebase --abort` would reset the worktree, so undoing it is the
/// caller's, by means that overwrite nothing it did not write.
pub fn rebase_onto(dir: &Path, onto: &str, upstream: &str, force: bool) -> Result<Rebased, Error> {
    let mut command = GitCommand::new(dir)
        .without_prompts()
        .env("GIT_EDITOR", "true")
        .args(["rebase", "--quiet", "--no-autosquash", "--no-update-refs"]);
    if force {
        command = command.arg("--force-rebase");
    }
    let args = ["--onto", onto, upstream];
    finish(dir, command.args(args))
}

/// `git rebase --continue` in `dir`, once the conflicted files are resolved and staged.
pub fn continue_rebase(dir: &Path) -> Result<Rebased, Error> {
    let command = GitCommand::new(dir)
        .without_prompts()
        .env("GIT_EDITOR", "true")
        .args(["rebase", "--continue"]);
    finish(dir, command)
}

fn finish(dir: &Path, command: GitCommand) -> Result<Rebased, Error> {
    let failure = match command.run() {
        Ok(_) => return Ok(Rebased::Done),
        Err(failure) => failure,
    };
    let unmerged = unmerged_paths(dir)?;
    if !unmerged.is_empty() {
        return Ok(Rebased::Conflict(unmerged));
    }
    Err(failure)
}

/// The paths git holds as unmerged in `dir`'s index.
pub fn unmerged_paths(dir: &Path) -> Result<Vec<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args([
            "diff",
            "--name-only",
            "--diff-filter=U",
            "--no-ext-diff",
            "-z",
        ])
        .run()?;
    let mut paths: Vec<String> = nul_records(&stdout).collect();
    paths.dedup();
    Ok(paths)
}

/// When a rebase is in progress in the checkout whose git folder is `git_dir`: `Some` of the
/// branch it rebases (`refs/heads/...`, or `None` for a detached HEAD). `None` when no rebase is
/// in progress.
pub fn rebasing_branch(git_dir: &Path) -> Option<Option<String>> {
    for state in ["rebase-merge", "rebase-apply"] {
        let folder = git_dir.join(state);
        if folder.exists() {
            let head = std::fs::read_to_string(folder.join("head-name")).unwrap_or_default();
            let head = head.trim();
            return Some(head.starts_with("refs/").then(|| head.to_owned()));
        }
    }
    None
}
