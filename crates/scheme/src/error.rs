//! The errors of the Scheme layer, each one sentence a person can act on.

use std::time::Duration;

/// Why a script did not give a value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source was refused before it ran (a forbidden form, nesting too deep).
    #[error("{0}")]
    Refused(String),
    /// Scheme raised an error: a syntax error, an unbound name, a primitive's refusal that was
    /// not caught. The text starts with `file:line:column` when the error has a place.
    #[error("{0}")]
    Scheme(String),
    /// The script ran longer than its limit and was interrupted.
    #[error(
        "{what} was stopped after {} s of Scheme time (the limit); a loop that never ends?",
        limit.as_secs_f64()
    )]
    TimeLimit {
        /// What was running.
        what: String,
        /// The limit it reached.
        limit: Duration,
    },
    /// The script made the program's memory grow past its limit and was interrupted.
    #[error(
        "{what} was stopped after it took more than {} MiB of memory (the limit)",
        limit / (1024 * 1024)
    )]
    MemoryLimit {
        /// What was running.
        what: String,
        /// The limit it passed, in bytes.
        limit: u64,
    },
    /// The host interrupted the script.
    #[error("the script was interrupted")]
    Interrupted,
    /// The engine failed inside steel itself; this engine is not used again.
    #[error("the Scheme engine failed ({0}); nothing more runs in it")]
    Crashed(String),
}
