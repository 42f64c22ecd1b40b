//! Finishing a linked worktree's checkout that was cut short.
//!
//! `git worktree add` writes the worktree's files one by one and its index last, holding
//! `index.lock` meanwhile. Killed in between (a closed terminal, an out-of-memory kill of the
//! group), it leaves some of the branch's files, none of the rest, maybe one written in part, and
//! the lock. Read as it is, such a worktree says that every file not yet written was deleted.
//! [`inspect`] makes the index again from HEAD without touching a file and says which tracked
//! files are missing and which differ; [`write_from_index`] then writes those from the index.
//! What the caller does with a differing file (a file written in part, or one a person changed
//! meanwhile) before it is written again is the caller's to decide: it should keep a copy.
//!
//! A fast-forward of a checkout (`git merge --ff-only`) cut short the same way (a full disk)
//! leaves the branch where it was and some files already at the new commit. [`put_back_move`]
//! puts exactly those files back.

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};
use crate::gitdir::GitDir;

/// The tracked files of a worktree whose checkout was cut short that are not as its HEAD has
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unwritten {
    /// Files HEAD has that the folder does not.
    pub missing: Vec<String>,
    /// Files the folder has with other content than HEAD's.
    pub differing: Vec<String>,
}

/// Makes the index of the linked worktree `worktree` again from its HEAD (removing the lock a
/// killed git left: the caller must know that no git runs there), leaves every file as it is,
/// and lists the tracked files that are missing or differ.
pub fn inspect(worktree: &Path) -> Result<Unwritten, Error> {
    let GitDir::Linked { git_dir, .. } = crate::gitdir::of(worktree)? else {
        return Err(Error::Redirected {
            dir: worktree.to_path_buf(),
            why: "it has no .git file of a linked worktree".to_owned(),
        });
    };
    let lock = git_dir.join("index.lock");
    match std::fs::remove_file(&lock) {
        Ok(()) => {
            tracing::info!(lock = %lock.display(), "removed the lock a cut-short checkout left")
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(Error::Io { path: lock, source }),
    }
    GitCommand::new(worktree)
        .args(["read-tree", "HEAD"])
        .run()?;
    // The new index knows no file's stat: a refresh compares each file's content with HEAD's
    // and records the ones that match. It exits 1 when some do not, which is the answer sought.
    GitCommand::new(worktree)
        .args(["update-index", "-q", "--refresh"])
        .output()?;
    let listed = |which: &str| -> Result<Vec<String>, Error> {
        let stdout = GitCommand::new(worktree)
            .read_only()
            .args(["ls-files", "-z", which])
            .run()?;
        Ok(nul_records(&stdout).collect())
    };
    let missing = listed("--deleted")?;
    let differing = listed("--modified")?
        .into_iter()
        .filter(|path| !missing.contains(path))
        .collect();
    Ok(Unwritten { missing, differing })
}

/// Writes `paths` from the index of `worktree`, replacing what the folder has there (through the
/// person's filters, as a checkout does).
pub fn write_from_index(worktree: &Path, paths: &[String]) -> Result<(), Error> {
    if paths.is_empty() {
        return Ok(());
    }
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path.as_bytes());
        input.push(0);
    }
    GitCommand::new(worktree)
        .args(["checkout-index", "--force", "-z", "--stdin"])
        .input(input)
        .run()
        .map(drop)
}

/// The files a fast-forward of the checkout `dir` from `from` to `to` that failed had already
/// written: those the two commits differ in that now hold `to`'s content rather than `from`'s.
pub fn moved_files(dir: &Path, from: &str, to: &str) -> Result<Vec<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["diff", "--name-only", "-z", "--no-renames", from, to, "--"])
        .run()?;
    let mut moved = Vec::new();
    for path in nul_records(&stdout) {
        let now = std::fs::symlink_metadata(dir.join(&path))
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|_| {
                GitCommand::new(dir)
                    .read_only()
                    .args(["hash-object", "--", &path])
                    .run_text()
                    .ok()
            });
        let blob = |commit: &str| {
            GitCommand::new(dir)
                .read_only()
                .args([
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("{commit}:{path}"),
                ])
                .run_text()
                .ok()
        };
        let (before, after) = (blob(from), blob(to));
        let present = std::fs::symlink_metadata(dir.join(&path)).is_ok();
        let written = match &now {
            // Where the old commit has no file, whatever is there is the move's (a merge never
            // writes over a file git does not track): written whole or in part.
            _ if before.is_none() => present,
            // One that holds the new content.
            Some(now) => after.as_deref() == Some(now.as_str()) && before.as_deref() != Some(now),
            // One the old commit has that is gone (deleted, or removed to be written again).
            None => !present,
        };
        if written {
            moved.push(path);
        }
    }
    Ok(moved)
}

/// Puts the files of `moved` (see [`moved_files`]) back as `from` has them: written again from
/// it, or removed when `from` does not have them.
pub fn put_back_move(dir: &Path, from: &str, moved: &[String]) -> Result<(), Error> {
    let (kept, added): (Vec<&String>, Vec<&String>) = moved.iter().partition(|path| {
        GitCommand::new(dir)
            .read_only()
            .args(["cat-file", "-e", &format!("{from}:{path}")])
            .run()
            .is_ok()
    });
    for path in added {
        let file = dir.join(path);
        std::fs::remove_file(&file).map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
        // The folders the move made for it go too, when nothing else is in them.
        let mut folder = file.parent();
        while let Some(empty) = folder.filter(|f| *f != dir) {
            if std::fs::remove_dir(empty).is_err() {
                break;
            }
            folder = empty.parent();
        }
    }
    if kept.is_empty() {
        return Ok(());
    }
    GitCommand::new(dir)
        .args(["checkout", from, "--"])
        .args(kept.iter().map(|p| format!(":(literal){p}")))
        .run()
        .map(drop)
}
