//! `.worktreeinclude`: the untracked files a person asks to have copied into every new worktree
//! (a `.env`, a build cache such as `target/`, `node_modules/`).
//!
//! Opt-in: without the file at the repository's top, nothing at all is copied. Each line is a
//! gitignore-style pattern (`#` comments, `!` negation, `**`, a trailing `/` for folders). The
//! candidates are what git does not track, found with git's standard excludes so that a wholly
//! ignored folder is one entry and is never walked unless it is chosen. An unchosen folder is
//! entered only when a pattern names a path inside it from the top (`config/secrets.json` enters
//! `config/`); a pattern without a folder part (`.env`) matches what git lists, not files buried
//! in an ignored folder.
//!
//! A `.worktreeinclude` git tracks is the repository's content, not the person's choice: it may
//! copy caches, but no file the credential denylist names (a `.env` would otherwise reach every
//! worktree, where an agent's approved command reads it). The person's own, untracked file
//! copies what it names.
//!
//! Copying never overwrites anything already in the worktree, keeps permissions, copies a
//! symbolic link as a link (never following it), never writes through a link in the worktree,
//! clones each file where the file system can (a reflink, `FICLONE`: btrfs, XFS), else has the
//! kernel copy it (`copy_file_range`), and reports each failure without stopping the rest. A
//! chosen folder's files are copied on every core, its progress told to the person watching.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nodwyn_prim::Notices;
use nodwyn_prim::beneath::CopiedBy;
use rayon::prelude::*;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use nodwyn_git::untracked::untracked;

use crate::Error;
use crate::event::IncludeFailure;

/// The name of the file at the repository's top.
pub(crate) const INCLUDE_FILE: &str = ".worktreeinclude";

/// What a copy did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Included {
    /// The entries copied (a folder ends in `/`).
    pub copied: Vec<String>,
    /// The files that could not be copied, and why.
    pub failed: Vec<IncludeFailure>,
    /// How many files, and bytes, were copied, and how many of the files by reflink.
    pub counts: IncludeCounts,
}

/// How much `.worktreeinclude` copied, and how.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct IncludeCounts {
    /// Files (and links) made.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Files that share the original's blocks (a reflink) rather than a copy of them.
    pub reflinked: u64,
}

/// A folder of at least this many files has its copy's progress told.
const PROGRESS_FROM: usize = 1000;
/// How often progress is told.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Copies what `.worktreeinclude` of `repository` chooses into `worktree`, telling `progress` how
/// the copy of a large folder goes.
pub(crate) fn copy_included(
    repository: &Path,
    worktree: &Path,
    progress: &Notices,
) -> Result<Included, Error> {
    let include_file = repository.join(INCLUDE_FILE);
    let mut included = Included::default();
    match std::fs::symlink_metadata(&include_file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(included),
        Err(e) => return Err(Error::io(&include_file)(e)),
        Ok(meta) if !meta.is_file() => {
            included.failed.push(IncludeFailure {
                path: INCLUDE_FILE.to_owned(),
                error: "not a regular file (a link is not followed); nothing was copied".to_owned(),
            });
            return Ok(included);
        }
        Ok(_) => {}
    }
    let text = std::fs::read_to_string(&include_file).map_err(Error::io(&include_file))?;
    let patterns = Patterns::parse(repository, &text);
    let copier = Copier {
        from: repository,
        to: worktree,
        progress,
        counts: Counts::default(),
        patterns: &patterns,
        credentials: if nodwyn_git::untracked::is_tracked(repository, INCLUDE_FILE)? {
            Credentials::LeftOut(nodwyn_guard::Denylist::standard())
        } else {
            Credentials::Copied
        },
    };
    let mut entries = untracked(repository)?;
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    // git may list a folder of ignored files and its files too; a folder copied whole or walked
    // covers everything below it.
    let mut covered: Vec<String> = Vec::new();
    for entry in entries {
        let relative = entry.path.trim_end_matches('/');
        if is_nodwyns_own(relative) || covered.iter().any(|c| entry.path.starts_with(c.as_str())) {
            continue;
        }
        if patterns.chooses(relative, entry.is_folder()) {
            if !copier.copy(relative, &mut included.failed) {
                continue;
            }
            included.copied.push(entry.path.clone());
        } else if entry.is_folder() && patterns.may_choose_inside(relative) {
            copier.copy_chosen_inside(relative, &mut included);
        } else {
            continue;
        }
        if entry.is_folder() {
            covered.push(entry.path);
        }
    }
    included.counts = copier.counts.read();
    Ok(included)
}

/// What the copy made so far, counted from every thread.
#[derive(Default)]
struct Counts {
    files: AtomicU64,
    bytes: AtomicU64,
    reflinked: AtomicU64,
}

impl IncludeCounts {
    /// Whether nothing was copied.
    pub fn is_empty(&self) -> bool {
        self.files == 0
    }
}

impl Counts {
    fn read(&self) -> IncludeCounts {
        IncludeCounts {
            files: self.files.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            reflinked: self.reflinked.load(Ordering::Relaxed),
        }
    }
}

/// nodwyn's own folder (worktrees, kept versions) is never copied into a worktree.
fn is_nodwyns_own(relative: &str) -> bool {
    relative == ".nodwyn" || relative.starts_with(".nodwyn/")
}

struct Patterns {
    matcher: Gitignore,
    /// For each pattern that is not a negation, the literal folder part it starts with
    /// (`config/` for `config/*.json`; empty for `.env` or `**/x`).
    literal_folders: Vec<String>,
}

impl Patterns {
    fn parse(repository: &Path, text: &str) -> Self {
        let mut builder = GitignoreBuilder::new(repository);
        let mut literal_folders = Vec::new();
        for line in text.lines() {
            let pattern = line.trim_end();
            if pattern.is_empty() || pattern.starts_with('#') {
                continue;
            }
            if builder.add_line(None, pattern).is_err() {
                tracing::warn!(
                    pattern,
                    "skipping a .worktreeinclude line that is not a pattern"
                );
                continue;
            }
            if !pattern.starts_with('!') {
                literal_folders.push(literal_folder(pattern));
            }
        }
        let matcher = builder.build().unwrap_or_else(|e| {
            tracing::warn!(error = %e, ".worktreeinclude could not be read as patterns");
            Gitignore::empty()
        });
        Self {
            matcher,
            literal_folders,
        }
    }

    /// Whether the patterns choose `relative` (or a folder above it) and no later `!` pattern
    /// takes it back.
    fn chooses(&self, relative: &str, is_folder: bool) -> bool {
        self.matcher
            .matched_path_or_any_parents(relative, is_folder)
            .is_ignore()
    }

    /// Whether a pattern names a path inside `folder` from the top.
    fn may_choose_inside(&self, folder: &str) -> bool {
        let folder = format!("{folder}/");
        self.literal_folders
            .iter()
            .filter(|literal| !literal.is_empty())
            .any(|literal| literal.starts_with(&folder) || folder.starts_with(literal.as_str()))
    }
}

/// The literal folder part a pattern starts with: up to the last `/` before any glob character
/// (`build/` for `build/cache/`, a folder inside a folder git may list as one ignored entry).
fn literal_folder(pattern: &str) -> String {
    let pattern = pattern.trim_start_matches('/').trim_end_matches('/');
    let literal_end = pattern.find(['*', '?', '[', '\\']).unwrap_or(pattern.len());
    let literal = &pattern[..literal_end];
    match literal.rfind('/') {
        Some(slash) if slash + 1 < pattern.len() => literal[..=slash].to_owned(),
        _ => String::new(),
    }
}

struct Copier<'a> {
    from: &'a Path,
    to: &'a Path,
    patterns: &'a Patterns,
    credentials: Credentials,
    progress: &'a Notices,
    counts: Counts,
}

/// Whether credential files are copied: only when the person's own file asks for them.
enum Credentials {
    Copied,
    /// The `.worktreeinclude` is tracked: what this denylist names is left out.
    LeftOut(&'static nodwyn_guard::Denylist),
}

impl Copier<'_> {
    /// Why `relative` is not copied though a pattern chooses it, if it is not.
    fn left_out(&self, relative: &str) -> Option<String> {
        let Credentials::LeftOut(denylist) = &self.credentials else {
            return None;
        };
        denylist
            .judge(Path::new(relative), self.from)
            .is_denied()
            .then(|| {
                format!(
                    "a credential file, and the repository tracks {INCLUDE_FILE}, so it copies none; keep {INCLUDE_FILE} untracked (yours) to have it copied"
                )
            })
    }

    /// Copies one chosen entry (a file, a link, or a whole folder); returns `false` when it is
    /// left out (see [`Copier::left_out`]), which `failed` then says.
    fn copy(&self, relative: &str, failed: &mut Vec<IncludeFailure>) -> bool {
        if let Some(why) = self.left_out(relative) {
            fail(failed, relative, why);
            return false;
        }
        let source = self.from.join(relative);
        let meta = match std::fs::symlink_metadata(&source) {
            Ok(meta) => meta,
            Err(e) => {
                fail(failed, relative, e.to_string());
                return true;
            }
        };
        if meta.is_dir() {
            self.copy_folder(relative, failed);
        } else if let Err(error) = self.copy_one(relative, &meta) {
            fail(failed, relative, error);
        }
        true
    }

    /// Walks an unchosen folder a pattern points into, copying the files it chooses.
    fn copy_chosen_inside(&self, folder: &str, included: &mut Included) {
        let source = self.from.join(folder);
        let Ok(entries) = std::fs::read_dir(&source) else {
            return;
        };
        for entry in entries.flatten() {
            let relative = format!("{folder}/{}", entry.file_name().to_string_lossy());
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if self.patterns.chooses(&relative, meta.is_dir()) {
                if !self.copy(&relative, &mut included.failed) {
                    continue;
                }
                included.copied.push(if meta.is_dir() {
                    format!("{relative}/")
                } else {
                    relative
                });
            } else if meta.is_dir() && self.patterns.may_choose_inside(&relative) {
                self.copy_chosen_inside(&relative, included);
            }
        }
    }

    /// Copies a chosen folder: its folders made in one walk, then its files on every core.
    fn copy_folder(&self, folder: &str, failed: &mut Vec<IncludeFailure>) {
        let mut files = Vec::new();
        self.walk_folder(folder, failed, &mut files);
        let total = files.len();
        let done = AtomicUsize::new(0);
        let told = Mutex::new(Instant::now());
        let failures = Mutex::new(Vec::new());
        files.par_iter().for_each(|(relative, meta)| {
            if let Err(error) = self.copy_one(relative, meta) {
                failures
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(IncludeFailure {
                        path: relative.clone(),
                        error,
                    });
            }
            let copied = done.fetch_add(1, Ordering::Relaxed) + 1;
            if total >= PROGRESS_FROM
                && let Ok(mut last) = told.try_lock()
                && last.elapsed() >= PROGRESS_EVERY
            {
                *last = Instant::now();
                self.progress
                    .tell(&format!("copying {folder}/: {copied} of {total} files"));
            }
        });
        if total >= PROGRESS_FROM {
            self.progress
                .tell(&format!("copied {folder}/: {total} files"));
        }
        let mut failures = failures
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        failures.sort_by(|a, b| a.path.cmp(&b.path));
        failed.extend(failures);
    }

    /// Makes `folder` and every folder below it that the patterns choose, and lists the files and
    /// links to copy into `files`.
    fn walk_folder(
        &self,
        folder: &str,
        failed: &mut Vec<IncludeFailure>,
        files: &mut Vec<(String, std::fs::Metadata)>,
    ) {
        if let Err(error) = self.make_folder(folder) {
            return fail(failed, folder, error);
        }
        let source = self.from.join(folder);
        let entries = match std::fs::read_dir(&source) {
            Ok(entries) => entries,
            Err(e) => return fail(failed, folder, e.to_string()),
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    fail(failed, folder, e.to_string());
                    continue;
                }
            };
            let relative = format!("{folder}/{}", entry.file_name().to_string_lossy());
            let meta = match entry.path().symlink_metadata() {
                Ok(meta) => meta,
                Err(e) => {
                    fail(failed, &relative, e.to_string());
                    continue;
                }
            };
            // A `!` pattern takes back part of a chosen folder.
            if !self.patterns.chooses(&relative, meta.is_dir()) {
                continue;
            }
            if let Some(why) = self.left_out(&relative) {
                fail(failed, &relative, why);
                continue;
            }
            if meta.is_dir() {
                self.walk_folder(&relative, failed, files);
            } else {
                files.push((relative, meta));
            }
        }
    }

    /// Copies one file or link; something already at the destination is left as it is. The
    /// destination's folder is opened from the worktree one component at a time without
    /// following links (see `nodwyn_prim::beneath`), and the file made there exclusively, so a
    /// link swapped in meanwhile cannot send the copy out of the worktree.
    fn copy_one(&self, relative: &str, meta: &std::fs::Metadata) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let source = self.from.join(relative);
        let destination = nodwyn_prim::beneath::Beneath::open(self.to, &self.to.join(relative))
            .map_err(|e| e.to_string())?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&source).map_err(|e| e.to_string())?;
            if destination
                .create_link(&target)
                .map_err(|e| e.to_string())?
            {
                self.counts.files.fetch_add(1, Ordering::Relaxed);
            }
            return Ok(());
        }
        if !meta.is_file() {
            return Ok(());
        }
        let mut file = std::fs::File::open(&source).map_err(|e| e.to_string())?;
        let made = destination
            .create_clone_of(&mut file, meta.permissions().mode())
            .map_err(|e| e.to_string())?;
        if let Some(how) = made {
            self.counts.files.fetch_add(1, Ordering::Relaxed);
            self.counts.bytes.fetch_add(meta.len(), Ordering::Relaxed);
            if how == CopiedBy::Reflink {
                self.counts.reflinked.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Makes `relative` a real folder in the worktree, one component at a time without following
    /// links (one could point outside the worktree), as each copied file's folder is made.
    fn make_folder(&self, relative: &str) -> Result<(), String> {
        nodwyn_prim::beneath::Beneath::make_folders(self.to, &self.to.join(relative))
            .map_err(|e| e.to_string())
    }
}

fn fail(failed: &mut Vec<IncludeFailure>, path: &str, error: String) {
    failed.push(IncludeFailure {
        path: path.to_owned(),
        error,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_folders_stop_at_the_first_glob() {
        assert_eq!(literal_folder("config/secrets.json"), "config/");
        assert_eq!(literal_folder("/config/local/*.json"), "config/local/");
        assert_eq!(literal_folder(".env"), "");
        assert_eq!(literal_folder("**/x"), "");
        assert_eq!(literal_folder("target/"), "");
        assert_eq!(literal_folder("a*/b"), "");
    }

    #[test]
    fn patterns_choose_with_negation_and_double_star() {
        let patterns = Patterns::parse(
            Path::new("/r"),
            "# comment\n.env\n!.env.local\ncache/**/*.bin\ntarget/\n!target/tmp/\n",
        );
        assert!(patterns.chooses(".env", false));
        assert!(patterns.chooses("sub/.env", false));
        assert!(!patterns.chooses(".env.local", false));
        assert!(patterns.chooses("cache/a/b/c.bin", false));
        assert!(!patterns.chooses("cache/a/b/c.txt", false));
        assert!(patterns.chooses("target", true));
        assert!(!patterns.chooses("target/tmp", true));
        assert!(patterns.may_choose_inside("cache"));
        assert!(patterns.may_choose_inside("cache/a"));
        assert!(!patterns.may_choose_inside("node_modules"));
    }
}
