//! What a checkout has that is not committed.
//!
//! Three questions, three answers: how many lines `git status --porcelain` prints (the
//! `uncommitted` count reported when a worktree is made), the full list of changed, untracked and
//! ignored paths (what closing or removing a worktree would lose), and a quick dirty/clean for
//! listing many worktrees. The last uses libgit2 in-process where it answers exactly as git does,
//! and the `git` program where it does not (sparse checkouts, or a repository libgit2 cannot
//! open), so `dirty` always agrees with `git status`.

use std::path::Path;

use git2::StatusOptions;

use crate::Error;
use crate::command::{GitCommand, nul_byte_records};

/// How `changes` lists untracked and ignored files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// A folder of untracked or ignored files is one entry (`--untracked-files=normal`).
    Folders,
    /// Every file is its own entry (`--untracked-files=all`).
    Files,
}

/// One line of `git status --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The two status letters (`" M"`, `"??"`, `"!!"`, ...).
    pub code: String,
    /// The path, relative to the checkout's top.
    pub path: String,
}

/// How many lines `git status --porcelain` prints in `dir`.
pub fn porcelain_line_count(dir: &Path) -> Result<usize, Error> {
    Ok(porcelain(dir, &[])?.len())
}

/// Every change in `dir` of any kind: staged, unstaged, untracked and ignored.
pub fn changes(dir: &Path, detail: Detail) -> Result<Vec<Change>, Error> {
    let untracked = match detail {
        Detail::Folders => "--untracked-files=normal",
        Detail::Files => "--untracked-files=all",
    };
    let records = porcelain(dir, &["--no-renames", "--ignored=traditional", untracked])?;
    Ok(records
        .into_iter()
        .map(|(code, path)| Change {
            code,
            path: crate::quote::quote(&path),
        })
        .collect())
}

/// Whether `git status` in `dir` would show anything (untracked files count, ignored ones do
/// not).
pub fn is_dirty(dir: &Path) -> Result<bool, Error> {
    match crate::quick_dirty::is_dirty(dir) {
        Some(dirty) => Ok(dirty),
        None => is_dirty_unmodelled(dir),
    }
}

/// [`is_dirty`] where the quick check cannot answer: libgit2's status, else git's.
pub(crate) fn is_dirty_unmodelled(dir: &Path) -> Result<bool, Error> {
    if let Some(dirty) = is_dirty_libgit2(dir) {
        return Ok(dirty);
    }
    is_dirty_by_git(dir)
}

/// `git status`'s own answer to [`is_dirty`] (with the LFS correction), the one the quicker
/// answers must agree with.
pub(crate) fn is_dirty_by_git(dir: &Path) -> Result<bool, Error> {
    Ok(!porcelain(dir, &[])?.is_empty())
}

/// `git status --porcelain=v1 -z` in `dir` with `options`, as (two letters, raw path) records
/// (a rename's old name dropped), read without the repository's attributes and then corrected
/// for LFS files (see [`lfs_corrected`]).
fn porcelain(dir: &Path, options: &[&str]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["status", "--porcelain=v1", "-z"])
        .args(options)
        .run()?;
    let mut records = Vec::new();
    let mut fields = nul_byte_records(&stdout);
    while let Some(record) = fields.next() {
        let (Some(code), Some(path)) = (record.get(..2), record.get(3..)) else {
            continue;
        };
        if matches!(code[0], b'R' | b'C') {
            fields.next(); // the name it was renamed or copied from
        }
        records.push((String::from_utf8_lossy(code).into_owned(), path.to_vec()));
    }
    Ok(lfs_corrected(dir, records))
}

/// Reads run with no attributes, so git calls an LFS file changed whenever it compares the file
/// (the object) with the index (the pointer). Where the person uses LFS (`filter.lfs` is
/// configured), a worktree change whose index entry is a pointer to exactly the file on disk is
/// no change: its worktree letter becomes a space, and a record left with no change goes.
fn lfs_corrected(dir: &Path, records: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    if !records.iter().any(|(code, _)| code.ends_with('M')) {
        return records;
    }
    let Ok(repo) = crate::repo::open(dir) else {
        return records;
    };
    let uses_lfs = repo.config().is_ok_and(|config| {
        config.get_entry("filter.lfs.clean").is_ok()
            || config.get_entry("filter.lfs.process").is_ok()
    });
    let index = repo.index().ok().filter(|_| uses_lfs);
    let Some(index) = index else {
        return records;
    };
    let is_pointer_to_file = |path: &[u8]| {
        let Some(entry) = index.get_path(&crate::quote::path_of(path), 0) else {
            return false;
        };
        let Ok(blob) = repo.find_blob(entry.id) else {
            return false;
        };
        crate::lfs::Pointer::parse(blob.content())
            .is_some_and(|pointer| pointer.is_content_of(&dir.join(crate::quote::path_of(path))))
    };
    records
        .into_iter()
        .filter_map(|(code, path)| {
            if !code.ends_with('M') || !is_pointer_to_file(&path) {
                return Some((code, path));
            }
            let staged = &code[..1];
            (staged != " ").then(|| (format!("{staged} "), path))
        })
        .collect()
}

/// libgit2's answer, or `None` where it could differ from git's: a repository it cannot open, a
/// sparse checkout (libgit2 reports files outside the cone as deleted), or configured clean
/// filters such as LFS (libgit2 cannot run them, so it may misjudge a file whose stat data is
/// stale). `status.showUntrackedFiles = no` is honoured as git honours it.
fn is_dirty_libgit2(dir: &Path) -> Option<bool> {
    let repo = crate::repo::open(dir).ok()?;
    if repo.path().join("info").join("sparse-checkout").exists() {
        return None;
    }
    let config = repo.config().ok()?;
    let mut filters = config
        .entries(Some(r"^filter\..*\.(clean|process)$"))
        .ok()?;
    if filters.next().is_some() {
        return None;
    }
    let show_untracked = !matches!(
        config
            .get_string("status.showUntrackedFiles")
            .ok()
            .as_deref(),
        Some("no" | "false" | "0" | "off")
    );
    let mut options = StatusOptions::new();
    options
        .include_untracked(show_untracked)
        .recurse_untracked_dirs(false)
        .include_ignored(false)
        .exclude_submodules(false);
    let statuses = repo.statuses(Some(&mut options)).ok()?;
    Some(!statuses.is_empty())
}

/// The git operation a person or agent left unfinished in a checkout, if any.
pub fn operation_in_progress(git_dir: &Path) -> Option<&'static str> {
    [
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase or `git am`"),
        ("MERGE_HEAD", "a merge"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
        ("BISECT_LOG", "a bisect"),
    ]
    .into_iter()
    .find(|(file, _)| git_dir.join(file).exists())
    .map(|(_, what)| what)
}
