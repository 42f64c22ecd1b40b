//! What can go wrong talking to a model, each in one sentence that names the server and never
//! the key.

/// A model call that failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server could not be reached, or the connection broke, after every try.
    #[error("could not reach the model server at {server} ({why}) after {tries} tries")]
    Unreachable {
        /// The server's address.
        server: String,
        /// Why.
        why: String,
        /// How many tries were made.
        tries: u32,
    },
    /// The server answered with an error status.
    #[error("the model server at {server} answered {status}{}: {message}", tries_note(*tries))]
    Status {
        /// The server's address.
        server: String,
        /// The HTTP status, with its reason.
        status: String,
        /// What the server said (shortened, the key taken out).
        message: String,
        /// How many tries were made.
        tries: u32,
    },
    /// The stream broke or carried something unreadable after output had reached the caller
    /// (which is why it is not tried again).
    #[error("the model server at {server} broke off its answer: {why}")]
    Broken {
        /// The server's address.
        server: String,
        /// Why.
        why: String,
    },
    /// The profile cannot be used.
    #[error("{0}")]
    Profile(String),
}

fn tries_note(tries: u32) -> String {
    if tries > 1 {
        format!(" after {tries} tries")
    } else {
        String::new()
    }
}
