//! What can go wrong talking to a model, each in one sentence that names the server and never
//! the key, with a stable code for programs ([`Error::code`]).

use std::time::Duration;

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
    #[error("the model server at {server} answered {status} to POST {url}{}: {message}", tries_note(*tries))]
    Status {
        /// The server's address.
        server: String,
        /// The URL asked (without credentials or query).
        url: String,
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
    /// The answer passed one of the client's [`Limits`](crate::Limits), so it was stopped and
    /// its connection dropped.
    #[error("the model server at {server} sent an answer that was stopped: {bound}")]
    Bound {
        /// The server's address.
        server: String,
        /// Which limit it passed.
        bound: Bound,
    },
    /// The profile cannot be used.
    #[error("{0}")]
    Profile(String),
}

/// A limit an answer passed, counted on what arrived.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Bound {
    /// One line of the event stream, or the data of one event, was too long.
    #[error("one of its server-sent events passed {} without ending", size(*limit))]
    EventTooLong {
        /// The most bytes allowed.
        limit: usize,
    },
    /// Its text, tool names, ids and arguments together were too large.
    #[error("its text and tool calls passed {}", size(*limit))]
    AnswerTooLarge {
        /// The most bytes allowed.
        limit: usize,
    },
    /// It made too many tool calls.
    #[error("it made more than {limit} tool calls in one answer")]
    TooManyToolCalls {
        /// The most calls allowed.
        limit: usize,
    },
    /// It had not ended by the call's deadline.
    #[error("it had not ended after {limit:?}")]
    Deadline {
        /// The deadline.
        limit: Duration,
    },
    /// Nothing of it arrived for too long.
    #[error("nothing of it arrived for {limit:?}")]
    Idle {
        /// The longest silence allowed.
        limit: Duration,
    },
}

impl Bound {
    /// A stable snake_case code for programs.
    pub fn code(&self) -> &'static str {
        match self {
            Bound::EventTooLong { .. } => "model_event_too_long",
            Bound::AnswerTooLarge { .. } => "model_answer_too_large",
            Bound::TooManyToolCalls { .. } => "model_too_many_tool_calls",
            Bound::Deadline { .. } => "model_answer_timed_out",
            Bound::Idle { .. } => "model_answer_stalled",
        }
    }
}

impl Error {
    /// A stable snake_case code for programs (the sentence is for people).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Unreachable { .. } => "model_unreachable",
            Error::Status { .. } => "model_status",
            Error::Broken { .. } => "model_broken",
            Error::Bound { bound, .. } => bound.code(),
            Error::Profile(_) => "model_profile",
        }
    }
}

/// A size in words: whole mebibytes as such, else bytes.
fn size(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

fn tries_note(tries: u32) -> String {
    if tries > 1 {
        format!(" after {tries} tries")
    } else {
        String::new()
    }
}
