//! The files of a checkout that git does not track: the candidates `.worktreeinclude` chooses
//! from when a new worktree is made.

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};

/// Whether git tracks `path` (relative to `dir`'s top) in `dir`'s index: a tracked file is the
/// repository's content, which anyone who can commit (an agent included) could have written.
///
/// The answer is kept while the index file stays the same one (git replaces it whole on every
/// change, so a new inode or time means a new index), so a process asking again and again (an
/// MCP server judging each call against `.nodwyn/allow.toml`) runs git once per change of the
/// index, not once per call.
pub fn is_tracked(dir: &Path, path: &str) -> Result<bool, Error> {
    let index = index_identity(dir);
    let key = (dir.to_path_buf(), path.to_owned());
    if let Some(index) = index
        && let Some((known, tracked)) = tracked_cache()
            .lock()
            .ok()
            .and_then(|c| c.get(&key).copied())
        && known == index
    {
        return Ok(tracked);
    }
    let listed = GitCommand::new(dir)
        .read_only()
        .args(["ls-files", "--", path])
        .run()?;
    let tracked = !listed.is_empty();
    // Kept only when the index is still the one read before git ran.
    if let Some(index) = index
        && index_identity(dir) == Some(index)
        && let Ok(mut cache) = tracked_cache().lock()
    {
        cache.insert(key, (index, tracked));
    }
    Ok(tracked)
}

/// What tells one index file from another: its inode, size and change time. Only for a main
/// checkout (whose `.git` is a folder); elsewhere nothing is kept.
type IndexIdentity = (u64, u64, i64, i64);

fn index_identity(dir: &Path) -> Option<IndexIdentity> {
    use std::os::unix::fs::MetadataExt;
    let git = dir.join(".git");
    if !std::fs::symlink_metadata(&git).ok()?.is_dir() {
        return None;
    }
    let meta = std::fs::metadata(git.join("index")).ok()?;
    Some((meta.ino(), meta.size(), meta.ctime(), meta.ctime_nsec()))
}

type TrackedCache = std::sync::Mutex<
    std::collections::HashMap<(std::path::PathBuf, String), (IndexIdentity, bool)>,
>;

fn tracked_cache() -> &'static TrackedCache {
    static CACHE: std::sync::OnceLock<TrackedCache> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        GitCommand::new(dir).args(args).run().unwrap();
    }

    #[test]
    fn whether_a_file_is_tracked_follows_every_change_of_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
        std::fs::write(repo.join(".nodwyn/allow.toml"), "").unwrap();
        std::fs::write(repo.join("README.md"), "hello\n").unwrap();
        git(repo, &["add", "README.md"]);
        assert!(!is_tracked(repo, ".nodwyn/allow.toml").unwrap());
        assert!(
            !is_tracked(repo, ".nodwyn/allow.toml").unwrap(),
            "asked again"
        );
        git(repo, &["add", ".nodwyn/allow.toml"]);
        assert!(is_tracked(repo, ".nodwyn/allow.toml").unwrap());
        assert!(
            is_tracked(repo, ".nodwyn/allow.toml").unwrap(),
            "asked again"
        );
        git(repo, &["rm", "-q", "--cached", ".nodwyn/allow.toml"]);
        assert!(!is_tracked(repo, ".nodwyn/allow.toml").unwrap());
    }
}
