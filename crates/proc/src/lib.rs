//! `nodwyn-proc`: how nodwyn starts a process an agent asked for.
//!
//! [`run`] starts one command from a fixed argument vector, in a folder, with exactly the
//! environment it is given, stdin closed, its output kept up to a cap, and a deadline. With a
//! [`Policy`], the command runs under a supervisor (nodwyn's own binary started with
//! [`SUPERVISOR_ARG`]) that puts it in a session of its own with no terminal and starts it
//! through the exec step ([`EXEC_ARG`]), which confines itself with Landlock and seccomp to what
//! the policy allows, under resource limits, and becomes the command; the supervisor, outside
//! that confinement and the subreaper of everything the command starts, ends the whole tree when
//! the command ends or its time is up, however detached its descendants made themselves.
//!
//! The guard decides whether a command may run; this crate makes that decision hold after the
//! command starts. It depends on no other nodwyn crate.

mod confine;
mod detached;
mod error;
mod exec;
mod inside;
mod limits;
mod namespace;
mod orphans;
mod policy;
mod run;
mod seccomp;
mod supervisor;
mod tree;

pub use confine::{Availability, availability};
pub use detached::detached;
pub use error::Error;
pub use exec::{EXEC_ARG, exec_confined};
pub use inside::{Inside, processes_inside, reap};
pub use limits::Limits;
pub use policy::{Grants, Policy, read_grants};
pub use run::{Environment, Group, Outcome, Spec, run};
pub use supervisor::{SUPERVISOR_ARG, supervise};

/// Makes the calling process not dumpable: its `/proc/<pid>/environ`, `mem` and the like become
/// readable only to root, and no process of the same user may attach to it.
pub fn not_dumpable() -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
            .map_err(|e| Error::Sandbox(format!("could not make nodwyn undumpable: {e}")))
    }
    #[cfg(not(target_os = "linux"))]
    {
        Ok(())
    }
}
