//! `nodwyn-protocol`: what a front-end (`nodwyn run`, later `nodwyn chat`, the MCP server, the
//! daemon's web console and the TUI) and the engine say to each other, as serde types only.
//!
//! The shape follows the agent hosts that do this best: a client sends [`Request`]s (each with
//! an id, answered by a [`Response`]); the engine sends [`Notification`]s of what happens (a
//! turn starts, an [`Item`] starts, grows and completes, the turn completes with its usage); and
//! when the guard needs a person, the engine sends the client a [`ServerRequest`] that the
//! client answers. In process, `nodwyn run` passes these values over channels; the daemon will
//! carry the same JSON over a socket. The conversation records of a session's log are the same
//! [`Item`]s, so what a client was told and what the log keeps cannot drift apart.
//!
//! The plain choices of the person's configuration the engine obeys are here too ([`settings`]),
//! so the configuration names them without depending on the engine. The records of a session's
//! log are here as well ([`record`]): core writes them, every front-end
//! reads them. Every message and record type's JSON is snapshot-tested (`tests/snapshots`): a
//! changed field is a reviewed diff.

mod item;
mod message;
pub mod record;
pub mod rpc;
pub mod settings;

pub use item::{Item, ModelCall, PlanStatus, PlanStep, ToolCallItem, TurnEnd, TurnUsage};
pub use message::{
    Approval, ApprovalKind, ChangeScope, Decision, Envelope, FileComment, Hello, LineComment,
    Notification, Request, Response, ServerRequest, WorktreeMode,
};

/// The protocol's version: raised when a message changes in a way an older client cannot read.
pub const VERSION: u32 = 2;
