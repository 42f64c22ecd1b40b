//! Whether a branch's work is already on its base: by ancestry, and by content.
//!
//! A branch that was squash-merged, rebased or cherry-picked onto its base has commits the base
//! does not contain by ancestry, yet nothing of it would be lost. The judgement, cheapest test
//! first, calls a tip *landed* on a base when
//!
//! 1. the tip is the base or one of its ancestors;
//! 2. the tip's tree equals the base's tree;
//! 3. merging the tip into the base would add nothing (`git merge-tree` gives the base's tree,
//!    which covers squash merges); or
//! 4. the tip has no merge commit of its own and every one of its commits has a patch-id already
//!    on the base (`git rev-list --cherry-pick`, which covers rebases and cherry-picks).
//!
//! Each test only ever answers "landed" when the base already holds the tip's changes, so
//! unlanded work is never called landed. Test 3 writes the merged tree's objects into the object
//! store (that is how `git merge-tree --write-tree` answers); nothing refers to them, and
//! `git gc` collects them.

use std::path::Path;

use git2::{Oid, Repository};

use crate::Error;
use crate::command::GitCommand;
use crate::repo::{oid, open};

/// How many commits `tip` has that `base` lacks by ancestry.
pub fn commits_ahead(dir: &Path, tip: &str, base: &str) -> Result<usize, Error> {
    let repo = open(dir)?;
    let (tip, base) = (oid(dir, tip)?, oid(dir, base)?);
    let (ahead, _) = repo
        .graph_ahead_behind(tip, base)
        .map_err(Error::read(dir))?;
    Ok(ahead)
}

/// Whether everything `tip` changes is already on `base` (see the module documentation).
pub fn is_landed(dir: &Path, tip: &str, base: &str) -> Result<bool, Error> {
    let repo = open(dir)?;
    let (tip_id, base_id) = (oid(dir, tip)?, oid(dir, base)?);
    if tip_id == base_id
        || repo
            .graph_descendant_of(base_id, tip_id)
            .map_err(Error::read(dir))?
    {
        return Ok(true);
    }
    let base_tree = tree_of(&repo, dir, base_id)?;
    if tree_of(&repo, dir, tip_id)? == base_tree {
        return Ok(true);
    }
    if merge_adds_nothing(dir, tip, base, base_tree)? {
        return Ok(true);
    }
    every_patch_on_base(dir, tip, base)
}

fn merge_adds_nothing(dir: &Path, tip: &str, base: &str, base_tree: Oid) -> Result<bool, Error> {
    // A read: no merge driver a repository's attributes name may run.
    let output = GitCommand::new(dir)
        .without_attributes()
        .args(["merge-tree", "--write-tree", "--no-messages", base, tip])
        .output()?;
    // Exit 1 means conflicts (so the merge would change something); other codes, such as
    // unrelated histories, leave the question to the next test.
    if !output.status.success() {
        return Ok(false);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let merged = text.lines().next().unwrap_or_default().trim();
    Ok(Oid::from_str(merged).is_ok_and(|tree| tree == base_tree))
}

fn every_patch_on_base(dir: &Path, tip: &str, base: &str) -> Result<bool, Error> {
    let range = format!("{base}..{tip}");
    let merges = GitCommand::new(dir)
        .read_only()
        .args(["rev-list", "--merges", "--count", &range])
        .run_text()?;
    if merges != "0" {
        return Ok(false);
    }
    let symmetric = format!("{base}...{tip}");
    let unmatched = GitCommand::new(dir)
        .read_only()
        .args([
            "rev-list",
            "--right-only",
            "--cherry-pick",
            "--no-merges",
            "--count",
            &symmetric,
        ])
        .run_text()?;
    Ok(unmatched == "0")
}

fn tree_of(repo: &Repository, dir: &Path, commit: Oid) -> Result<Oid, Error> {
    Ok(repo
        .find_commit(commit)
        .map_err(Error::read(dir))?
        .tree_id())
}
