//! `shell-exec`: runs a command in a fresh process, started in the session's folder, with only the
//! environment the host gives, a time limit and a cap on the output kept. The exit status is in
//! the result; a command that fails is a result, not an error.
//!
//! The command runs in a process group of its own. When it ends, or when its time is up, the
//! whole group is killed, so nothing it started in the background outlives the call.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nodwyn_guard::{CommandLine, Effect};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::context::Context;
use crate::primitive::{Param, ParamKind, Primitive};

/// `shell-exec ARGV...` or `shell-exec script=LINE`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShellExec;

/// The arguments of `shell-exec`: exactly one of `argv` and `script`.
#[derive(Debug, Deserialize)]
pub struct ShellExecArgs {
    /// The program and its arguments, run without a shell.
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    /// A line for `sh -c`.
    #[serde(default)]
    pub script: Option<String>,
    /// Seconds before the command is killed.
    #[serde(default)]
    pub timeout_seconds: Option<u64>,
}

/// What `shell-exec` gives back.
#[derive(Debug, Serialize)]
pub struct Ran {
    /// The exit code, or `null` when a signal ended the command.
    pub status: Option<i32>,
    /// Whether the time limit killed it.
    pub timed_out: bool,
    /// Its standard output, up to the cap.
    pub stdout: String,
    /// Its standard error, up to the cap.
    pub stderr: String,
    /// Bytes of output past the cap, left out (stdout and stderr together).
    pub output_left_out: u64,
    /// How long it ran, in milliseconds.
    pub elapsed_ms: u64,
}

const PARAMS: &[Param] = &[
    Param::optional(
        "argv",
        ParamKind::StringList,
        "the program and its arguments, run without a shell",
    ),
    Param::optional(
        "script",
        ParamKind::String,
        "a command line for sh -c, instead of argv",
    ),
    Param::optional(
        "timeout_seconds",
        ParamKind::Integer,
        "seconds before the command is killed",
    ),
];

impl ShellExecArgs {
    fn command_line(&self) -> Result<CommandLine, Error> {
        match (&self.argv, &self.script) {
            (Some(argv), None) if argv.first().is_some_and(|p| !p.is_empty()) => {
                Ok(CommandLine::Argv(argv.clone()))
            }
            (Some(_), None) => Err(Error::refused(
                "shell-exec: `argv` is empty; give the program and its arguments",
            )),
            (None, Some(script)) if !script.trim().is_empty() => {
                Ok(CommandLine::Shell(script.clone()))
            }
            (None, Some(_)) => Err(Error::refused("shell-exec: `script` is empty")),
            (None, None) => Err(Error::refused(
                "shell-exec: give `argv` (a program and its arguments) or `script` (a line for sh -c)",
            )),
            (Some(_), Some(_)) => Err(Error::refused(
                "shell-exec: give `argv` or `script`, not both",
            )),
        }
    }
}

impl Primitive for ShellExec {
    type Args = ShellExecArgs;
    type Output = Ran;

    fn name(&self) -> &str {
        "shell-exec"
    }
    fn description(&self) -> &str {
        "Runs a command in the session's folder, with a time limit and an output cap."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn effect(&self, args: &ShellExecArgs, _ctx: &Context) -> Result<Effect, Error> {
        let command = args.command_line()?;
        let shown = match &command {
            CommandLine::Argv(argv) => argv.join(" "),
            CommandLine::Shell(line) => line.clone(),
        };
        let mut effect = Effect::named(format!("shell-exec {shown}"));
        effect.command = Some(command);
        Ok(effect)
    }
    fn run(&self, args: ShellExecArgs, ctx: &Context) -> Result<Ran, Error> {
        let limits = ctx.limits;
        let time = args
            .timeout_seconds
            .map_or(limits.shell_time, Duration::from_secs)
            .min(limits.shell_time_max);
        let mut command = match args.command_line()? {
            CommandLine::Argv(argv) => {
                let mut command = Command::new(&argv[0]);
                command.args(&argv[1..]);
                command
            }
            CommandLine::Shell(line) => {
                let mut command = Command::new("sh");
                command.args(["-c", &line]);
                command
            }
        };
        run_limited(&mut command, ctx, time)
    }
}

fn run_limited(command: &mut Command, ctx: &Context, time: Duration) -> Result<Ran, Error> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    command
        .current_dir(&ctx.root)
        .env_clear()
        .envs(ctx.shell_environment.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| {
        Error::refused(format!(
            "shell-exec: could not start {:?}: {e}",
            command.get_program()
        ))
    })?;
    let group = child.id();
    let cap = ctx.limits.shell_output;
    let (out_tx, out_rx) = mpsc::channel();
    for (index, pipe) in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    {
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
    let (status, timed_out) = match status_rx.recv_timeout(time) {
        Ok(status) => (status, false),
        Err(_) => {
            kill_group(group);
            (
                status_rx
                    .recv()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the command was lost"))),
                true,
            )
        }
    };
    let status = status.map_err(|e| Error::refused(format!("shell-exec: {e}")))?;
    // Whatever the command left running in its group ends with it.
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
    Ok(Ran {
        status: status.code(),
        timed_out: timed_out || (status.signal().is_some() && started.elapsed() >= time),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        output_left_out: out_left + err_left,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
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
