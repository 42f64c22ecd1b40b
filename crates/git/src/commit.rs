//! Making commits the way the person's own `git` would: staging, reading what is staged, taking
//! paths out of the index again, `git commit` (hooks and signing as configured) and
//! `git commit-tree` for commits nodwyn assembles itself (a squash, a merge).

use std::path::Path;

use crate::Error;
use crate::command::{GitCommand, nul_records};

/// A pathspec that matches `path` exactly: no glob or other pathspec magic, whatever the name.
fn literal(path: &str) -> String {
    format!(":(literal){path}")
}

/// `git add --all`: stages every change of the checkout, new, changed and deleted files alike.
pub fn stage_all(dir: &Path) -> Result<(), Error> {
    GitCommand::new(dir).args(["add", "--all"]).run().map(drop)
}

/// The paths whose staged content differs from HEAD, each on its own (renames are read as a
/// deletion and an addition, so a rename's two paths are two entries).
pub fn staged_paths(dir: &Path) -> Result<Vec<String>, Error> {
    staged(dir, None)
}

/// The paths the index adds to HEAD (new files), each on its own.
pub fn staged_additions(dir: &Path) -> Result<Vec<String>, Error> {
    staged(dir, Some("--diff-filter=A"))
}

/// The paths the index deletes from HEAD (`git rm`), each on its own.
pub fn staged_deletions(dir: &Path) -> Result<Vec<String>, Error> {
    staged(dir, Some("--diff-filter=D"))
}

/// The files the index tracks that the folder no longer has (deleted there, not with `git rm`).
pub fn missing_files(dir: &Path) -> Result<Vec<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args(["ls-files", "-z", "--deleted"])
        .run()?;
    Ok(nul_records(&stdout).collect())
}

/// The paths whose staged content differs from HEAD, as `filter` (git's `--diff-filter`) keeps.
fn staged(dir: &Path, filter: Option<&str>) -> Result<Vec<String>, Error> {
    let stdout = GitCommand::new(dir)
        .read_only()
        .args([
            "diff",
            "--cached",
            "--name-only",
            "--no-renames",
            "--no-ext-diff",
        ])
        .args(filter)
        .args(["-z", "HEAD", "--"])
        .run()?;
    Ok(nul_records(&stdout).collect())
}

/// Puts the index entries of `paths` back to what HEAD has (`git reset HEAD -- PATH...`): a new
/// file leaves the index, a changed one goes back to its committed content. The files on disk
/// are not touched.
pub fn unstage(dir: &Path, paths: &[String]) -> Result<(), Error> {
    if paths.is_empty() {
        return Ok(());
    }
    GitCommand::new(dir)
        .args(["reset", "--quiet", "HEAD", "--"])
        .args(paths.iter().map(|p| literal(p)))
        .run()
        .map(drop)
}

/// `git commit` of the index with `message`, hooks and signing as the person configured them,
/// no editor and no prompt. Returns the new commit.
pub fn commit(dir: &Path, message: &str) -> Result<String, Error> {
    GitCommand::new(dir)
        .without_prompts()
        .args([
            "commit",
            "--quiet",
            "--no-edit",
            "--cleanup=strip",
            "-m",
            message,
        ])
        .run()?;
    crate::repo::resolve_commit(dir, "HEAD")?.ok_or_else(|| Error::BadRevision("HEAD".to_owned()))
}

/// A commit of `tree` with `parents` and `message`, made by `git commit-tree` (which runs no
/// hook), signed (`-S`, the person's key and format) when `sign` is set. Returns it.
pub fn commit_tree(
    dir: &Path,
    tree: &str,
    parents: &[&str],
    message: &str,
    sign: bool,
) -> Result<String, Error> {
    let mut command = GitCommand::new(dir)
        .without_prompts()
        .args(["commit-tree", tree]);
    for parent in parents {
        command = command.args(["-p", parent]);
    }
    if sign {
        command = command.arg("-S");
    }
    command.args(["-m", message]).run_text()
}

/// Who wrote a commit and when, as git records it (`Name <email> 1700000000 +0100`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// The name.
    pub name: String,
    /// The e-mail address.
    pub email: String,
    /// The date in git's internal form: seconds since the epoch and the offset.
    pub date: String,
}

/// A commit as `git cat-file commit` has it: its author and committer, its first parent, and its
/// message, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitParts {
    /// Its author.
    pub author: Author,
    /// Its committer.
    pub committer: Author,
    /// Its first parent, if it has one.
    pub parent: Option<String>,
    /// Its tree.
    pub tree: String,
    /// Its message, exactly as stored.
    pub message: Vec<u8>,
}

/// Reads `commit` (a full id)'s author, committer, first parent, tree and message, with libgit2.
pub fn parts(dir: &Path, commit: &str) -> Result<CommitParts, Error> {
    let repo = crate::repo::open(dir)?;
    let found = repo
        .find_commit(crate::repo::oid(dir, commit)?)
        .map_err(Error::read(dir))?;
    Ok(CommitParts {
        author: identity(&found.author()),
        committer: identity(&found.committer()),
        parent: found.parent_id(0).ok().map(|id| id.to_string()),
        tree: found.tree_id().to_string(),
        message: found.message_raw_bytes().to_vec(),
    })
}

/// A signature (author or committer) as git records it.
fn identity(signature: &git2::Signature<'_>) -> Author {
    let when = signature.when();
    let offset = when.offset_minutes();
    Author {
        name: String::from_utf8_lossy(signature.name_bytes()).into_owned(),
        email: String::from_utf8_lossy(signature.email_bytes()).into_owned(),
        date: format!(
            "{} {}{:02}{:02}",
            when.seconds(),
            if offset < 0 { '-' } else { '+' },
            offset.abs() / 60,
            offset.abs() % 60
        ),
    }
}

/// A commit of `tree` on `parent` with another commit's author and message (byte for byte),
/// made by `git commit-tree`: the committer is the person, as git configures them, and the
/// commit is signed when `sign` is set. Returns it.
pub fn remake(
    dir: &Path,
    tree: &str,
    parent: &str,
    original: &CommitParts,
    sign: bool,
) -> Result<String, Error> {
    let mut file = tempfile::NamedTempFile::new().map_err(|source| Error::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    std::io::Write::write_all(&mut file, &original.message).map_err(|source| Error::Io {
        path: file.path().to_path_buf(),
        source,
    })?;
    let mut command = GitCommand::new(dir)
        .without_prompts()
        .env("GIT_AUTHOR_NAME", &original.author.name)
        .env("GIT_AUTHOR_EMAIL", &original.author.email)
        .env("GIT_AUTHOR_DATE", &original.author.date)
        .args(["commit-tree", tree, "-p", parent]);
    if sign {
        command = command.arg("-S");
    }
    command.arg("-F").arg(file.path()).run_text()
}
