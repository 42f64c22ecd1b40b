//! The error type of `nodwyn-guard`.

use std::path::PathBuf;

/// Everything that can go wrong in `nodwyn-guard`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `allow.toml` is malformed; nothing of it is used.
    #[error("{path} line {line}: {message}; no standing answer in it is used until it is fixed")]
    AllowFile {
        /// The file.
        path: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A standing answer given for a session is not one.
    #[error("that standing answer is not valid: {0}")]
    StandingAnswer(String),
    /// A file could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
