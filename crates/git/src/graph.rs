//! Questions about the commit graph (ancestry, merge bases, trees) and moving a ref by
//! compare-and-swap, for steps that rewrite where a branch points.

use std::path::Path;

use crate::Error;
use crate::command::GitCommand;
use crate::repo::{oid, open};

/// Whether `ancestor` is `descendant` or one of its ancestors (both full commit ids).
pub fn is_ancestor(dir: &Path, ancestor: &str, descendant: &str) -> Result<bool, Error> {
    let repo = open(dir)?;
    let (a, d) = (oid(dir, ancestor)?, oid(dir, descendant)?);
    Ok(a == d || repo.graph_descendant_of(d, a).map_err(Error::read(dir))?)
}

/// The best common ancestor of two commits, or `None` when they share no history.
pub fn merge_base(dir: &Path, one: &str, other: &str) -> Result<Option<String>, Error> {
    let repo = open(dir)?;
    match repo.merge_base(oid(dir, one)?, oid(dir, other)?) {
        Ok(base) => Ok(Some(base.to_string())),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(Error::read(dir)(e)),
    }
}

/// The tree of `commit`.
pub fn tree_of(dir: &Path, commit: &str) -> Result<String, Error> {
    let repo = open(dir)?;
    let commit = repo
        .find_commit(oid(dir, commit)?)
        .map_err(Error::read(dir))?;
    Ok(commit.tree_id().to_string())
}

/// The commits after `base` up to `tip`, oldest first (`git rev-list --reverse base..tip`).
pub fn commits_between(dir: &Path, base: &str, tip: &str) -> Result<Vec<String>, Error> {
    let text = GitCommand::new(dir)
        .read_only()
        .args(["rev-list", "--reverse", &format!("{base}..{tip}"), "--"])
        .run_text()?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// Points `reference` at `new` if, and only if, it still points at `old` (`""`: only if it does
/// not exist yet); compare-and-swap through `git update-ref`, which also writes the reflog. It runs
/// shielded from the terminal's Ctrl-C: a ref moves whole or not at all.
pub fn update_ref(
    dir: &Path,
    reference: &str,
    new: &str,
    old: &str,
    reason: &str,
) -> Result<(), Error> {
    GitCommand::new(dir)
        .shielded()
        .args(["update-ref", "-m", reason, reference, new, old])
        .run()
        .map(drop)
}

/// `git merge --ff-only COMMIT` in the checkout at `dir`: its branch moves forward to `commit`
/// and its files follow, or git refuses and nothing changes.
pub fn merge_fast_forward(dir: &Path, commit: &str) -> Result<(), Error> {
    GitCommand::new(dir)
        .without_prompts()
        .args([
            "merge",
            "--ff-only",
            "--no-overwrite-ignore",
            "--quiet",
            "--no-edit",
            commit,
        ])
        .run()
        .map(drop)
}
