//! Running one command to its end: fixed argv, a folder, exactly the environment given, stdin
//! closed, stdout and stderr each kept up to a cap (the rest counted), and a deadline. Confined
//! (a [`Spec::confinement`]), it runs under the supervisor, which ends its whole tree; not
//! confined, it runs in a process group of its own, which is killed when it ends.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::Error;
use crate::policy::Policy;
use crate::supervisor::{FAILED_EXIT, FAILED_PREFIX, SANDBOX_FAILED, START_FAILED};

/// How long a command may run and how much of its output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Its deadline.
    pub time: Duration,
    /// How much of each of stdout and stderr is kept.
    pub output: usize,
}

/// A command to run.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The folder it starts in.
    pub dir: PathBuf,
    /// Its whole environment.
    pub env: Vec<(String, String)>,
    /// The supervisor's program (nodwyn's own binary) and the policy to confine it to; `None`
    /// runs it unconfined.
    pub confinement: Option<(PathBuf, Policy)>,
    /// Its limits.
    pub limits: Limits,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, or `None` when a signal ended it.
    pub status: Option<i32>,
    /// Whether the deadline ended it.
    pub timed_out: bool,
    /// Its standard output, up to the cap.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the cap.
    pub stderr: Vec<u8>,
    /// Bytes of output past the cap, left out (stdout and stderr together).
    pub output_left_out: u64,
    /// How long it ran.
    pub elapsed: Duration,
}

/// How long past its deadline a supervised command's supervisor may take to end the tree before
/// nodwyn kills the supervisor's group itself.
const SUPERVISOR_GRACE: Duration = Duration::from_secs(10);

/// Runs `spec` to its end (see the module documentation).
pub fn run(spec: &Spec) -> Result<Outcome, Error> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let Some(program) = spec.argv.first() else {
        return Err(Error::Spawn {
            program: String::new(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program given"),
        });
    };
    let (mut command, deadline) = match &spec.confinement {
        Some((helper, policy)) => (
            crate::supervisor::command(helper, policy, spec.limits.time, &spec.argv)?,
            spec.limits.time + SUPERVISOR_GRACE,
        ),
        None => {
            let mut command = Command::new(program);
            // A group of its own, killed when it ends; the supervisor makes its own session.
            command.args(&spec.argv[1..]).process_group(0);
            (command, spec.limits.time)
        }
    };
    command
        .current_dir(&spec.dir)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    let group = child.id();
    let cap = spec.limits.output;
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
    let (status, overdue) = match status_rx.recv_timeout(deadline) {
        Ok(status) => (status, false),
        Err(_) => {
            kill_group(group);
            let status = status_rx
                .recv()
                .unwrap_or_else(|_| Err(std::io::Error::other("the command was lost")));
            (status, true)
        }
    };
    let status = status.map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    // Whatever an unconfined command left running in its group ends with it (the supervisor
    // has ended its own tree already; its group is gone or empty).
    kill_group(group);
    let mut outputs = [(Vec::new(), 0u64), (Vec::new(), 0u64)];
    let grace = Instant::now() + Duration::from_secs(1);
    for _ in 0..2 {
        let wait = grace.saturating_duration_since(Instant::now());
        match out_rx.recv_timeout(wait) {
            Ok((index, output)) => outputs[index] = output,
            Err(_) => break,
        }
    }
    let [(stdout, out_left), (stderr, err_left)] = outputs;
    let elapsed = started.elapsed();
    if spec.confinement.is_some()
        && status.code() == Some(FAILED_EXIT)
        && let Some(failure) = supervisor_failure(&stderr)
    {
        return Err(failure);
    }
    Ok(Outcome {
        status: status.code(),
        timed_out: overdue || (status.signal().is_some() && elapsed >= spec.limits.time),
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

fn kill_group(group: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(group as i32) {
        // ESRCH (the group is already gone) is the usual answer and nothing to report.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(argv: &[&str], time: Duration) -> Spec {
        Spec {
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            dir: std::env::temp_dir(),
            env: vec![("PATH".to_owned(), std::env::var("PATH").unwrap_or_default())],
            confinement: None,
            limits: Limits { time, output: 10 },
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
