//! `nodwyn tui`: the terminal interface (`nodwyn-tui`), over an engine in this process or a
//! running `nodwyn serve` (`--daemon`); this file reads the command line and the environment and
//! says, once the terminal is put back, what became of the session.

use anyhow::bail;
use clap::Args;
use nodwyn_server::engine::Overrides;
use nodwyn_tui::{Left, Options};

use crate::commands::run::{chosen_model, model_profile, settings_for};
use crate::commands::{Invocation, RepoArg};
use crate::local_engine::InProcess;
use crate::output;

/// The terminal interface: a chooser (a new session in a new worktree first), then the
/// conversation in the terminal's scrollback with a live pane for the composer, the status and
/// the questions. Enter sends, Alt-Enter begins a new line, Ctrl-C interrupts the turn, Ctrl-D
/// leaves (closing the session as `worktree close` would).
#[derive(Debug, Args)]
pub(super) struct TuiArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Open a new session in a new worktree, without the chooser.
    #[arg(long)]
    worktree: bool,
    /// Resume session ID, without the chooser (with --daemon: join it, and leave it open).
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// The model profile (`[models.PROFILE]` in your configuration; default `[model]`).
    #[arg(long, value_name = "PROFILE", conflicts_with = "daemon")]
    model: Option<String>,
    /// Work through a running `nodwyn serve`: a lost connection is made again, the draft kept.
    #[arg(long)]
    daemon: bool,
}

pub(super) fn run(args: TuiArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if invocation.json {
        bail!("nodwyn tui is an interface on a terminal; for JSON Lines use `nodwyn run --json`");
    }
    if args.worktree && args.resume.is_some() {
        bail!(
            "--worktree opens a new session in a new worktree, and a resumed session keeps its folder: give one of them"
        );
    }
    if !output::person_at_terminal() {
        bail!("nodwyn tui needs a terminal; `nodwyn run` works without one");
    }
    let folder = std::fs::canonicalize(args.repo.dir()?)?;
    let options = Options {
        folder: folder.clone(),
        worktree: args.worktree,
        resume: args.resume.clone(),
        daemon: args.daemon,
        // NO_COLOR set to anything but the empty string (no-color.org).
        color: std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()),
    };
    let (left, _engine) = if args.daemon {
        let client = crate::remote::connect()?;
        let reconnect: nodwyn_tui::Reconnect = Box::new(crate::remote::connect);
        (nodwyn_tui::run(&options, client, Some(reconnect))?, None)
    } else {
        let repository = nodwyn_core::repository_of(&folder).ok();
        let settings = settings_for(repository.as_deref())?;
        model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
        let engine = InProcess::start(
            invocation.store()?,
            Overrides {
                model: args.model.clone(),
                ..Overrides::default()
            },
        )?;
        nodwyn_core::scheme::keep_warm(2);
        let client = engine.client()?;
        (nodwyn_tui::run(&options, client, None)?, Some(engine))
    };
    match left {
        Left::Nothing => {}
        Left::Closed { session, kept } if kept.is_empty() => {
            output::note(format!("closed session {session}"));
        }
        Left::Closed { session, kept } => output::note(format!(
            "closed session {session}; its worktree stays: {}",
            kept.join("; ")
        )),
        Left::LeftOpen { session } => {
            output::note(format!("left session {session} open for whoever runs it"));
        }
    }
    Ok(())
}
