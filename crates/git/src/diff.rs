//! Diffs: the unified diff of a revision range, as `git diff` prints it, for scanning what it
//! adds; and a snapshot of a checkout's files on disk, diffed file by file against a commit, for
//! reviewing a session's changes.

use std::path::Path;

use tempfile::TempDir;

use crate::Error;
use crate::command::{GitCommand, nul_byte_records};

/// `git diff REV_RANGE` in `dir` with no colour, no external diff or text conversion, and
/// `a/` and `b/` prefixes whatever the person's configuration says. A range that starts with `-`
/// is refused, so it can never be read as an option.
pub fn unified(dir: &Path, range: &str) -> Result<Vec<u8>, Error> {
    let range = revision(range)?;
    GitCommand::new(dir)
        .read_only()
        .arg("diff")
        .args(PLAIN)
        .args(["--unified=0", range, "--"])
        .run()
}

/// What `commit` changes against `parent` (its first parent, or [`EMPTY_TREE`] for a root
/// commit), as a unified diff with no context lines, for scanning what one commit publishes:
/// every file read as text (`-a`, so a file with a NUL byte, or one git would call binary, shows
/// its lines), and no attribute, text conversion or external diff from the repository
/// (`--attr-source` on the empty tree, so a committed `*.cfg -diff` hides nothing).
pub fn commit_patch(dir: &Path, parent: &str, commit: &str) -> Result<Vec<u8>, Error> {
    GitCommand::new(dir)
        .read_only()
        .args(["diff-tree", "-r", "-p", "-a"])
        .args(PLAIN)
        .args(["--unified=0", revision(parent)?, revision(commit)?, "--"])
        .run()
}

/// A file a commit adds or changes, as its tree holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBlob {
    /// Its path, as [`crate::quote`] shows names.
    pub path: String,
    /// Its mode (`100644`, `100755`, `120000` for a link, `160000` for a submodule's commit).
    pub mode: String,
    /// The object it names.
    pub oid: String,
}

/// The files `commit` adds or changes against `parent` (not those it deletes), read with `-z`.
pub fn commit_blobs(dir: &Path, parent: &str, commit: &str) -> Result<Vec<NewBlob>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["diff-tree", "-r", "-z", "--no-renames", "--diff-filter=d"])
        .args([revision(parent)?, revision(commit)?, "--"])
        .run()?;
    // Each change is `:OLDMODE NEWMODE OLDOID NEWOID STATUS` then the path, NUL-separated.
    let mut records = nul_byte_records(&stdout);
    let mut blobs = Vec::new();
    while let (Some(meta), Some(path)) = (records.next(), records.next()) {
        let meta = String::from_utf8_lossy(meta);
        let fields: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        if let [_, mode, _, oid, _] = fields.as_slice() {
            blobs.push(NewBlob {
                path: crate::quote::quote(path),
                mode: (*mode).to_owned(),
                oid: (*oid).to_owned(),
            });
        }
    }
    Ok(blobs)
}

/// The paths whose content differs between the commits `from` and `to` (renames as a deletion
/// and an addition; deletions left out with `skip_deleted`), read with `-z` and shown as
/// [`crate::quote`] shows names.
pub fn paths_between(
    dir: &Path,
    from: &str,
    to: &str,
    skip_deleted: bool,
) -> Result<Vec<String>, Error> {
    let mut command = GitCommand::new(dir).read_only().args([
        "diff-tree",
        "-r",
        "-z",
        "--name-only",
        "--no-renames",
        "--no-ext-diff",
    ]);
    if skip_deleted {
        command = command.arg("--diff-filter=d");
    }
    let stdout = command.args([revision(from)?, revision(to)?, "--"]).run()?;
    Ok(nul_byte_records(&stdout).map(crate::quote::quote).collect())
}

/// `text`, refused when empty or when git could read it as an option.
fn revision(text: &str) -> Result<&str, Error> {
    if text.is_empty() || text.starts_with('-') {
        return Err(Error::BadRevision(text.to_owned()));
    }
    Ok(text)
}

/// The options of every diff nodwyn reads: no colour, no external diff or text conversion, no
/// rename detection, and `a/`/`b/` prefixes whatever the person's configuration says.
const PLAIN: &[&str] = &[
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
];

pub use crate::command::EMPTY_TREE;

/// One file of a snapshot's diff against a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Its path.
    pub path: String,
    /// git's status letter: `A`, `M`, `D` or `T`.
    pub status: char,
    /// Lines added and removed; `None` for a binary file.
    pub lines: Option<(u64, u64)>,
}

/// Where a snapshot's objects go.
pub enum Objects<'a> {
    /// A temporary folder, removed with the snapshot.
    Temporary,
    /// `folder` (made private when missing), where they outlive the snapshot; the untracked
    /// files `leave_out` names (by path, quoted as [`Snapshot::changed`] gives it) are not read
    /// into it (a credential file is not copied where it would stay).
    KeptIn {
        /// The folder.
        folder: &'a Path,
        /// The untracked files not to keep.
        leave_out: &'a dyn Fn(&str) -> bool,
    },
    /// A temporary folder, the objects of a kept folder read as well (to diff against a tree
    /// kept there).
    ReadingKept(&'a Path),
}

/// Makes `folder` (and what it is in) when missing, readable by its owner alone.
fn create_private_folder(folder: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    let io = |source| Error::Io {
        path: folder.to_path_buf(),
        source,
    };
    if folder.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
        .map_err(io)
}

/// A snapshot of a checkout's files as they are on disk (committed, staged, unstaged and
/// untracked alike), held in a temporary index so the checkout's own index is never touched.
pub struct Snapshot {
    dir: std::path::PathBuf,
    _folder: TempDir,
    index: std::path::PathBuf,
    /// Where the snapshot's new objects go (the temporary folder), and the repository's own
    /// objects, read through as an alternate: the review writes nothing into the repository.
    objects: std::path::PathBuf,
    alternate: String,
    /// Untracked files larger than [`Snapshot::LARGEST_READ`], left out of the snapshot (not
    /// read, not hashed), with their sizes.
    pub too_large: Vec<(String, u64)>,
}

impl Snapshot {
    /// The largest untracked file a snapshot reads; a larger one is named with its size.
    pub const LARGEST_READ: u64 = 64 * 1024 * 1024;

    /// Takes the snapshot of the checkout at `dir`: its index copied (so unchanged files are not
    /// read again), then every file added to the copy, with no `.gitattributes` applied. The
    /// objects it makes go to a temporary object folder, removed with the snapshot; `within`
    /// bounds the time it may take.
    pub fn take(dir: &Path, within: std::time::Duration) -> Result<Self, Error> {
        Self::take_with(dir, within, &Objects::Temporary)
    }

    /// [`Snapshot::take`], with its objects where `objects` says: written to a folder that
    /// outlives the snapshot (so a later one can diff against its tree), or read from one as
    /// well. The repository's own object folder is never written.
    pub fn take_with(
        dir: &Path,
        within: std::time::Duration,
        kept: &Objects<'_>,
    ) -> Result<Self, Error> {
        let folder = TempDir::new().map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let index = folder.path().join("index");
        // The checkout's own index and object folder, in one call.
        let paths = GitCommand::new(dir)
            .read_only()
            .args(["rev-parse", "--path-format=absolute"])
            .args(["--git-path", "index", "--git-path", "objects"])
            .run_text()?;
        let mut paths = paths.lines().map(str::to_owned);
        let (Some(own_index), Some(mut alternate)) = (paths.next(), paths.next()) else {
            return Err(Error::Failed {
                dir: dir.to_path_buf(),
                args: "rev-parse --git-path index --git-path objects".to_owned(),
                code: None,
                stderr: "git printed no path".to_owned(),
            });
        };
        if Path::new(&own_index).exists() {
            let io = |source| Error::Io {
                path: own_index.clone().into(),
                source,
            };
            std::fs::copy(&own_index, &index).map_err(io)?;
            // The copy keeps the index's own time: git trusts an entry's stat data only when the
            // entry is older than the index file, so a copy made now would hide a file changed
            // in the same second as its checkout (same size, same second).
            let modified = std::fs::metadata(&own_index)
                .and_then(|meta| meta.modified())
                .map_err(io)?;
            std::fs::File::options()
                .write(true)
                .open(&index)
                .and_then(|file| file.set_modified(modified))
                .map_err(io)?;
        }
        let objects = match kept {
            Objects::Temporary => folder.path().join("objects"),
            Objects::KeptIn { folder, .. } => folder.to_path_buf(),
            Objects::ReadingKept(kept) => {
                // Read through as a second alternate (git's list is separated by colons).
                if let Some(kept) = kept.to_str().filter(|k| !k.contains(':')) {
                    alternate = format!("{alternate}:{kept}");
                }
                folder.path().join("objects")
            }
        };
        create_private_folder(&objects)?;
        let mut snapshot = Self {
            dir: dir.to_path_buf(),
            _folder: folder,
            index,
            objects,
            alternate,
            too_large: Vec::new(),
        };
        // Untracked files too large to read are left out by name (a 300 MB download in the
        // worktree would otherwise be read and hashed for a review that cannot show it).
        let untracked = GitCommand::new(dir)
            .read_only()
            .deadline(within)
            .args(["ls-files", "-z", "--others", "--exclude-standard"])
            .run()?;
        let mut pathspecs: Vec<u8> = b".\0".to_vec();
        for name in nul_byte_records(&untracked) {
            let path = dir.join(crate::quote::path_of(name));
            let size = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
            let left_out = match kept {
                Objects::KeptIn { leave_out, .. } => leave_out(&crate::quote::quote(name)),
                _ => false,
            };
            if size > Self::LARGEST_READ || left_out {
                pathspecs.extend_from_slice(b":(exclude,literal)");
                pathspecs.extend_from_slice(name);
                pathspecs.push(0);
            }
            if size > Self::LARGEST_READ {
                snapshot.too_large.push((crate::quote::quote(name), size));
            }
        }
        snapshot
            .git()
            .deadline(within)
            .args([
                "add",
                "--all",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
            ])
            .input(pathspecs)
            .run()?;
        Ok(snapshot)
    }

    /// The git tree of the snapshot: equal for two snapshots exactly when they hold the same
    /// files with the same content and modes.
    pub fn tree(&self) -> Result<String, Error> {
        self.git().arg("write-tree").run_text()
    }

    fn git(&self) -> GitCommand {
        GitCommand::new(&self.dir)
            .env("GIT_INDEX_FILE", &self.index)
            .env("GIT_OBJECT_DIRECTORY", &self.objects)
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &self.alternate)
            .without_attributes()
            .without_hooks()
    }

    fn diff(&self) -> GitCommand {
        self.git().args(["diff", "--cached"]).args(PLAIN)
    }

    /// Every file that differs from `since`, with its status and line counts. A name that is
    /// not UTF-8 is given as git quotes it (see [`crate::quote`]).
    pub fn changed(&self, since: &str) -> Result<Vec<Changed>, Error> {
        let since = revision(since)?;
        let names = self
            .diff()
            .args(["--name-status", "-z", since, "--"])
            .run()?;
        let counts = self.diff().args(["--numstat", "-z", since, "--"]).run()?;
        let mut lines = std::collections::HashMap::new();
        for record in nul_byte_records(&counts) {
            let mut fields = record.splitn(3, |b| *b == b'\t');
            let (Some(added), Some(removed), Some(path)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let number = |field: &[u8]| std::str::from_utf8(field).ok()?.parse::<u64>().ok();
            lines.insert(path.to_vec(), number(added).zip(number(removed)));
        }
        let mut fields = nul_byte_records(&names);
        let mut changed = Vec::new();
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            changed.push(Changed {
                lines: lines.get(path).copied().flatten(),
                status: status.first().map_or('M', |b| char::from(*b)),
                path: crate::quote::quote(path),
            });
        }
        Ok(changed)
    }

    /// The unified diff of one file against `since`, three lines of context.
    /// `path` is a name as [`Snapshot::changed`] gives it (quoted when it is not UTF-8).
    pub fn file_diff(&self, since: &str, path: &str) -> Result<Vec<u8>, Error> {
        let since = revision(since)?;
        let mut pathspec = std::ffi::OsString::from(":(literal)");
        pathspec.push(crate::quote::os_name(path));
        self.diff()
            .args(["--unified=3", since, "--"])
            .arg(pathspec)
            .run()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        GitCommand::new(dir)
            .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
            .args(args)
            .run_text()
            .unwrap()
    }

    /// A repository whose one commit holds `a.txt` ("one").
    fn committed() -> tempfile::TempDir {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        git(dir, &["init", "-q"]);
        std::fs::write(dir.join("a.txt"), "one\n").unwrap();
        git(dir, &["add", "a.txt"]);
        git(dir, &["commit", "-q", "-m", "one"]);
        temp
    }

    #[test]
    fn a_file_changed_in_the_second_of_its_checkout_is_in_the_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        git(dir, &["init", "-q"]);
        // Start at the beginning of a second, so the commit and the change share it: git keeps
        // seconds, so the change (same size) shows only to a reader that looks at the content.
        let since_epoch = std::time::UNIX_EPOCH.elapsed().unwrap();
        std::thread::sleep(std::time::Duration::from_nanos(
            1_000_000_000 - u64::from(since_epoch.subsec_nanos()) + 10_000_000,
        ));
        std::fs::write(dir.join("a.txt"), "one\n").unwrap();
        git(dir, &["add", "a.txt"]);
        git(dir, &["commit", "-q", "-m", "one"]);
        std::fs::write(dir.join("a.txt"), "two\n").unwrap();
        // The review comes later.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let snapshot = Snapshot::take(dir, std::time::Duration::from_secs(30)).unwrap();
        let changed = snapshot.changed("HEAD").unwrap();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert_eq!(changed[0].path, "a.txt");
    }

    /// What the person's configuration points into the checkout (husky's `core.hooksPath`, an
    /// attributes file of theirs that is repository content) is written by whoever writes the
    /// checkout: a snapshot runs none of it.
    #[test]
    fn a_snapshot_runs_no_hook_or_filter_the_checkout_holds() {
        let temp = committed();
        let dir = temp.path();
        let ran = dir.join("ran");
        let program = |name: &str| {
            let path = dir.join(name);
            std::fs::write(
                &path,
                format!("#!/bin/sh\necho {name} >> '{}'\ncat\n", ran.display()),
            )
            .unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
            path
        };
        std::fs::create_dir(dir.join(".husky")).unwrap();
        program(".husky/post-index-change");
        let clean = program("clean.sh");
        std::fs::write(dir.join(".attributes"), "*.txt filter=x\n").unwrap();
        git(dir, &["config", "core.hooksPath", ".husky"]);
        git(dir, &["config", "core.attributesFile", ".attributes"]);
        git(dir, &["config", "filter.x.clean", clean.to_str().unwrap()]);
        std::fs::write(dir.join("a.txt"), "two\n").unwrap();
        std::fs::write(dir.join("b.txt"), "new\n").unwrap();
        let snapshot = Snapshot::take(dir, std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(snapshot.changed("HEAD").unwrap().len(), 5);
        let _ = snapshot.tree().unwrap();
        assert!(
            !ran.exists(),
            "ran: {}",
            std::fs::read_to_string(&ran).unwrap_or_default()
        );
    }

    #[test]
    fn a_snapshot_writes_no_object_into_the_repository() {
        let temp = committed();
        let dir = temp.path();
        let count = || git(dir, &["count-objects"]);
        let before = count();
        std::fs::write(dir.join("big.bin"), vec![7u8; 1 << 20]).unwrap();
        std::fs::write(dir.join("a.txt"), "changed\n").unwrap();
        let snapshot = Snapshot::take(dir, std::time::Duration::from_secs(30)).unwrap();
        let changed = snapshot.changed("HEAD").unwrap();
        assert_eq!(changed.len(), 2, "{changed:?}");
        assert!(!snapshot.file_diff("HEAD", "a.txt").unwrap().is_empty());
        assert_eq!(
            count(),
            before,
            "the review wrote objects into the repository"
        );
    }

    #[test]
    fn an_untracked_file_too_large_to_read_is_named_not_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        git(dir, &["init", "-q"]);
        git(dir, &["commit", "-q", "--allow-empty", "-m", "first"]);
        let big = std::fs::File::create(dir.join("download.iso")).unwrap();
        big.set_len(Snapshot::LARGEST_READ + 1).unwrap();
        std::fs::write(dir.join("small.txt"), "small\n").unwrap();
        let snapshot = Snapshot::take(dir, std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(
            snapshot.too_large,
            [("download.iso".to_owned(), Snapshot::LARGEST_READ + 1)]
        );
        let changed = snapshot.changed("HEAD").unwrap();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert_eq!(changed[0].path, "small.txt");
    }
}
