//! The exec step: nodwyn's own binary, started by the supervisor as `nodwyn __nodwyn-exec POLICY
//! -- PROGRAM ARGS...`, that confines itself and then becomes the command.
//!
//! Confinement is the exec step's, never the supervisor's: the supervisor stays outside the
//! command's Landlock domain, so the command can neither signal it (`kill -9 $PPID`) nor trace
//! it, and the supervisor always lives to end the tree. In order, while it is one thread: the
//! kernel kills it (and so the command) if the supervisor dies; every descriptor it inherited
//! beyond the standard three is closed at the exec, so none reaches the command; the protected
//! paths are bound read-only in a namespace of its own (see `crate::namespace`); the resource
//! limits are set (see `crate::limits`); Landlock and the seccomp filter are applied; and it
//! starts the command as the first process of a PID namespace of its own, waits for it and ends
//! as it did (where no namespace can be made, it executes the command in place).
//!
//! When it cannot do its part the command does not run: it exits with the supervisor's
//! [`FAILED_EXIT`] and one line on stderr, as the supervisor would.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::Command;

use crate::confine::{Protection, confine};
use crate::policy::Policy;
use crate::supervisor::{FAILED_EXIT, FAILED_PREFIX, SANDBOX_FAILED, START_FAILED};

/// The first argument that makes nodwyn's binary the exec step.
pub const EXEC_ARG: &str = "__nodwyn-exec";

/// The exec step's command line, for the supervisor: `program` is nodwyn's own binary.
pub(crate) fn command(program: &std::path::Path, policy: &str, argv: &[OsString]) -> Command {
    let mut command = Command::new(program);
    command.arg(EXEC_ARG).arg(policy).arg("--").args(argv);
    command
}

/// The exec step's whole run; `args` are the arguments after [`EXEC_ARG`]. Call it first thing
/// in `main`, before any thread starts. It returns only by exiting.
pub fn exec_confined(args: Vec<OsString>) -> ! {
    let failure = run(args);
    let _ = writeln!(std::io::stderr(), "{FAILED_PREFIX}{failure}");
    std::process::exit(FAILED_EXIT)
}

/// Everything up to the exec; returns only what went wrong.
fn run(args: Vec<OsString>) -> String {
    let mut args = args.into_iter();
    let usage = || format!("{SANDBOX_FAILED}usage: POLICY -- PROGRAM ARGS...");
    let Some(policy) = args
        .next()
        .and_then(|p| p.into_string().ok())
        .and_then(|p| serde_json::from_str::<Policy>(&p).ok())
    else {
        return usage();
    };
    if args.next().as_deref() != Some(std::ffi::OsStr::new("--")) {
        return usage();
    }
    let argv: Vec<OsString> = args.collect();
    let Some((program, arguments)) = argv.split_first() else {
        return usage();
    };
    let setup = |what: &str, e: &dyn std::fmt::Display| format!("{SANDBOX_FAILED}{what}: {e}");

    let supervisor = rustix::process::getppid();
    if let Err(e) =
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
    {
        return setup("a signal at the supervisor's death", &e);
    }
    if rustix::process::getppid() != supervisor {
        return setup("the supervisor", &"it ended before the command started");
    }
    if let Err(e) = close_inherited_at_exec() {
        return setup("closing inherited descriptors", &e);
    }
    let protection = match policy.namespaces {
        false => Protection::Landlock,
        true => {
            match crate::namespace::protect(&policy.read_only, &policy.masked, &policy.replaced) {
                Ok(true) => Protection::Mounts,
                // No namespace here: the read-only paths are granted around instead.
                Ok(false) => Protection::Landlock,
                Err(why) => return format!("{SANDBOX_FAILED}{why}"),
            }
        }
    };
    let mut limits = policy.limits;
    if protection == Protection::Landlock {
        // Outside a namespace of its own, the count would take in every process of the person's.
        limits.processes = None;
    }
    if let Err(why) = limits.apply() {
        return format!("{SANDBOX_FAILED}{why}");
    }
    if let Err(e) = confine(&policy, protection) {
        return match e {
            crate::Error::Sandbox(why) => format!("{SANDBOX_FAILED}{why}"),
            other => format!("{SANDBOX_FAILED}{other}"),
        };
    }
    let started = |error: std::io::Error| {
        format!(
            "{START_FAILED}could not start {}: {error}",
            program.to_string_lossy()
        )
    };
    if protection == Protection::Landlock {
        return started(Command::new(program).args(arguments).exec());
    }
    // In the namespaces, the command is the first process of a PID namespace of its own: when it
    // ends, or is killed (its parent, this step, killed by the supervisor, leaves it to the
    // supervisor to kill), the kernel kills every process left in it, however they hid
    // (`setsid`, a double fork, a fork bomb faster than any list of children can be read).
    let mut command = match Command::new(program).args(arguments).spawn() {
        Ok(command) => command,
        Err(error) => return started(error),
    };
    match command.wait() {
        Ok(status) => crate::supervisor::end_as(status),
        Err(e) => setup("waiting for the command", &e),
    }
}

/// Marks every descriptor above the standard three close-on-exec: one that nodwyn (or whoever
/// started nodwyn) left open without the flag would otherwise reach the command, which could
/// write through it outside its sandbox.
#[cfg(target_os = "linux")]
fn close_inherited_at_exec() -> std::io::Result<()> {
    // SAFETY: close_range with the CLOEXEC flag only sets a flag on descriptors; it reads no
    // memory of ours.
    #[allow(unsafe_code)]
    let marked = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if marked == 0 {
        return Ok(());
    }
    // Kernels before 5.11: one by one, from the list of open descriptors.
    let open: Vec<i32> = std::fs::read_dir("/proc/self/fd")?
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    for fd in open {
        // SAFETY: F_SETFD on a descriptor number touches no memory; one that closed meanwhile
        // (the listing's own) answers EBADF, which is fine.
        #[allow(unsafe_code)]
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC)
        };
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn close_inherited_at_exec() -> std::io::Result<()> {
    Ok(())
}
