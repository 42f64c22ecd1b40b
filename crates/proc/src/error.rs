//! What can go wrong starting or confining a process.

use std::path::PathBuf;

/// An error of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The program could not be started at all.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The program, as given.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The sandbox could not be set up, so the command was not run.
    #[error("the sandbox could not be set up, so the command was not run: {0}")]
    Sandbox(String),
    /// A folder the sandbox needs could not be made or read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Error {
    /// A stable snake_case code for programs.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Spawn { .. } => "spawn_failed",
            Error::Sandbox(_) => "sandbox_unavailable",
            Error::Io { .. } => "io_error",
        }
    }
}
