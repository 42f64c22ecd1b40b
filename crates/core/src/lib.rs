//! `nodwyn-core`: sessions, their event logs, the store that keeps them, the life of a
//! session's worktree, and scanning files and revisions with the guard's L1.
//!
//! Library code: it takes every setting as an argument (the data directory, where worktrees go),
//! never reads the environment or configuration files, and never prints. The command line
//! (`nodwyn`) does those.

pub mod allow;
mod approvals;
pub mod call;
pub mod clock;
mod dont_ask;
mod error;
pub mod event;
mod exclude;
mod gh;
pub mod host;
pub mod id;
mod land;
pub mod log;
pub mod open;
pub mod person;
mod project;
pub mod remote;
pub mod scan;
pub mod scripts;
pub mod seal;
pub mod services;
pub mod session;
pub mod store;
pub mod turn;
pub mod versions;
pub mod worktree;

pub use dont_ask::{end_always, hand_to, set_dont_ask};
pub use error::Error;
pub use exclude::exclude_from_git;
pub use id::SessionId;
pub use land::{abort as abort_landing, land};
/// The guard's types a front-end reads (a decision, a verdict on a path, an effect). Named one
/// by one: a front-end gets no way around the guard (a primitive runs only with its `Permit`,
/// which only the guard makes).
pub mod guard {
    pub use nodwyn_guard::{
        AskKind, DecidedBy, Decision, Denylist, Effect, Judge, Judged, PathVerdict, Permit, Verdict,
    };
}

/// The primitives' types a front-end needs: the registry and what a custom primitive is made
/// of, a landing's outcome, and the sandbox's supervisor.
pub mod prim {
    pub use nodwyn_prim::{
        Context, DynPrimitive, Error, Interrupt, Notices, Param, ParamKind, Primitive, Registry,
    };
    /// Resolving a path against a session's folder, for a custom primitive's effect.
    pub mod paths {
        pub use nodwyn_prim::paths::{Target, resolve};
    }
    /// What a landing reports, and its strategies.
    pub mod land {
        pub use nodwyn_prim::land::{Aborted, Landed, LocalBase, Strategy};
    }
    /// A session's changes as a review reads them.
    pub mod review {
        pub use nodwyn_prim::review::Review;
    }
    /// How commands are confined, and the supervisor's entry point.
    pub mod sandbox {
        pub use nodwyn_prim::sandbox::{
            Availability, EXEC_ARG, Limits, SUPERVISOR_ARG, Sandbox, availability, exec_confined,
            not_dumpable, supervise,
        };
    }
}

/// The embedded Scheme's types the command line needs for `prompt` and `eval`.
pub mod scheme {
    pub use nodwyn_scheme::{Agent, CountingAllocator, Limits, Source, THREAD_NAME, keep_warm};
}
pub use project::{repository_of, session_at, sessions_folder_of};
pub use session::{Session, Unreadable, WorktreeState, sessions_of};
pub use store::Store;
