//! The first step of a landing: commit every change with the message, credential files taken out
//! of the index again (even one a person staged already) and named; and, for a rebase a conflict
//! stopped, the check that no conflict marker is left before it continues.

use std::path::Path;

use nodwyn_git::commit;
use nodwyn_guard::Denylist;

use crate::Error;

/// What the commit step did.
#[derive(Debug, Default)]
pub(super) struct Committed {
    /// The new commit, when there was anything to commit.
    pub commit: Option<String>,
    /// Credential files that were changed and left out.
    pub left_out: Vec<String>,
    /// New files no primitive wrote, left out of an agent's landing (see
    /// [`crate::context::Context::written`]).
    pub not_written: Vec<String>,
    /// The new files committed.
    pub new_files: Vec<String>,
}

/// Which new files a landing commits: every one (a person's landing), or those the session's
/// primitives wrote and those the agent named (an agent's).
#[derive(Debug, Clone, Copy)]
pub struct NewFiles<'a> {
    /// The files the primitives wrote; `None` for every new file.
    pub written: Option<&'a [String]>,
    /// The files the agent named to land all the same.
    pub named: &'a [String],
}

impl NewFiles<'_> {
    /// Whether the landing commits the new file `path`.
    pub fn keeps(&self, path: &str) -> bool {
        let named = |list: &[String]| {
            list.iter().any(|p| {
                p.trim_start_matches("./") == path
                    || path.starts_with(&format!("{}/", p.trim_end_matches('/')))
            })
        };
        self.written.is_none_or(named) || named(self.named)
    }
}

/// Stages every change in `dir`, takes credential files out of the index again, and refuses if
/// one is still staged. Returns the staged paths and the ones left out.
pub(super) fn stage(dir: &Path) -> Result<(Vec<String>, Vec<String>), Error> {
    commit::stage_all(dir)?;
    let denylist = Denylist::standard();
    let denied = |paths: &[String]| -> Vec<String> {
        paths
            .iter()
            .filter(|p| denylist.judge(Path::new(p), dir).is_denied())
            .cloned()
            .collect()
    };
    let mut staged = commit::staged_paths(dir)?;
    let left_out = denied(&staged);
    if !left_out.is_empty() {
        commit::unstage(dir, &left_out)?;
        staged = commit::staged_paths(dir)?;
    }
    let still = denied(&staged);
    if !still.is_empty() {
        return Err(Error::declined(
            "credential_staged",
            format!(
                "{} could not be taken out of the index, so nothing was committed",
                still.join(", ")
            ),
        ));
    }
    Ok((staged, left_out))
}

/// Takes out of the index the new files `new_files` does not keep, and every temporary file a
/// killed write left; returns them and the new files kept.
fn keep_new_files(
    dir: &Path,
    new_files: NewFiles<'_>,
) -> Result<(Vec<String>, Vec<String>), Error> {
    // A write's temporary file, left by a write that was killed, is never landed by anyone.
    let leftover = |path: &str| {
        Path::new(path)
            .file_name()
            .is_some_and(|name| crate::beneath::is_leftover(&name.to_string_lossy()))
    };
    let (kept, not_written): (Vec<String>, Vec<String>) = commit::staged_additions(dir)?
        .into_iter()
        .partition(|path| new_files.keeps(path) && !leftover(path));
    commit::unstage(dir, &not_written)?;
    Ok((not_written, kept))
}

/// The commit step (see the module documentation); `sign` says whether signing is configured.
/// With changes to commit and no message, it refuses (the changes stay staged, the files as
/// they are).
pub(super) fn commit_all(
    dir: &Path,
    message: Option<&str>,
    sign: bool,
    new_files: NewFiles<'_>,
) -> Result<Committed, Error> {
    let (_, left_out) = stage(dir)?;
    let (not_written, kept) = keep_new_files(dir, new_files)?;
    let staged = commit::staged_paths(dir)?;
    if staged.is_empty() {
        return Ok(Committed {
            commit: None,
            left_out,
            not_written,
            new_files: Vec::new(),
        });
    }
    let Some(message) = message else {
        return Err(Error::declined(
            "message_needed",
            format!(
                "there are changes to commit ({}), so the landing needs a commit message (-m MESSAGE)",
                super::named(&staged)
            ),
        ));
    };
    let commit = commit::commit(dir, message).map_err(|e| signing_failure(sign, e))?;
    Ok(Committed {
        commit: Some(commit),
        left_out,
        not_written,
        new_files: kept,
    })
}

/// Words a failed git step as a signing failure when signing is configured (`sign`; git itself
/// never makes an unsigned commit then, nodwyn only says why nothing was made).
pub(super) fn signing_failure(sign: bool, error: nodwyn_git::Error) -> Error {
    if sign {
        Error::declined(
            "signing_failed",
            format!(
                "the commit could not be made, and signing is configured (commit.gpgsign), so nothing was committed unsigned; landing stopped. Check that the signing key is available to your agent. git said: {error}"
            ),
        )
    } else {
        Error::Git(error)
    }
}

/// Refuses while a file in `paths` (relative to `dir`) still holds a conflict marker, naming the
/// first one of each file.
pub(super) fn refuse_conflict_markers(dir: &Path, paths: &[String]) -> Result<(), Error> {
    let mut found = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        let Ok(bytes) = std::fs::read(dir.join(path)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut opened = None;
        for (number, line) in text.lines().enumerate() {
            if line.starts_with("<<<<<<<") {
                opened = Some(number + 1);
            } else if line.starts_with(">>>>>>>")
                && let Some(first) = opened
            {
                found.push(format!("{path}:{first}"));
                files.push(path.clone());
                break;
            }
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::declined(
        "conflict_markers",
        format!(
            "conflict markers remain in {}; resolve them, then land again",
            found.join(", ")
        ),
    )
    .about_files(&files))
}
