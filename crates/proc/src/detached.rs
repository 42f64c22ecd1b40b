//! A process started to outlive the command that starts it (emptying a trash folder in the
//! background): no terminal, no input or output, a process group of its own (so the terminal's
//! Ctrl-C does not reach it), only `PATH` from the environment. A thread waits for it, so a
//! long-lived nodwyn (the daemon) leaves no zombie; a short-lived one simply exits before it.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::Error;

/// Starts `argv` in `dir` and returns without waiting for it.
pub fn detached(argv: &[OsString], dir: &Path) -> Result<(), Error> {
    let Some((program, args)) = argv.split_first() else {
        return Err(Error::Spawn {
            program: String::new(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program"),
        });
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    tracing::debug!(?argv, dir = %dir.display(), "starting a detached process");
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: program.to_string_lossy().into_owned(),
        source,
    })?;
    std::thread::spawn(move || child.wait());
    Ok(())
}
