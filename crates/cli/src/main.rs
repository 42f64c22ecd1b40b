//! `nodwyn`: the command line. It parses arguments, reads the environment and configuration
//! files into typed settings, calls `nodwyn-core`, and prints: data on stdout (`--json` for one
//! JSON document), errors as one sentence on stderr starting `nodwyn: `.

mod asking;
mod commands;
mod environment;
mod error;
mod frontend;
mod hooks;
mod line_editor;
mod local_engine;
mod output;
mod person;
mod remote;
mod status;

use std::process::ExitCode;

use clap::Parser;
use nodwyn_core::prim::sandbox;

use crate::commands::Cli;

/// The system's allocator, counting what each Scheme engine's thread allocates, so that a
/// script's memory limit watches its own engine and not the whole process (where another
/// session's turn in the same daemon would count against it).
#[global_allocator]
static ALLOCATOR: nodwyn_core::scheme::CountingAllocator = nodwyn_core::scheme::CountingAllocator;

fn main() -> ExitCode {
    // The supervisor of a confined command and the exec step that confines it (see
    // nodwyn-proc) are this binary, started with one hidden argument; each must run before
    // anything starts a thread.
    let mut args = std::env::args_os().skip(1);
    match args.next() {
        Some(role) if role == sandbox::SUPERVISOR_ARG => sandbox::supervise(args.collect()),
        Some(role) if role == sandbox::EXEC_ARG => sandbox::exec_confined(args.collect()),
        _ => {}
    }
    // nodwyn's memory and environment are unreadable to the commands it starts (and to any
    // other process of the person's that is not root): /proc/<pid>/environ and mem need
    // ptrace access, which a process that is not dumpable refuses.
    let _ = nodwyn_core::prim::sandbox::not_dumpable();
    point_steel_home();
    nodwyn_core::log::on_waiting_for_lock(|log| {
        output::note(format!(
            "note: waiting for session {}: another nodwyn command is using it (an agent's call holds it until its command ends, at most its time limit)",
            log.file_stem()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default()
        ));
    });
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return error::usage(e, std::env::args_os().any(|a| a == "--json")),
    };
    init_tracing(cli.global.verbose);
    quiet_scheme_panics();
    let json = cli.global.json;
    let error_exit = cli.error_exit_code();
    match commands::run(cli) {
        Ok(commands::Outcome::Success) => ExitCode::SUCCESS,
        Ok(commands::Outcome::Found) => ExitCode::from(1),
        Ok(commands::Outcome::Exit(code)) => ExitCode::from(code),
        Err(e) => error::report(&e, json, error_exit),
    }
}

/// steel (the Scheme engine) reads `STEEL_HOME` once, and when it is unset makes
/// `~/.local/share/steel`, printing to stderr when it cannot. nodwyn loads no Scheme module from
/// there (`require` is refused), so it points steel at `<data directory>/steel`, which need not
/// exist, and steel touches nothing of the person's.
#[allow(unsafe_code)]
fn point_steel_home() {
    let folder = environment::data_dir_location()
        .map(|dir| dir.join("steel").into_os_string())
        .unwrap_or_default();
    // SAFETY: called first thing in `main`, before any thread exists, so nothing reads the
    // environment while it changes.
    unsafe { std::env::set_var("STEEL_HOME", folder) };
}

/// A panic inside steel is caught and reported as one sentence (the engine failed); the default
/// hook would first print it with a backtrace. Panics on the Scheme thread go to the trace
/// instead; every other panic is printed as usual.
fn quiet_scheme_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some(nodwyn_core::scheme::THREAD_NAME) {
            tracing::debug!(panic = %info, "steel panicked; the engine is given up");
        } else {
            default(info);
        }
    }));
}

/// `NODWYN_LOG` (a `tracing` filter such as `debug` or `nodwyn_git=trace`) or `-v` turn logging
/// on; it goes to stderr.
fn init_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("NODWYN_LOG") {
        Ok(spec) if !spec.is_empty() => EnvFilter::new(spec),
        _ => EnvFilter::new(match verbose {
            0 => "warn",
            1 => "info",
            _ => "debug",
        }),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::env::var_os("NO_COLOR").is_none() && output::stderr_is_terminal())
        .try_init();
}
