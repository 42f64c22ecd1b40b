//! `shell-exec`: runs a command in a fresh process, started in the session's folder, with only the
//! environment the host gives, a time limit and a cap on the output kept. The exit status is in
//! the result; a command that fails is a result, not an error.
//!
//! It runs through `nodwyn-proc`: confined by the session's [`Sandbox`](crate::sandbox::Sandbox)
//! (writes only in the session's folder, its own `TMPDIR` and the folders the person lists; no
//! credential file, no other process; no terminal) and supervised, so nothing it started, however
//! detached, outlives the call or its time limit. Where confinement is unavailable, the effect
//! says so and the guard asks the person for a security confirm.

use std::time::Duration;

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
    /// Whether the person's interrupt ended it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Its standard output, up to the cap.
    pub stdout: String,
    /// Its standard error, up to the cap.
    pub stderr: String,
    /// Bytes of output past the cap, left out (stdout and stderr together).
    pub output_left_out: u64,
    /// How long it ran, in milliseconds.
    pub elapsed_ms: u64,
    /// Whether it ran confined: `on`, `off` (the person turned it off) or `unavailable` (a
    /// person confirmed running it unconfined).
    pub sandbox: &'static str,
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
            (Some(_), None) => Err(Error::declined(
                "empty_argv",
                "shell-exec: `argv` is empty; give the program and its arguments",
            )),
            (None, Some(script)) if !script.trim().is_empty() => {
                Ok(CommandLine::Shell(script.clone()))
            }
            (None, Some(_)) => Err(Error::declined(
                "empty_script",
                "shell-exec: `script` is empty",
            )),
            (None, None) => Err(Error::declined(
                "no_command",
                "shell-exec: give `argv` (a program and its arguments) or `script` (a line for sh -c)",
            )),
            (Some(_), Some(_)) => Err(Error::declined(
                "argv_and_script",
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
    fn effect(&self, args: &ShellExecArgs, ctx: &Context) -> Result<Effect, Error> {
        let command = args.command_line()?;
        let shown = command.text();
        // A command the person's configuration runs unconfined says so in the record.
        let off = if ctx.sandbox == crate::sandbox::Sandbox::Off {
            " (sandbox off)"
        } else {
            ""
        };
        let mut effect = Effect::named(format!("shell-exec {shown}{off}"));
        effect.command = Some(command);
        effect.unconfined = ctx.sandbox.unconfined_because().map(str::to_owned);
        Ok(effect)
    }
    fn run(
        &self,
        args: ShellExecArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Ran, Error> {
        let limits = ctx.limits;
        let time = args
            .timeout_seconds
            .map_or(limits.shell_time, Duration::from_secs)
            .min(limits.shell_time_max);
        let argv: Vec<std::ffi::OsString> = match args.command_line()? {
            CommandLine::Argv(argv) => argv.into_iter().map(Into::into).collect(),
            CommandLine::Shell(line) => vec!["sh".into(), "-c".into(), line.into()],
        };
        run_confined(ctx, argv, time, "shell-exec")
    }
}

/// Runs `argv` in the session's folder exactly as `shell-exec` does (confined by the session's
/// sandbox, supervised to the end of its tree, its own temporary folder, the command
/// environment, at most `time`, output capped), for what the person approved apart from the
/// guard: a repository's hooks. `what` names it in an error.
pub fn run_confined(
    ctx: &Context,
    argv: Vec<std::ffi::OsString>,
    time: Duration,
    what: &str,
) -> Result<Ran, Error> {
    let limits = ctx.limits;
    // The call's own temporary folder, its `TMPDIR`, removed when it ends; the person's
    // alone, as what a command leaves there (a build's files, a token it fetched) may be.
    let tmp = tempfile::Builder::new()
        .prefix("nodwyn-call-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempdir()
        .map_err(|e| {
            Error::declined(
                "no_temporary_folder",
                format!("{what}: no temporary folder: {e}"),
            )
        })?;
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = ctx
        .shell_environment
        .iter()
        .filter(|(name, _)| name != "TMPDIR")
        .map(|(name, value)| (name.into(), value.into()))
        .collect();
    env.push(("TMPDIR".into(), tmp.path().into()));
    let spec = nodwyn_proc::Spec {
        confinement: ctx.sandbox.policy_for(&ctx.root, tmp.path()),
        deadline: Some(time),
        // The person's Ctrl-C ends the command and everything it started.
        cancel: Some(ctx.interrupt.flag()),
        output_cap: Some(limits.shell_output),
        ..nodwyn_proc::Spec::new(
            argv,
            ctx.root.clone(),
            nodwyn_proc::Environment::Exactly(env),
        )
    };
    let ran =
        nodwyn_proc::run(&spec).map_err(|e| Error::declined(e.code(), format!("{what}: {e}")))?;
    Ok(Ran {
        status: ran.status,
        timed_out: ran.timed_out,
        interrupted: ran.cancelled,
        stdout: String::from_utf8_lossy(&ran.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&ran.stderr).into_owned(),
        output_left_out: ran.output_left_out,
        elapsed_ms: ran.elapsed.as_millis() as u64,
        sandbox: ctx.sandbox.mode(),
    })
}
