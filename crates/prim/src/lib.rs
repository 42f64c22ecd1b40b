//! `nodwyn-prim`: the actions an agent takes in a session, and git-land.
//!
//! Each [`Primitive`] declares its [`Effect`](nodwyn_guard::Effect) before it runs, so the host
//! can put the call to the guard; the [`Registry`] holds the built-in primitives (`fs-read`,
//! `fs-write`, `fs-edit`, `fs-list`, `shell-exec`, `git-status`, `git-diff`, `git-land`,
//! `worktree`) and any an embedding program registers. The crate runs a call; judging it and
//! logging it is the host's (`nodwyn-core`'s) job. It never prints.

pub mod beneath;
pub mod builtin;
pub mod checkout;
mod context;
mod error;
pub mod fault;
pub mod land;
pub mod paths;
mod primitive;
pub mod review;
pub mod sandbox;
pub mod versions;

pub use context::{
    Context, Fact, Interrupt, LandOutcome, Limits, Notices, PendingLanding, Push, Recorder,
    WorktreeInfo,
};
pub use error::Error;
pub use primitive::{DynPrimitive, Param, ParamKind, Primitive, Registry};
