//! A dirty check of nodwyn's own, for listing many worktrees quickly.
//!
//! `git status` answers "is anything here uncommitted?" by reading the index, comparing every
//! tracked file's stat data with it, reading every folder for untracked files, and comparing the
//! index with HEAD; then it lists every change. Listing thirty worktrees runs it thirty times, and
//! most of that time goes on starting git and on changes nobody reads. This module asks the same
//! three questions in-process and stops at the first change:
//!
//! 1. the index against HEAD (libgit2's tree-to-index diff, object ids only);
//! 2. each folder read once (`readdir`), every tracked file in it statted from the folder's own
//!    descriptor and compared with the index's stat data; where they differ, or the entry is as
//!    new as the index itself (git's "racily clean" case), the file's content is hashed and
//!    compared, as git does;
//! 3. every name no index entry explains, unless git's ignore rules (libgit2's reading of
//!    `.gitignore`, `info/exclude` and `core.excludesFile`) ignore it.
//!
//! It answers as [`crate::status::is_dirty`]'s `git status` does (no attributes, LFS pointers
//! whose object is on disk unchanged) or not at all: whatever it does not model (a sparse or
//! split index, submodules, entries marked assume-unchanged or skip-worktree, end-of-line
//! conversion, a case-insensitive or symlink-less checkout) makes it return `None`, and the caller
//! asks git.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use git2::{DiffOptions, ErrorCode, Index, IndexEntry, ObjectType, Oid, Repository};

/// The bits of an index entry's flags that hold its merge stage.
const STAGE_MASK: u16 = 0x3000;
/// "Assume unchanged": git skips the entry's stat check.
const ASSUME_VALID: u16 = 0x8000;
/// `git add -N`: an entry with no content yet, which `git status` shows as added.
const INTENT_TO_ADD: u16 = 1 << 13;
/// Outside a sparse checkout's cone.
const SKIP_WORKTREE: u16 = 1 << 14;

const MODE_TYPE_MASK: u32 = 0o170_000;
const MODE_FILE: u32 = 0o100_000;
const MODE_SYMLINK: u32 = 0o120_000;
const MODE_EXECUTABLE: u32 = 0o100_755;

/// Whether `git status` in the checkout at `dir` would show anything, or `None` where this check
/// cannot answer exactly as git would.
pub(crate) fn is_dirty(dir: &Path) -> Option<bool> {
    is_dirty_telling(dir, &|_, _| {})
}

/// What a path [`is_dirty_telling`] reads belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads<'a> {
    /// git's own files: its folders (where a `*.lock` file comes and goes without changing
    /// anything until it is renamed), of which only the names given matter (all, where none
    /// are), and the person's configuration (which may be a link into their dotfiles).
    Git(&'a [String]),
    /// A folder of the checkout (never followed where it is a link).
    Checkout,
    /// A tracked file with other hard links: a write through another of its names reaches no
    /// folder the walk reads, so the answer cannot be vouched for by watching.
    Unwatchable,
}

/// [`is_dirty`], telling `reading` of every file and folder the answer depends on before it is
/// read: the repository's own files (see [`git_files`]), then each folder of the checkout the
/// walk reads. A change anywhere else cannot change the answer, so a watch on these is enough
/// to know when to ask again ([`crate::dirty_watch`]).
pub(crate) fn is_dirty_telling(dir: &Path, reading: &dyn Fn(&Path, Reads<'_>)) -> Option<bool> {
    let repo = crate::repo::open(dir).ok()?;
    tell_git_files(&repo, reading);
    let settings = Settings::of(&repo)?;
    let workdir = repo.workdir()?.to_path_buf();
    let index = repo.index().ok()?;
    let index_written = index
        .path()
        .and_then(|path| std::fs::metadata(path).ok())
        .map(|meta| (meta.mtime(), meta.mtime_nsec()))?;
    let entries: Vec<IndexEntry> = index.iter().collect();
    for entry in &entries {
        if entry.flags & STAGE_MASK != 0 || entry.flags_extended & INTENT_TO_ADD != 0 {
            return Some(true);
        }
        let kind = entry.mode & MODE_TYPE_MASK;
        let unmodelled = entry.flags & ASSUME_VALID != 0
            || entry.flags_extended & SKIP_WORKTREE != 0
            || (kind != MODE_FILE && kind != MODE_SYMLINK);
        if unmodelled {
            return None;
        }
    }
    if has_staged_changes(&repo, &index)? {
        return Some(true);
    }
    let walk = Walk {
        repo: &repo,
        settings: &settings,
        entries: &entries,
        folders: Folders::of(&entries),
        index_written,
        checked: Cell::new(0),
        reading,
    };
    reading(&workdir, Reads::Checkout);
    let dirty = walk.folder(&workdir, b"")?;
    Some(dirty || walk.checked.get() != entries.len())
}

/// Tells `reading` of the repository's files and folders the answer depends on, besides the
/// checkout, each with the names in it that matter (none: all of them), each before what it
/// holds is read: the git folder (index, HEAD, the worktree's configuration); the common one,
/// which for a linked worktree matters only for its configuration, packed refs and `info` (not
/// the main checkout's index, nor a fetch's `FETCH_HEAD`); `info` (exclude, sparse-checkout);
/// each folder from `refs/heads` down to the branch's loose ref, for the one name on the way (so
/// another session's commit, in the same folder of refs, is no change here), stopping at the
/// first that does not exist (its parent sees it made); and each of the person's git
/// configuration and ignore files, by its folder (for that name) and, where it exists, itself
/// (followed where it links into their dotfiles).
fn tell_git_files(repo: &Repository, reading: &dyn Fn(&Path, Reads<'_>)) {
    let everything: &[String] = &[];
    let common = repo.commondir().to_path_buf();
    let own = repo.path().to_path_buf();
    let linked = own.canonicalize().ok() != common.canonicalize().ok();
    reading(&own, Reads::Git(everything));
    let in_common: Vec<String> = match linked {
        true => ["config", "packed-refs", "info"]
            .map(str::to_owned)
            .to_vec(),
        false => Vec::new(),
    };
    reading(&common, Reads::Git(&in_common));
    if common.join("info").is_dir() {
        reading(&common.join("info"), Reads::Git(everything));
    }
    // HEAD is read once the folder holding it is watched.
    let head = repo.find_reference("HEAD").ok();
    if let Some(branch) = head
        .as_ref()
        .and_then(|head| head.symbolic_target().ok().flatten())
    {
        let parts: Vec<&str> = branch.split('/').collect();
        let mut folder = common.clone();
        for (at, part) in parts.iter().enumerate().take(parts.len().saturating_sub(1)) {
            folder.push(part);
            if at == 0 {
                continue;
            }
            if !folder.is_dir() {
                break;
            }
            reading(&folder, Reads::Git(&[parts[at + 1].to_owned()]));
        }
    }
    let mut personal: Vec<PathBuf> = [
        git2::Config::find_global(),
        git2::Config::find_xdg(),
        git2::Config::find_system(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    personal.extend(home.as_ref().map(|home| home.join(".gitconfig")));
    if let Ok(config) = repo.config() {
        match config.get_path("core.excludesFile") {
            Ok(path) => personal.push(path),
            Err(_) => personal.extend(
                std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .or_else(|| home.map(|home| home.join(".config")))
                    .map(|config| config.join("git").join("ignore")),
            ),
        }
    }
    for file in personal {
        let (Some(folder), Some(name)) = (file.parent(), file.file_name()) else {
            continue;
        };
        if folder.is_dir() {
            reading(folder, Reads::Git(&[name.to_string_lossy().into_owned()]));
        }
        if file.exists() {
            reading(&file, Reads::Git(everything));
        }
    }
}

/// What of the repository's configuration the check reads, or `None` where it changes what git
/// would answer in a way this module does not model.
struct Settings {
    /// `core.fileMode`: whether an executable bit that differs from the index is a change.
    file_mode: bool,
    /// Whether untracked files count (`status.showUntrackedFiles` is not `no`).
    show_untracked: bool,
    /// Whether LFS's filter is configured, so a pointer whose object is on disk is no change.
    uses_lfs: bool,
}

impl Settings {
    fn of(repo: &Repository) -> Option<Self> {
        let config = repo.config().ok()?;
        let flag = |name: &str, default: bool| config.get_bool(name).unwrap_or(default);
        let text = |name: &str| config.get_string(name).ok();
        let sparse = flag("core.sparseCheckout", false)
            || repo.path().join("info").join("sparse-checkout").exists()
            || repo
                .commondir()
                .join("info")
                .join("sparse-checkout")
                .exists();
        let split_index = flag("core.splitIndex", false) || has_shared_index(repo);
        let converts_line_ends = text("core.autocrlf").is_some_and(|value| {
            !matches!(
                value.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        });
        if sparse
            || split_index
            || converts_line_ends
            || flag("core.ignoreCase", false)
            || !flag("core.symlinks", true)
            || flag("index.sparse", false)
        {
            return None;
        }
        let show_untracked = !matches!(
            text("status.showUntrackedFiles").as_deref(),
            Some("no" | "false" | "0" | "off")
        );
        Some(Self {
            file_mode: flag("core.fileMode", true),
            show_untracked,
            uses_lfs: config.get_entry("filter.lfs.clean").is_ok()
                || config.get_entry("filter.lfs.process").is_ok(),
        })
    }
}

/// Whether a split index's shared part sits beside the index (libgit2 reads only the split part).
fn has_shared_index(repo: &Repository) -> bool {
    std::fs::read_dir(repo.path()).is_ok_and(|names| {
        names
            .flatten()
            .any(|name| name.file_name().as_bytes().starts_with(b"sharedindex."))
    })
}

/// Whether the index differs from HEAD's tree (`None` where HEAD cannot be read).
fn has_staged_changes(repo: &Repository, index: &Index) -> Option<bool> {
    let tree = match repo.head() {
        Ok(head) => head.peel_to_tree().ok()?,
        Err(e) if e.code() == ErrorCode::UnbornBranch => return Some(!index.is_empty()),
        Err(_) => return None,
    };
    let mut options = DiffOptions::new();
    options.ignore_submodules(false);
    let diff = repo
        .diff_tree_to_index(Some(&tree), Some(index), Some(&mut options))
        .ok()?;
    Some(diff.deltas().len() > 0)
}

/// The index as folders: for each folder (its path from the top, `""` for the top), the index
/// entries directly in it by name, and the names of the folders in it that hold entries.
#[derive(Default)]
struct Folders<'a> {
    files: HashMap<&'a [u8], HashMap<&'a [u8], usize>>,
    folders: HashMap<&'a [u8], HashSet<&'a [u8]>>,
}

impl<'a> Folders<'a> {
    fn of(entries: &'a [IndexEntry]) -> Self {
        let mut folders = Self::default();
        for (at, entry) in entries.iter().enumerate() {
            let (folder, name) = split_last(&entry.path);
            folders.files.entry(folder).or_default().insert(name, at);
            folders.note_folder(folder);
        }
        folders
    }

    /// Records `folder` in its parent's folders, and the parent in its own, up to the top.
    fn note_folder(&mut self, mut folder: &'a [u8]) {
        while !folder.is_empty() {
            let (parent, name) = split_last(folder);
            if !self.folders.entry(parent).or_default().insert(name) {
                return;
            }
            folder = parent;
        }
    }
}

/// `a/b/c` as (`a/b`, `c`); `c` as (``, `c`).
fn split_last(path: &[u8]) -> (&[u8], &[u8]) {
    match path.iter().rposition(|&byte| byte == b'/') {
        Some(slash) => (&path[..slash], &path[slash + 1..]),
        None => (&path[..0], path),
    }
}

/// One pass over a checkout's folders.
struct Walk<'a> {
    repo: &'a Repository,
    settings: &'a Settings,
    entries: &'a [IndexEntry],
    folders: Folders<'a>,
    /// The index file's modification time: entries as new as it are compared by content.
    index_written: (i64, i64),
    /// How many index entries were found on disk and compared.
    checked: Cell<usize>,
    /// Told of each folder before it is read.
    reading: &'a dyn Fn(&Path, Reads<'_>),
}

impl Walk<'_> {
    /// Whether the folder at `path` (`relative` from the top) holds a change: a tracked file that
    /// differs, or an untracked name that is not ignored. `None` where git's answer is not modelled.
    fn folder(&self, path: &Path, relative: &[u8]) -> Option<bool> {
        let files = self.folders.files.get(relative);
        let folders = self.folders.folders.get(relative);
        for name in std::fs::read_dir(path).ok()? {
            let name = name.ok()?;
            let file_name = name.file_name();
            let bytes = file_name.as_bytes();
            if bytes == b".git" {
                continue;
            }
            let inner = join(relative, bytes);
            if let Some(&at) = files.and_then(|files| files.get(bytes)) {
                self.checked.set(self.checked.get() + 1);
                let meta = name.metadata().ok()?;
                if meta.is_file() && meta.nlink() > 1 {
                    (self.reading)(&name.path(), Reads::Unwatchable);
                }
                if self.differs(&self.entries[at], &name.path(), &meta)? {
                    return Some(true);
                }
            } else if folders.is_some_and(|folders| folders.contains(bytes))
                && name.file_type().ok()?.is_dir()
            {
                (self.reading)(&name.path(), Reads::Checkout);
                if self.folder(&name.path(), &inner)? {
                    return Some(true);
                }
            } else if self.settings.show_untracked && self.is_untracked(&name.path(), &inner)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Whether tracked `entry`, found at `path` with `meta`, differs from the index.
    fn differs(&self, entry: &IndexEntry, path: &Path, meta: &Metadata) -> Option<bool> {
        let kind = entry.mode & MODE_TYPE_MASK;
        let file_type = meta.file_type();
        let same_kind = match kind {
            MODE_FILE => file_type.is_file(),
            _ => file_type.is_symlink(),
        };
        if !same_kind {
            return Some(true);
        }
        if kind == MODE_FILE
            && self.settings.file_mode
            && (meta.mode() & 0o100 != 0) != (entry.mode == MODE_EXECUTABLE)
        {
            return Some(true);
        }
        if stat_matches(entry, meta) && !self.is_racy(entry) {
            return Some(false);
        }
        Some(!self.same_content(entry, path, kind)?)
    }

    /// git's "racily clean" entry: written in the same instant as the index or after it, so its
    /// stat data cannot vouch for its content.
    fn is_racy(&self, entry: &IndexEntry) -> bool {
        let modified = (
            i64::from(entry.mtime.seconds()),
            i64::from(entry.mtime.nanoseconds()),
        );
        modified >= self.index_written
    }

    /// Whether the file at `path` holds exactly the entry's blob (a symlink: its target), or
    /// the object an LFS pointer blob names.
    fn same_content(&self, entry: &IndexEntry, path: &Path, kind: u32) -> Option<bool> {
        if kind == MODE_SYMLINK {
            let target = std::fs::read_link(path).ok()?;
            let id = Oid::hash_object(ObjectType::Blob, target.as_os_str().as_bytes()).ok()?;
            return Some(id == entry.id);
        }
        if Oid::hash_file(ObjectType::Blob, path).ok()? == entry.id {
            return Some(true);
        }
        Some(self.settings.uses_lfs && self.is_lfs_object(entry.id, path))
    }

    /// Whether blob `id` is an LFS pointer naming the file at `path`.
    fn is_lfs_object(&self, id: Oid, path: &Path) -> bool {
        let Ok(blob) = self.repo.find_blob(id) else {
            return false;
        };
        crate::lfs::Pointer::parse(blob.content())
            .is_some_and(|pointer| pointer.is_content_of(path))
    }

    /// Whether the name at `path` (`relative` from the top), which no index entry explains, is
    /// one `git status` lists: a file or symlink that is not ignored, or a folder that is not
    /// ignored and holds one (or is a repository of its own).
    fn is_untracked(&self, path: &Path, relative: &[u8]) -> Option<bool> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        let file_type = meta.file_type();
        if file_type.is_dir() {
            if self.is_ignored(relative, true)? {
                return Some(false);
            }
            (self.reading)(path, Reads::Checkout);
            if path.join(".git").symlink_metadata().is_ok() {
                return Some(true);
            }
            for name in std::fs::read_dir(path).ok()? {
                let name = name.ok()?;
                let inner = join(relative, name.file_name().as_bytes());
                if self.is_untracked(&name.path(), &inner)? {
                    return Some(true);
                }
            }
            return Some(false);
        }
        if file_type.is_file() || file_type.is_symlink() {
            return Some(!self.is_ignored(relative, false)?);
        }
        // git lists neither sockets nor pipes.
        Some(false)
    }

    /// Whether git's ignore rules ignore `relative` (a folder when `folder`).
    fn is_ignored(&self, relative: &[u8], folder: bool) -> Option<bool> {
        let mut asked = relative.to_vec();
        if folder {
            asked.push(b'/');
        }
        let asked = std::str::from_utf8(&asked).ok()?;
        self.repo.is_path_ignored(asked).ok()
    }
}

/// `folder/name`, or `name` at the top.
fn join(folder: &[u8], name: &[u8]) -> Vec<u8> {
    if folder.is_empty() {
        return name.to_vec();
    }
    let mut joined = Vec::with_capacity(folder.len() + 1 + name.len());
    joined.extend_from_slice(folder);
    joined.push(b'/');
    joined.extend_from_slice(name);
    joined
}

/// Whether `meta` is the stat data the index recorded for `entry` (git's own comparison: times to
/// the nanosecond, inode, owner and size as the index's 32 bits hold them).
fn stat_matches(entry: &IndexEntry, meta: &Metadata) -> bool {
    let time = |seconds: i32, nanoseconds: u32| (i64::from(seconds), i64::from(nanoseconds));
    time(entry.mtime.seconds(), entry.mtime.nanoseconds()) == (meta.mtime(), meta.mtime_nsec())
        && time(entry.ctime.seconds(), entry.ctime.nanoseconds())
            == (meta.ctime(), meta.ctime_nsec())
        && entry.ino == meta.ino() as u32
        && entry.uid == meta.uid()
        && entry.gid == meta.gid()
        && entry.file_size == meta.size() as u32
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::command::GitCommand;
    use crate::testing::{git, worktree, write};

    /// A change made to a fresh worktree.
    type Change = Box<dyn Fn(&Path)>;

    /// Makes a fresh worktree, changes it with `change`, and returns this module's answer after
    /// checking it is git's.
    fn answer_after(change: impl Fn(&Path)) -> Option<bool> {
        let dir = tempfile::tempdir().unwrap();
        let worktree = worktree(dir.path());
        change(&worktree);
        let quick = super::is_dirty(&worktree);
        let by_git = crate::status::is_dirty_by_git(&worktree).unwrap();
        if let Some(quick) = quick {
            assert_eq!(quick, by_git, "git status says dirty: {by_git}");
        }
        quick
    }

    #[test]
    fn a_fresh_worktree_is_clean() {
        assert_eq!(answer_after(|_| {}), Some(false));
    }

    #[test]
    fn every_change_to_a_tracked_file_is_seen() {
        let changes: Vec<(&str, Change)> = vec![
            ("appended", Box::new(|w| write(w, "a.txt", "alpha\nmore\n"))),
            (
                "deep change",
                Box::new(|w| write(w, "dir/deep/c.txt", "GAMMA\n")),
            ),
            (
                "same size, same time",
                Box::new(|w| {
                    let file = w.join("dir/b.txt");
                    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
                    std::fs::write(&file, "BETA\n").unwrap();
                    let file = std::fs::File::options().write(true).open(&file).unwrap();
                    file.set_modified(modified).unwrap();
                }),
            ),
            (
                "deleted",
                Box::new(|w| std::fs::remove_file(w.join("dir/deep/c.txt")).unwrap()),
            ),
            (
                "folder deleted",
                Box::new(|w| std::fs::remove_dir_all(w.join("dir")).unwrap()),
            ),
            (
                "made executable",
                Box::new(|w| {
                    std::fs::set_permissions(
                        w.join("a.txt"),
                        std::os::unix::fs::PermissionsExt::from_mode(0o755),
                    )
                    .unwrap();
                }),
            ),
            (
                "symlink retargeted",
                Box::new(|w| {
                    std::fs::remove_file(w.join("link")).unwrap();
                    std::os::unix::fs::symlink("run.sh", w.join("link")).unwrap();
                }),
            ),
            (
                "file became a folder",
                Box::new(|w| {
                    std::fs::remove_file(w.join("a.txt")).unwrap();
                    write(w, "a.txt/inside", "x\n");
                }),
            ),
            (
                "tracked file in an ignored folder",
                Box::new(|w| write(w, "build/keep.txt", "changed\n")),
            ),
            (
                "staged, then put back on disk",
                Box::new(|w| {
                    write(w, "a.txt", "staged\n");
                    git(w, &["add", "a.txt"]);
                    write(w, "a.txt", "alpha\n");
                }),
            ),
            (
                "intent to add",
                Box::new(|w| {
                    write(w, "new.txt", "new\n");
                    git(w, &["add", "-N", "new.txt"]);
                }),
            ),
            (
                "committed on the branch, then the file changed back",
                Box::new(|w| {
                    write(w, "a.txt", "committed\n");
                    git(w, &["commit", "-q", "-am", "second"]);
                    git(w, &["reset", "-q", "--soft", "HEAD~1"]);
                }),
            ),
        ];
        for (what, change) in changes {
            assert_eq!(answer_after(change), Some(true), "{what}");
        }
    }

    #[test]
    fn a_file_rewritten_with_the_same_bytes_is_no_change() {
        let rewritten = answer_after(|w| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            write(w, "dir/b.txt", "beta\n");
            let file = w.join("run.sh");
            std::fs::write(&file, std::fs::read(&file).unwrap()).unwrap();
        });
        assert_eq!(rewritten, Some(false));
    }

    #[test]
    fn untracked_names_count_unless_ignored_or_empty() {
        let cases: Vec<(&str, bool, Change)> = vec![
            (
                "untracked file",
                true,
                Box::new(|w| write(w, "new.txt", "x\n")),
            ),
            (
                "deep untracked file",
                true,
                Box::new(|w| write(w, "dir/deep/new.rs", "x\n")),
            ),
            (
                "untracked folder with a file",
                true,
                Box::new(|w| write(w, "fresh/one/x.rs", "x\n")),
            ),
            (
                "untracked symlink",
                true,
                Box::new(|w| std::os::unix::fs::symlink("nowhere", w.join("dangling")).unwrap()),
            ),
            (
                "nested repository",
                true,
                Box::new(|w| {
                    std::fs::create_dir_all(w.join("nested")).unwrap();
                    let made = std::process::Command::new("git")
                        .args(["init", "-q"])
                        .current_dir(w.join("nested"))
                        .env_remove("GIT_DIR")
                        .env_remove("GIT_WORK_TREE")
                        .status()
                        .unwrap();
                    assert!(made.success());
                }),
            ),
            (
                "ignored file",
                false,
                Box::new(|w| write(w, "dir/trace.log", "x\n")),
            ),
            (
                "ignored folder",
                false,
                Box::new(|w| write(w, "ignored/a/b.txt", "x\n")),
            ),
            (
                "new file in an ignored folder that holds a tracked one",
                false,
                Box::new(|w| write(w, "build/new.o", "x\n")),
            ),
            (
                "empty folders",
                false,
                Box::new(|w| std::fs::create_dir_all(w.join("empty/inside")).unwrap()),
            ),
            (
                "a folder of ignored files only",
                false,
                Box::new(|w| write(w, "logs/today.log", "x\n")),
            ),
            (
                "ignored by info/exclude",
                false,
                Box::new(|w| {
                    let common = crate::repo::common_dir(w).unwrap();
                    write(&common, "info/exclude", "scratch/\n");
                    write(w, "scratch/notes.md", "x\n");
                }),
            ),
            (
                "untracked files not shown",
                false,
                Box::new(|w| {
                    git(w, &["config", "status.showUntrackedFiles", "no"]);
                    write(w, "new.txt", "x\n");
                }),
            ),
        ];
        for (what, dirty, change) in cases {
            assert_eq!(answer_after(change), Some(dirty), "{what}");
        }
    }

    #[test]
    fn an_executable_bit_is_no_change_where_file_mode_is_off() {
        let answer = answer_after(|w| {
            git(w, &["config", "core.fileMode", "false"]);
            std::fs::set_permissions(
                w.join("a.txt"),
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            )
            .unwrap();
        });
        assert_eq!(answer, Some(false));
    }

    #[test]
    fn an_lfs_object_on_disk_is_no_change_where_lfs_is_configured() {
        let object = "hello\n";
        let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:\
            5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03\nsize 6\n";
        let in_place_of_pointer = move |w: &Path, content: &str| {
            write(w, "big.bin", pointer);
            git(w, &["add", "big.bin"]);
            git(w, &["commit", "-q", "-m", "pointer"]);
            git(w, &["config", "filter.lfs.clean", "git-lfs clean -- %f"]);
            write(w, "big.bin", content);
        };
        assert_eq!(
            answer_after(|w| in_place_of_pointer(w, object)),
            Some(false)
        );
        assert_eq!(
            answer_after(|w| in_place_of_pointer(w, "hellO\n")),
            Some(true),
            "another object than the pointer names"
        );
    }

    #[test]
    fn what_it_does_not_model_is_left_to_git() {
        let unmodelled: Vec<(&str, Change)> = vec![
            (
                "line-end conversion",
                Box::new(|w| git(w, &["config", "core.autocrlf", "true"])),
            ),
            (
                "skip-worktree",
                Box::new(|w| git(w, &["update-index", "--skip-worktree", "a.txt"])),
            ),
            (
                "assume-unchanged",
                Box::new(|w| git(w, &["update-index", "--assume-unchanged", "a.txt"])),
            ),
            (
                "sparse checkout",
                Box::new(|w| git(w, &["sparse-checkout", "set", "--no-cone", "/dir/"])),
            ),
        ];
        for (what, change) in unmodelled {
            assert_eq!(answer_after(change), None, "{what}");
        }
    }

    #[test]
    fn a_conflict_is_a_change() {
        let answer = answer_after(|w| {
            write(w, "a.txt", "ours\n");
            git(w, &["commit", "-q", "-am", "ours"]);
            git(w, &["checkout", "-q", "-b", "theirs", "HEAD~1"]);
            write(w, "a.txt", "theirs\n");
            git(w, &["commit", "-q", "-am", "theirs"]);
            let merged = GitCommand::new(w)
                .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
                .args(["merge", "-q", "side"])
                .run();
            assert!(merged.is_err(), "the merge stops at its conflict");
        });
        assert_eq!(answer, Some(true));
    }
}
