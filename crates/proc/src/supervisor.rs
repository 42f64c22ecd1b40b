//! The supervisor: nodwyn's own binary, started as `nodwyn __nodwyn-supervise POLICY MILLIS --
//! PROGRAM ARGS...`, between nodwyn and a confined command.
//!
//! In order, while it is still one thread: `SIGTERM` when nodwyn dies (the parent-death
//! signal) and a handler for it, a session of its own (no controlling terminal, out of reach of
//! the person's Ctrl-C), child subreaper (whatever the command leaves behind becomes its child),
//! its list of children opened. Then it starts the command through the exec step (see
//! `crate::exec`), which confines itself and becomes the command, so the supervisor stands
//! outside the command's Landlock domain where the command cannot signal or trace it. It waits
//! for the command, for the deadline, or for `SIGTERM` (nodwyn cancelling the call, or dying),
//! ends every process left in the tree, and ends the way the command did: the same exit code, or
//! killed by the same signal (by `SIGKILL` when the deadline passed, `SIGTERM` when it was told
//! to stop).
//!
//! When it cannot do its part the command does not run: it exits with [`FAILED_EXIT`] and one
//! line on stderr that starts with [`FAILED_PREFIX`].

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use crate::policy::Policy;
use crate::tree::Children;

/// The first argument that makes nodwyn's binary the supervisor. The command line checks for it
/// before anything else runs (see [`supervise`]).
pub const SUPERVISOR_ARG: &str = "__nodwyn-supervise";

/// The supervisor's exit code when the command did not run.
pub(crate) const FAILED_EXIT: i32 = 125;

/// How the supervisor's one line on stderr begins when the command did not run.
pub(crate) const FAILED_PREFIX: &str = "nodwyn-supervisor: ";

/// After [`FAILED_PREFIX`]: the program could not be started.
pub(crate) const START_FAILED: &str = "start: ";

/// After [`FAILED_PREFIX`]: the sandbox could not be set up.
pub(crate) const SANDBOX_FAILED: &str = "sandbox: ";

/// The supervisor's command line for running `argv` under `policy` for at most `time`.
pub(crate) fn command(
    helper: &Path,
    policy: &Policy,
    time: Duration,
    argv: &[std::ffi::OsString],
) -> Result<Command, crate::Error> {
    let policy = serde_json::to_string(policy)
        .map_err(|e| crate::Error::Sandbox(format!("the policy cannot be written: {e}")))?;
    let mut command = Command::new(helper);
    command
        .arg(SUPERVISOR_ARG)
        .arg(policy)
        .arg(time.as_millis().to_string())
        .arg("--")
        .args(argv);
    Ok(command)
}

/// The supervisor's whole run; `args` are the arguments after [`SUPERVISOR_ARG`]. Call it first
/// thing in `main`, before any thread starts. It never returns.
pub fn supervise(args: Vec<OsString>) -> ! {
    match run(args) {
        Ok(Ended::Exited(code)) => std::process::exit(code),
        Ok(Ended::Signalled(signal)) => end_by_signal(signal),
        Err(failure) => {
            let _ = writeln!(std::io::stderr(), "{FAILED_PREFIX}{failure}");
            std::process::exit(FAILED_EXIT)
        }
    }
}

enum Ended {
    Exited(i32),
    Signalled(i32),
}

fn run(args: Vec<OsString>) -> Result<Ended, String> {
    let mut args = args.into_iter();
    let usage = || format!("{SANDBOX_FAILED}usage: POLICY MILLIS -- PROGRAM ARGS...");
    let policy = args
        .next()
        .and_then(|p| p.into_string().ok())
        .filter(|p| serde_json::from_str::<Policy>(p).is_ok())
        .ok_or_else(usage)?;
    let time = args
        .next()
        .and_then(|t| t.into_string().ok())
        .and_then(|t| t.parse().ok())
        .map(Duration::from_millis)
        .ok_or_else(usage)?;
    if args.next().as_deref() != Some(std::ffi::OsStr::new("--")) {
        return Err(usage());
    }
    let argv: Vec<OsString> = args.collect();
    if argv.is_empty() {
        return Err(usage());
    }
    let exec_step = std::env::current_exe()
        .map_err(|e| format!("{SANDBOX_FAILED}nodwyn's own program: {e}"))?;

    let setup = |what: &str, e: &dyn std::fmt::Display| format!("{SANDBOX_FAILED}{what}: {e}");
    // Told to stop (nodwyn cancelled the call, or died): the tree ends, not only the supervisor.
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&stop))
        .map_err(|e| setup("a handler for SIGTERM", &e))?;
    let parent = rustix::process::getppid();
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM))
        .map_err(|e| setup("a signal at nodwyn's death", &e))?;
    if rustix::process::getppid() != parent {
        // nodwyn died before the signal was asked for: nothing runs.
        return Err(setup("nodwyn", &"it ended before the command started"));
    }
    rustix::process::setsid().map_err(|e| setup("a session of its own", &e))?;
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .map_err(|e| setup("child subreaper", &e))?;
    let mut children = Children::open().map_err(|e| setup("its list of children", &e))?;
    let mut child = crate::exec::command(&exec_step, &policy, &argv)
        .spawn()
        .map_err(|e| format!("{SANDBOX_FAILED}the exec step: {e}"))?;
    let pid = child.id();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait());
    });
    let deadline = Instant::now() + time;
    // Waited for in slices, so a SIGTERM is seen within one.
    let slice = Duration::from_millis(25);
    let ended = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(left.min(slice)) {
            Ok(Ok(status)) => break how_it_ended(status),
            Err(mpsc::RecvTimeoutError::Timeout) if stop.load(Ordering::SeqCst) => {
                break end_command(pid, &receiver, rustix::process::Signal::TERM);
            }
            Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {}
            Ok(Err(_)) | Err(_) => {
                break end_command(pid, &receiver, rustix::process::Signal::KILL);
            }
        }
    };
    children.end_all();
    Ok(ended)
}

/// Kills the command and waits for it; the supervisor then ends by `signal`.
fn end_command(
    pid: u32,
    waiting: &mpsc::Receiver<std::io::Result<ExitStatus>>,
    signal: rustix::process::Signal,
) -> Ended {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
    let _ = waiting.recv();
    Ended::Signalled(signal.as_raw())
}

/// Ends this process the way `status` says its command ended (the exec step's end).
pub(crate) fn end_as(status: ExitStatus) -> ! {
    match how_it_ended(status) {
        Ended::Exited(code) => std::process::exit(code),
        Ended::Signalled(signal) => end_by_signal(signal),
    }
}

fn how_it_ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exited(code),
        (None, Some(signal)) => Ended::Signalled(signal),
        (None, None) => Ended::Exited(FAILED_EXIT),
    }
}

/// Ends the supervisor by `signal`, so its parent sees what the command saw; a signal the
/// process ignores (Rust ignores `SIGPIPE`) ends it with the shell's `128 + signal` instead.
fn end_by_signal(signal: i32) -> ! {
    if let Some(signal) = rustix::process::Signal::from_named_raw(signal) {
        let _ = rustix::process::kill_process(rustix::process::getpid(), signal);
    }
    std::process::exit(128 + signal)
}
