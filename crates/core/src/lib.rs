//! `nodwyn-core`: sessions, their event logs, the store that keeps them, the life of a
//! session's worktree, and scanning files and revisions with the guard's L1.
//!
//! Library code: it takes every setting as an argument (the data directory, where worktrees go),
//! never reads the environment or configuration files, and never prints. The command line
//! (`nodwyn`) does those.

pub mod allow;
pub mod call;
pub mod clock;
mod dont_ask;
mod error;
pub mod event;
pub mod host;
pub mod id;
mod land;
pub mod log;
mod project;
pub mod scan;
pub mod scripts;
pub mod seal;
pub mod session;
pub mod store;
pub mod versions;
pub mod worktree;

pub use dont_ask::set_dont_ask;
pub use error::Error;
pub use id::SessionId;
pub use land::{abort as abort_landing, land};
/// The guard, for the command line's `guard` and `scan` commands.
pub use nodwyn_guard as guard;
/// The primitives, for the command line's `call` and `land`.
pub use nodwyn_prim as prim;
/// The embedded Scheme, for the command line's `prompt` and `eval`.
pub use nodwyn_scheme as scheme;
pub use project::repository_of;
pub use session::{Session, Unreadable, WorktreeState, sessions_of};
pub use store::Store;
