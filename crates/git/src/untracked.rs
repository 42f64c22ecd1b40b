//! The files of a checkout that git does not track: the candidates `.worktreeinclude` chooses
//! from when a new worktree is made.

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};

/// Whether git tracks `path` (relative to `dir`'s top) in `dir`'s index: a tracked file is the
/// repository's content, which anyone who can commit (an agent included) could have written.
pub fn is_tracked(dir: &Path, path: &str) -> Result<bool, Error> {
    let listed = GitCommand::new(dir)
        .read_only()
        .args(["ls-files", "--", path])
        .run()?;
    Ok(!listed.is_empty())
}

/// One path git does not track, relative to the checkout's top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untracked {
    /// The path; a folder ends in `/`.
    pub path: String,
    /// Whether git ignores it (through `.gitignore`, `info/exclude` or `core.excludesFile`).
    pub ignored: bool,
}

impl Untracked {
    /// Whether this entry stands for a whole folder.
    pub fn is_folder(&self) -> bool {
        self.path.ends_with('/')
    }
}

/// Every untracked path of `dir`, using git's standard excludes: untracked files one by one, and
/// ignored ones with a wholly ignored folder (`target/`, `node_modules/`) as a single entry, so
/// nothing walks the files inside it.
pub fn untracked(dir: &Path) -> Result<Vec<Untracked>, Error> {
    let plain = GitCommand::new(dir)
        .read_only()
        .args(["ls-files", "-z", "--others", "--exclude-standard"])
        .run()?;
    let ignored = GitCommand::new(dir)
        .read_only()
        .args([
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
        ])
        .run()?;
    let mut entries: Vec<Untracked> = nul_records(&plain)
        .map(|path| Untracked {
            path,
            ignored: false,
        })
        .collect();
    entries.extend(nul_records(&ignored).map(|path| Untracked {
        path,
        ignored: true,
    }));
    Ok(entries)
}
