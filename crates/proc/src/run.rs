//! Running one process to its end, the one way nodwyn starts any: a fixed argument vector, a
//! folder, an environment built on purpose (exactly the variables given, or the person's with
//! some removed and some set), stdin closed or given, stdout and stderr read (each up to a cap
//! when one is given, the rest counted), a deadline, and a trace of what ran and how long it
//! took. Confined (a [`Spec::confinement`]), it runs under the supervisor, which ends its whole
//! tree; otherwise the [`Group`] says whether it shares nodwyn's process group or has its own,
//! and whether that group is ended with it.

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::Error;
use crate::policy::Policy;
use crate::supervisor::{FAILED_EXIT, FAILED_PREFIX, SANDBOX_FAILED, START_FAILED};

/// The environment a process gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Environment {
    /// Exactly these variables, nothing inherited (an agent's command).
    Exactly(Vec<(OsString, OsString)>),
    /// nodwyn's own, with `removed` taken out and then `set` set (git, which needs the person's
    /// agent sockets and configuration).
    Inherited {
        /// Variables taken out.
        removed: Vec<OsString>,
        /// Variables set.
        set: Vec<(OsString, OsString)>,
    },
}

/// Which process group a process runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// nodwyn's: the person's Ctrl-C reaches it too. At the deadline only the process is killed.
    Shared,
    /// Its own: the person's Ctrl-C does not cut it in half. At the deadline the group is killed;
    /// what it leaves behind on a normal end (a credential cache daemon) stays.
    Own,
    /// Its own, killed when the process ends: nothing it started in the background outlives it.
    OwnEndedWithIt,
}

/// A process to run.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program and its arguments.
    pub argv: Vec<OsString>,
    /// The folder it starts in.
    pub dir: PathBuf,
    /// Its environment.
    pub env: Environment,
    /// What it reads on stdin; `None` closes stdin.
    pub stdin: Option<Vec<u8>>,
    /// Its process group (ignored when confined: the supervisor makes a session of its own).
    pub group: Group,
    /// The supervisor's program (nodwyn's own binary) and the policy to confine it to.
    pub confinement: Option<(PathBuf, Policy)>,
    /// When it is killed; `None` for no deadline.
    pub deadline: Option<Duration>,
    /// How much of each of stdout and stderr is kept; `None` keeps all.
    pub output_cap: Option<usize>,
    /// Raised (by a signal handler: the person's Ctrl-C) to stop it early, as the deadline would.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Spec {
    /// `argv` in `dir`, with exactly the environment `env`, stdin closed, in a group of its own
    /// ended with it, no deadline and no cap: set the rest.
    pub fn new(argv: Vec<OsString>, dir: PathBuf, env: Environment) -> Self {
        Self {
            argv,
            dir,
            env,
            stdin: None,
            group: Group::OwnEndedWithIt,
            confinement: None,
            deadline: None,
            output_cap: None,
            cancel: None,
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|flag| flag.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Its exit status.
    pub exit: ExitStatus,
    /// The exit code, or `None` when a signal ended it.
    pub status: Option<i32>,
    /// Whether the deadline ended it.
    pub timed_out: bool,
    /// Whether [`Spec::cancel`] ended it.
    pub cancelled: bool,
    /// Its standard output (up to the cap, when there is one).
    pub stdout: Vec<u8>,
    /// Its standard error (up to the cap, when there is one).
    pub stderr: Vec<u8>,
    /// Bytes of output past the cap, left out (stdout and stderr together).
    pub output_left_out: u64,
    /// How long it ran.
    pub elapsed: Duration,
}

/// How long past its deadline a supervised command's supervisor may take to end the tree before
/// nodwyn kills the supervisor's group itself.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(10);

/// How long a supervisor told to stop may take to end its tree before nodwyn kills its group.
const SUPERVISOR_STOP: Duration = Duration::from_secs(3);

/// Runs `spec` to its end (see the module documentation).
pub fn run(spec: &Spec) -> Result<Outcome, Error> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let program_name = || {
        spec.argv
            .first()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let Some(program) = spec.argv.first() else {
        return Err(Error::Spawn {
            program: String::new(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program given"),
        });
    };
    let (mut command, deadline, group) = match &spec.confinement {
        Some((helper, policy)) => {
            crate::orphans::adopt();
            let time = spec.deadline.unwrap_or(Duration::from_millis(u64::MAX));
            (
                crate::supervisor::command(helper, policy, time, &spec.argv)?,
                spec.deadline.map(|d| d + SUPERVISOR_GRACE),
                // The supervisor makes a session (and group) of its own, ended with the command.
                Group::OwnEndedWithIt,
            )
        }
        None => {
            let mut command = Command::new(program);
            command.args(&spec.argv[1..]);
            if spec.group != Group::Shared {
                command.process_group(0);
                end_with_nodwyn(&mut command);
            }
            (command, spec.deadline, spec.group)
        }
    };
    command.current_dir(&spec.dir);
    match &spec.env {
        Environment::Exactly(variables) => {
            command
                .env_clear()
                .envs(variables.iter().map(|(k, v)| (k, v)));
        }
        Environment::Inherited { removed, set } => {
            for name in removed {
                command.env_remove(name);
            }
            command.envs(set.iter().map(|(k, v)| (k, v)));
        }
    }
    command
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: program_name(),
        source,
    })?;
    let pid = child.id();
    if let (Some(bytes), Some(mut stdin)) = (spec.stdin.clone(), child.stdin.take()) {
        // Written from a thread of its own, so the process filling its stdout never deadlocks.
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut stdin, &bytes);
        });
    }
    let cap = spec.output_cap.unwrap_or(usize::MAX);
    let (out_tx, out_rx) = mpsc::channel();
    let pipes = [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for (index, pipe) in pipes.into_iter().enumerate() {
        let tx = out_tx.clone();
        if let Some(pipe) = pipe {
            std::thread::spawn(move || {
                let _ = tx.send((index, read_capped(pipe, cap)));
            });
        }
    }
    drop(out_tx);
    let (status_tx, status_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = status_tx.send(child.wait());
    });
    // Waited for in slices, so a raised cancel flag is seen within one.
    let slice = Duration::from_millis(if spec.cancel.is_some() { 25 } else { 1000 });
    let mut cancelled = false;
    let waited = loop {
        let left = deadline.map(|d| d.saturating_sub(started.elapsed()));
        if left.is_some_and(|left| left.is_zero()) {
            break None;
        }
        match status_rx.recv_timeout(left.map_or(slice, |left| left.min(slice))) {
            Ok(status) => break Some(status),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) if spec.cancelled() => {
                cancelled = true;
                break None;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    };
    let (status, overdue) = match waited {
        Some(status) => (status, false),
        None => {
            // A supervisor is asked first, so it ends the whole tree (what the command detached
            // included); killed with its group when it does not end soon.
            let mut status = None;
            if spec.confinement.is_some()
                && let Some(supervisor) = rustix::process::Pid::from_raw(pid as i32)
            {
                let _ = rustix::process::kill_process(supervisor, rustix::process::Signal::TERM);
                status = status_rx.recv_timeout(SUPERVISOR_STOP).ok();
            }
            let status = status.unwrap_or_else(|| {
                kill(pid, group);
                status_rx
                    .recv()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the process was lost")))
            });
            (status, true)
        }
    };
    let exit = status.map_err(|source| Error::Spawn {
        program: program_name(),
        source,
    })?;
    if spec.confinement.is_some() {
        // A supervisor that died left its command's tree to nodwyn, its subreaper.
        let orphans = crate::orphans::end();
        if orphans > 0 {
            tracing::warn!(orphans, "ended what a dead supervisor left running");
        }
    }
    if group == Group::OwnEndedWithIt {
        // Whatever it left running in its group ends with it (a supervisor has ended its own
        // tree already; its group is gone or empty).
        kill(pid, group);
    }
    let mut outputs = [(Vec::new(), 0u64), (Vec::new(), 0u64)];
    // Output still coming after the end (a descendant that kept the pipe) is waited for only
    // briefly when something was killed.
    let grace = Instant::now() + Duration::from_secs(1);
    for _ in 0..2 {
        let received = if overdue || group == Group::OwnEndedWithIt {
            out_rx
                .recv_timeout(grace.saturating_duration_since(Instant::now()))
                .ok()
        } else {
            out_rx.recv().ok()
        };
        match received {
            Some((index, output)) => outputs[index] = output,
            None => break,
        }
    }
    let [(stdout, out_left), (stderr, err_left)] = outputs;
    let elapsed = started.elapsed();
    tracing::debug!(
        program = %program_name(),
        status = ?exit.code(),
        timed_out = overdue,
        elapsed_ms = elapsed.as_millis() as u64,
        "process"
    );
    if spec.confinement.is_some()
        && exit.code() == Some(FAILED_EXIT)
        && let Some(failure) = supervisor_failure(&stderr)
    {
        return Err(failure);
    }
    let timed_out = !cancelled
        && (overdue || (exit.signal().is_some() && spec.deadline.is_some_and(|d| elapsed >= d)));
    Ok(Outcome {
        exit,
        status: exit.code(),
        timed_out,
        cancelled,
        stdout,
        stderr,
        output_left_out: out_left + err_left,
        elapsed,
    })
}

/// The supervisor's own failure, read from its one line on stderr.
fn supervisor_failure(stderr: &[u8]) -> Option<Error> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().last()?.strip_prefix(FAILED_PREFIX)?;
    if let Some(start) = line.strip_prefix(START_FAILED) {
        return Some(Error::Spawn {
            program: String::new(),
            source: std::io::Error::other(start.to_owned()),
        });
    }
    Some(Error::Sandbox(
        line.strip_prefix(SANDBOX_FAILED).unwrap_or(line).to_owned(),
    ))
}

/// Reads `pipe` to its end, keeping the first `cap` bytes and counting the rest.
fn read_capped(mut pipe: impl Read, cap: usize) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut left_out = 0u64;
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
                left_out += (n - room) as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    (kept, left_out)
}

/// Has the process killed when nodwyn dies. In a group of its own, no signal nodwyn's group gets
/// reaches it: without this, a `git push` of a landing whose nodwyn was killed would go on
/// alone and publish what the landing's record never says. (Killed with the thread that started
/// it, which here is the one that waits for it.)
fn end_with_nodwyn(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let nodwyn = rustix::process::getpid();
    // Between fork and exec only async-signal-safe calls: two prctl/getppid system calls.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            if rustix::process::getppid() != Some(nodwyn) {
                // nodwyn died before the signal was asked for.
                return Err(std::io::Error::other(
                    "nodwyn ended before the process started",
                ));
            }
            Ok(())
        });
    }
}

/// Kills the process `pid`, or its whole group when it has one of its own.
fn kill(pid: u32, group: Group) {
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else {
        return;
    };
    // ESRCH (it is already gone) is the usual answer and nothing to report.
    let _ = match group {
        Group::Shared => rustix::process::kill_process(pid, rustix::process::Signal::KILL),
        Group::Own | Group::OwnEndedWithIt => {
            rustix::process::kill_process_group(pid, rustix::process::Signal::KILL)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(argv: &[&str], time: Duration) -> Spec {
        Spec {
            deadline: Some(time),
            output_cap: Some(10),
            ..Spec::new(
                argv.iter().map(OsString::from).collect(),
                std::env::temp_dir(),
                Environment::Exactly(vec![(
                    "PATH".into(),
                    std::env::var_os("PATH").unwrap_or_default(),
                )]),
            )
        }
    }

    #[test]
    fn output_past_the_cap_is_counted_and_the_exit_code_kept() {
        let ran = run(&spec(
            &["sh", "-c", "printf 0123456789abcdef; exit 3"],
            Duration::from_secs(10),
        ))
        .unwrap();
        assert_eq!(ran.stdout, b"0123456789");
        assert_eq!(ran.output_left_out, 6);
        assert_eq!(ran.status, Some(3));
        assert!(!ran.timed_out);
    }

    #[test]
    fn the_deadline_ends_the_command_and_its_group() {
        let ran = run(&spec(
            &["sh", "-c", "sleep 30 & sleep 30"],
            Duration::from_millis(300),
        ))
        .unwrap();
        assert!(ran.timed_out);
        assert_eq!(ran.status, None);
        assert!(ran.elapsed < Duration::from_secs(5));
    }

    #[test]
    fn stdin_is_given_and_output_without_a_cap_is_kept_whole() {
        let mut spec = spec(&["cat"], Duration::from_secs(10));
        spec.output_cap = None;
        spec.stdin = Some(b"x".repeat(100_000));
        let ran = run(&spec).unwrap();
        assert_eq!(ran.stdout.len(), 100_000);
        assert!(ran.exit.success());
    }

    #[test]
    fn a_raised_cancel_flag_ends_the_process_and_its_group() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut spec = spec(
            &["sh", "-c", "sleep 30 & sleep 30"],
            Duration::from_secs(20),
        );
        spec.group = Group::Own;
        spec.cancel = Some(flag.clone());
        let raiser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let ran = run(&spec).unwrap();
        raiser.join().unwrap();
        assert!(ran.cancelled && !ran.timed_out, "{ran:?}");
        assert!(ran.elapsed < Duration::from_secs(5));
    }

    #[test]
    fn a_program_that_does_not_exist_is_an_error() {
        let error = run(&spec(&["/nonexistent/program"], Duration::from_secs(5))).unwrap_err();
        assert_eq!(error.code(), "spawn_failed");
    }

    #[test]
    fn the_supervisors_one_line_is_read_back_as_its_failure() {
        let failure =
            supervisor_failure(b"nodwyn-supervisor: sandbox: no Landlock here\n").unwrap();
        assert_eq!(failure.code(), "sandbox_unavailable");
        assert!(failure.to_string().contains("no Landlock here"));
        let failure =
            supervisor_failure(b"nodwyn-supervisor: start: could not start x: gone\n").unwrap();
        assert_eq!(failure.code(), "spawn_failed");
        assert!(supervisor_failure(b"the command's own words\n").is_none());
    }
}
