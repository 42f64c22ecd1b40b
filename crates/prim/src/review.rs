//! A session's changes since a commit, file by file: committed, staged, unstaged and untracked
//! alike, read through fixed git arguments with no external diff, text conversion or filter
//! program. Credential files are left out and named; each file's diff is capped; a file git
//! cannot read, or with no lines to show, is a note in its place; after the time limit the files
//! not reached are named instead of diffed. `nodwyn worktree diff` and `git-diff` both use it.

use std::path::Path;
use std::time::{Duration, Instant};

use nodwyn_git::diff::{Objects, Snapshot};
use nodwyn_guard::Denylist;
use serde::Serialize;

use crate::Error;

/// One hunk of a file's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// Its `@@ -a,b +c,d @@` line.
    pub header: String,
    /// Its lines, each starting with `+`, `-` or a space.
    pub lines: Vec<String>,
}

/// One file of the review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The path, relative to the checkout's top.
    pub path: String,
    /// `added`, `modified`, `deleted` or `type-changed`.
    pub status: &'static str,
    /// Lines added (`null` for a binary file).
    pub added: Option<u64>,
    /// Lines removed (`null` for a binary file).
    pub removed: Option<u64>,
    /// The hunks, when there are lines to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<Hunk>>,
    /// Why there are no hunks, or why they stop early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A file the review does not show, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Omitted {
    /// The path.
    pub path: String,
    /// Why it is not shown.
    pub why: String,
}

/// A session's changes since `base_commit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Review {
    /// The commit the changes are counted from (for a review of the last turn, the tree of the
    /// files as it began).
    pub base_commit: String,
    /// The git tree of every file of the checkout as the review read them (credential files
    /// and those not reached included): a landing compares it with what it would land.
    pub tree: String,
    /// The files shown.
    pub files: Vec<FileChange>,
    /// The files left out: credential files, and those the time limit did not reach.
    pub omitted: Vec<Omitted>,
}

/// How much a review shows.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    /// The most bytes of lines of one file's diff.
    pub per_file: usize,
    /// The most bytes of lines of all the files' diffs together.
    pub total: usize,
    /// About the longest the review takes.
    pub time: Duration,
}

impl Caps {
    /// The caps `limits` set.
    pub fn of(limits: &crate::Limits) -> Self {
        Self {
            per_file: limits.diff_per_file,
            total: limits.diff_total,
            time: limits.diff_time,
        }
    }
}

/// The changes of the checkout at `dir` since `since`, as much as `caps` allow.
pub fn review(dir: &Path, since: &str, caps: &Caps) -> Result<Review, Error> {
    review_keeping(dir, since, caps, None)
}

/// [`review`], reading the objects kept in `kept` as well, so `since` may be the tree of an
/// earlier snapshot kept there (see `Objects::KeptIn`).
pub fn review_keeping(
    dir: &Path,
    since: &str,
    caps: &Caps,
    kept: Option<&Path>,
) -> Result<Review, Error> {
    let Caps {
        per_file,
        total,
        time,
    } = *caps;
    let started = Instant::now();
    let mut shown = 0usize;
    // The snapshot counts against the limit (with at least a second to take it): a folder of a
    // million untracked files stops the review with a sentence rather than holding it.
    let objects = kept.map_or(Objects::Temporary, Objects::ReadingKept);
    let snapshot = Snapshot::take_with(dir, time.max(Duration::from_secs(1)), &objects)?;
    let denylist = Denylist::standard();
    let mut review = Review {
        base_commit: since.to_owned(),
        tree: snapshot.tree()?,
        files: Vec::new(),
        omitted: snapshot
            .too_large
            .iter()
            .map(|(path, size)| Omitted {
                path: path.clone(),
                why: format!(
                    "an untracked file of {size} bytes, larger than a review reads ({} MiB)",
                    Snapshot::LARGEST_READ / (1024 * 1024)
                ),
            })
            .collect(),
    };
    for changed in snapshot.changed(since)? {
        let name = nodwyn_git::quote::os_name(&changed.path);
        if denylist.judge(Path::new(&name), dir).is_denied() {
            review.omitted.push(Omitted {
                path: changed.path,
                why: "a credential file, which the denylist keeps from agents".to_owned(),
            });
            continue;
        }
        if started.elapsed() >= time {
            review.omitted.push(Omitted {
                path: changed.path,
                why: format!("not reached within {} s", time.as_secs()),
            });
            continue;
        }
        if shown >= total {
            review.omitted.push(Omitted {
                path: changed.path,
                why: format!(
                    "past the {} KiB of lines a review shows in all",
                    total / 1024
                ),
            });
            continue;
        }
        let status = match changed.status {
            'A' => "added",
            'D' => "deleted",
            'T' => "type-changed",
            _ => "modified",
        };
        let (added, removed) = changed.lines.unzip();
        let (hunks, note) = match changed.lines {
            None => (None, Some("a binary file: no lines to show".to_owned())),
            Some(_) => match snapshot.file_diff(since, &changed.path) {
                Ok(diff) if total - shown < per_file => {
                    // The last room of the whole: once it is cut, the review is full.
                    let (hunks, size, note) = hunks_of(&diff, total - shown, || {
                        format!("cut: a review shows {} KiB of lines in all", total / 1024)
                    });
                    shown = if note.is_some() { total } else { shown + size };
                    (hunks, note)
                }
                Ok(diff) => {
                    let (hunks, size, note) = hunks_of(&diff, per_file, || {
                        format!("cut at {} KiB", per_file / 1024)
                    });
                    shown += size;
                    (hunks, note)
                }
                Err(e) => (None, Some(format!("git could not diff it: {e}"))),
            },
        };
        review.files.push(FileChange {
            path: changed.path,
            status,
            added,
            removed,
            hunks,
            note,
        });
    }
    Ok(review)
}

/// The hunks of one file's unified diff, stopping at `cap` bytes of lines, the bytes they hold,
/// and a note when there are none or when they were cut (`cut_note` says how).
fn hunks_of(
    diff: &[u8],
    cap: usize,
    cut_note: impl FnOnce() -> String,
) -> (Option<Vec<Hunk>>, usize, Option<String>) {
    let text = String::from_utf8_lossy(diff);
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut size = 0usize;
    let mut cut = false;
    for line in text.lines() {
        if line.starts_with("@@") {
            if size >= cap {
                cut = true;
                break;
            }
            hunks.push(Hunk {
                header: line.to_owned(),
                lines: Vec::new(),
            });
        } else if let Some(hunk) = hunks.last_mut() {
            if size + line.len() > cap {
                cut = true;
                break;
            }
            size += line.len() + 1;
            hunk.lines.push(line.to_owned());
        }
    }
    if hunks.is_empty() {
        return (
            None,
            0,
            Some("no lines to show (a mode change or an empty file)".to_owned()),
        );
    }
    let note = cut.then(cut_note);
    (Some(hunks), size, note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_read_and_capped() {
        let diff = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n+c\n@@ -9 +10 @@\n-d\n+e\n";
        let (hunks, size, note) = hunks_of(diff, 1 << 20, String::new);
        let hunks = hunks.unwrap();
        assert_eq!(size, 15, "five lines of two bytes and their line breaks");
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].header, "@@ -1 +1,2 @@");
        assert_eq!(hunks[0].lines, ["-a", "+b", "+c"]);
        assert_eq!(note, None);
        let (hunks, _, note) = hunks_of(diff, 6, || "cut".to_owned());
        assert_eq!(hunks.unwrap()[0].lines, ["-a", "+b"]);
        assert_eq!(note.as_deref(), Some("cut"));
    }

    /// A repository with one empty commit, and that commit.
    fn repository() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            nodwyn_git::GitCommand::new(dir.path())
                .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
                .args(args)
                .run()
                .unwrap()
        };
        git(&["init", "-q"]);
        git(&["commit", "-q", "--allow-empty", "-m", "first"]);
        let base = nodwyn_git::repo::resolve_commit(dir.path(), "HEAD")
            .unwrap()
            .unwrap();
        (dir, base)
    }

    fn caps(total: usize, time: Duration) -> Caps {
        Caps {
            per_file: 1024,
            total,
            time,
        }
    }

    #[test]
    fn files_past_the_time_limit_are_named_as_not_reached() {
        let (dir, base) = repository();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join(".env"), "X=1\n").unwrap();
        let late = review(dir.path(), &base, &caps(1 << 20, Duration::ZERO)).unwrap();
        assert!(late.files.is_empty());
        let mut omitted: Vec<(&str, &str)> = late
            .omitted
            .iter()
            .map(|o| (o.path.as_str(), o.why.as_str()))
            .collect();
        omitted.sort();
        assert_eq!(omitted[0].0, ".env");
        assert!(omitted[0].1.contains("credential"));
        assert_eq!(omitted[1], ("a.txt", "not reached within 0 s"));
        let on_time = review(dir.path(), &base, &caps(1 << 20, Duration::from_secs(30))).unwrap();
        assert_eq!(on_time.files[0].path, "a.txt");
        assert_eq!(on_time.files[0].added, Some(1));
    }

    #[test]
    fn files_past_the_whole_cap_are_named_as_omitted() {
        let (dir, base) = repository();
        for name in ["a.txt", "b.txt", "c.txt"] {
            std::fs::write(dir.path().join(name), "x\n".repeat(300)).unwrap();
        }
        // Room for one file's 900 bytes of lines (300 of `+x`) and part of the next.
        let review = review(dir.path(), &base, &caps(1000, Duration::from_secs(30))).unwrap();
        let shown: Vec<(&str, usize, Option<&str>)> = review
            .files
            .iter()
            .map(|f| {
                let lines = f.hunks.iter().flatten().map(|h| h.lines.len()).sum();
                (f.path.as_str(), lines, f.note.as_deref())
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("a.txt", 300, None),
                (
                    "b.txt",
                    33,
                    Some("cut: a review shows 0 KiB of lines in all")
                ),
            ]
        );
        assert_eq!(review.omitted.len(), 1);
        assert_eq!(review.omitted[0].path, "c.txt");
        assert_eq!(
            review.omitted[0].why,
            "past the 0 KiB of lines a review shows in all"
        );
    }

    #[test]
    fn a_diff_without_hunks_is_a_note() {
        let (hunks, _, note) = hunks_of(
            b"diff --git a/x b/x\nold mode 100644\nnew mode 100755\n",
            1024,
            String::new,
        );
        assert!(hunks.is_none());
        assert!(note.unwrap().contains("no lines"));
    }
}
