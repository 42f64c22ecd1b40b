//! The error type of `nodwyn-git`: every failure names the folder it happened in.

use std::path::PathBuf;

/// Everything that can go wrong in `nodwyn-git`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The `git` program could not be started at all.
    #[error("could not run git in {dir}")]
    Spawn {
        /// Where git was to run.
        dir: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// `git` ran and exited non-zero.
    #[error("`git {args}` failed in {dir}: {stderr}")]
    Failed {
        /// Where git ran.
        dir: PathBuf,
        /// The arguments, for the person to repeat the call.
        args: String,
        /// The exit code, if git was not killed by a signal.
        code: Option<i32>,
        /// The last line git printed on stderr.
        stderr: String,
    },
    /// libgit2 answered with an error.
    #[error("could not read the git repository at {dir}: {}", source.message())]
    Read {
        /// The folder that was being read.
        dir: PathBuf,
        /// libgit2's error.
        #[source]
        source: git2::Error,
    },
    /// The folder is not inside any git repository.
    #[error("{dir} is not in a git repository")]
    NotARepository {
        /// The folder asked about.
        dir: PathBuf,
    },
    /// The folder belongs to a bare repository, which has no main worktree.
    #[error("{dir} is a bare git repository; nodwyn needs a repository with a working tree")]
    Bare {
        /// The folder asked about.
        dir: PathBuf,
    },
    /// A worktree's `.git` file names a git directory that is not this worktree's in a
    /// repository nodwyn can trust (see `crate::gitdir`).
    #[error(
        "{dir} is no longer a worktree nodwyn can trust ({why}), so nodwyn runs no git there; `git worktree repair` in its repository restores its .git file"
    )]
    Redirected {
        /// The worktree's top folder.
        dir: PathBuf,
        /// What is wrong with its `.git`.
        why: String,
    },
    /// A revision range that could be read as an option, or an empty one.
    #[error("`{0}` is not a revision range (such as origin/main..HEAD)")]
    BadRevision(String),
    /// A file system call failed.
    #[error("could not read {path}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn read(dir: &std::path::Path) -> impl FnOnce(git2::Error) -> Error + '_ {
        move |source| Error::Read {
            dir: dir.to_path_buf(),
            source,
        }
    }
}

impl Error {
    /// A stable code for programs to act on (the sentence is for people).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Spawn { .. } => "git_not_started",
            Error::Failed { .. } => "git_failed",
            Error::Read { .. } => "git_read",
            Error::NotARepository { .. } => "not_a_git_repo",
            Error::Bare { .. } => "bare_repository",
            Error::Redirected { .. } => "worktree_redirected",
            Error::BadRevision(_) => "bad_revision",
            Error::Io { .. } => "io",
        }
    }
}
