//! `nodwyn-agent`: nodwyn's own agent, the async edge between a model and the synchronous core.
//!
//! An [`Agent`] holds one session's runtime, a model and the conversation so far (read back
//! from the session's log when a session is resumed). Each [`Agent::turn`] takes the person's
//! message and works it to the end: the system prompt composed in Scheme (exactly what
//! `nodwyn prompt` shows), a call to the model with the primitives as tools, each tool call run
//! through a core `Turn` (guard, person, log) on a blocking thread, its result fed back, until
//! the model answers without calling a tool, a limit is reached, or the person interrupts.
//! Everything that happens is told to the [`Frontend`] as protocol notifications, and the
//! guard's questions go to it too: `nodwyn run` is one front-end, the daemon and the MCP server
//! will be others.

mod engine;
mod frontend;
mod history;
pub mod judge;
mod options;
mod tools;

pub use engine::{
    Agent, BYTES_PER_TOKEN, MAX_SUBAGENT_DEPTH, MAX_TOOL_CALLS_PER_ANSWER, MOVED_NOTICE, Profiles,
    TurnOutcome,
};
pub use frontend::{Frontend, FrontendPerson, approval_request};
pub use options::Options;
pub use tools::SCHEME_TOOL;
