//! How much of an answer a client accepts and how long it waits for one: the answer's text and
//! tool calls in bytes, its number of tool calls, the length of one server-sent event, a deadline for the whole call and a
//! longest silence between events. Each counts what actually arrived, never what the server
//! says about itself.

use std::time::Duration;

use crate::error::Bound;

/// The most bytes of text, tool names, ids and arguments one answer may carry (16 MiB).
pub const MAX_ANSWER_BYTES: usize = 16 << 20;

/// The most tool calls one answer may make.
pub const MAX_TOOL_CALLS: usize = 128;

/// The longest line of a server-sent event stream, and the longest data of one event (4 MiB).
pub const MAX_EVENT_BYTES: usize = 4 << 20;

/// The longest one model call may take, every try and wait included (half an hour: a model on
/// a laptop's processor may read a long prompt for minutes and write a few tokens a second).
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(30 * 60);

/// The longest silence between two events once an answer has begun streaming (comments and
/// `ping` events are silence: they carry nothing of the answer).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(2 * 60);

/// The bounds a [`Client`](crate::Client) holds an answer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes of text, tool names, ids and arguments in one answer.
    pub answer_bytes: usize,
    /// The most tool calls in one answer.
    pub tool_calls: usize,
    /// The longest server-sent event line, or data of one event, in bytes.
    pub event_bytes: usize,
    /// The longest a whole call may take, every try included.
    pub deadline: Duration,
    /// The longest silence between two events of a streamed answer, once its first event came.
    pub idle: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            answer_bytes: MAX_ANSWER_BYTES,
            tool_calls: MAX_TOOL_CALLS,
            event_bytes: MAX_EVENT_BYTES,
            deadline: ANSWER_DEADLINE,
            idle: IDLE_TIMEOUT,
        }
    }
}

/// What one answer has carried so far, checked against its limits as it grows.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    limits: Limits,
    bytes: usize,
    calls: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self::new(Limits::default())
    }
}

impl Budget {
    pub(crate) fn new(limits: Limits) -> Self {
        Self {
            limits,
            bytes: 0,
            calls: 0,
        }
    }

    /// Counts `piece` (text, a name, an id or part of the arguments) as received.
    pub(crate) fn take(&mut self, piece: &str) -> Result<(), Bound> {
        self.bytes = self.bytes.saturating_add(piece.len());
        if self.bytes > self.limits.answer_bytes {
            return Err(Bound::AnswerTooLarge {
                limit: self.limits.answer_bytes,
            });
        }
        Ok(())
    }

    /// The bytes received so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes as u64
    }

    /// Counts one more tool call, as it begins.
    pub(crate) fn call(&mut self) -> Result<(), Bound> {
        self.calls += 1;
        if self.calls > self.limits.tool_calls {
            return Err(Bound::TooManyToolCalls {
                limit: self.limits.tool_calls,
            });
        }
        Ok(())
    }
}
