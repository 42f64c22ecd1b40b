//! The error type of `nodwyn-prim`. A refusal is one sentence saying what was refused and why, in
//! words the caller (a model or a person) can act on.

use std::path::PathBuf;

/// Everything that can go wrong, or be refused, when a primitive is described or run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The arguments do not fit the primitive's schema.
    #[error("{primitive}: {message}")]
    BadArguments {
        /// The primitive called.
        primitive: String,
        /// What is wrong with them.
        message: String,
    },
    /// No primitive has that name.
    #[error("no primitive is named `{0}`; `nodwyn call --list` lists them")]
    Unknown(String),
    /// A primitive of that name is already registered.
    #[error("a primitive named `{0}` is already registered")]
    Duplicate(String),
    /// The primitive refused, or could not do what was asked; the sentence says which and why.
    #[error("{0}")]
    Refused(String),
    /// A refusal a program can act on: a stable code (`credential_refused`, `not_fast_forward`,
    /// `merge_conflict`, ...) and the sentence for people.
    #[error("{sentence}")]
    Declined {
        /// The stable code.
        code: &'static str,
        /// What was refused and why.
        sentence: String,
        /// The files it is about, where a program needs them (a conflict's files).
        files: Vec<String>,
    },
    /// A person or the system stopped the work (Ctrl-C, SIGTERM); the sentence says what state it
    /// left and what to do next.
    #[error("{0}")]
    Interrupted(String),
    /// A git call failed.
    #[error(transparent)]
    Git(#[from] nodwyn_git::Error),
    /// A file system call failed.
    #[error("could not use {path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// A stable code for programs to act on (the sentence is for people).
    pub fn code(&self) -> &'static str {
        match self {
            Error::BadArguments { .. } => "bad_arguments",
            Error::Unknown(_) => "unknown_primitive",
            Error::Duplicate(_) => "duplicate_primitive",
            Error::Refused(_) => "refused",
            Error::Declined { code, .. } => code,
            Error::Interrupted(_) => "interrupted",
            Error::Git(error) => error.code(),
            Error::Io { .. } => "io",
        }
    }

    /// A refusal with this sentence.
    pub fn refused(sentence: impl Into<String>) -> Self {
        Error::Refused(sentence.into())
    }

    /// A refusal with a stable `code` for programs and this sentence for people.
    pub fn declined(code: &'static str, sentence: impl Into<String>) -> Self {
        Error::Declined {
            code,
            sentence: sentence.into(),
            files: Vec::new(),
        }
    }

    /// This refusal about `files` (a conflict's files), named for programs beside the sentence.
    pub fn about_files(self, files: &[String]) -> Self {
        match self {
            Error::Declined { code, sentence, .. } => Error::Declined {
                code,
                sentence,
                files: files.to_vec(),
            },
            other => other,
        }
    }

    /// The same error with `sentence` in place of its words, its code and files kept.
    pub fn reworded(self, sentence: String) -> Self {
        match self {
            Error::Declined { code, files, .. } => Error::Declined {
                code,
                sentence,
                files,
            },
            _ => Error::Refused(sentence),
        }
    }

    /// The files a refusal is about, for programs (empty when it names none).
    pub fn files(&self) -> &[String] {
        match self {
            Error::Declined { files, .. } => files,
            _ => &[],
        }
    }

    /// A closure that wraps an I/O error on `path`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
