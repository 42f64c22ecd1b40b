//! `nodwyn chat`: a conversation with the agent on a terminal, one line at a time. The model's
//! text streams as it comes, each tool call is one line, the guard's questions are asked inline;
//! lines starting with `/` are commands. Ctrl-C interrupts the turn, not the program; Ctrl-D or
//! `/exit` ends, closing the session as `worktree close` would (a worktree with work stays).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::bail;
use clap::Args;
use nodwyn_agent::Agent;
use nodwyn_core::prim::Registry;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_core::worktree::NewWorktree;
use nodwyn_model::Client;
use nodwyn_protocol::{TurnEnd, WorktreeMode as Mode};

use crate::commands::run::{
    agent_options, chosen_mode, chosen_model, engine_and_host, model_profile, profiles_of,
    session_for, settings_for,
};
use crate::commands::{Invocation, RepoArg};
use crate::frontend::RunView;
use crate::output;

/// Talk with the agent in a session, a message a line: `/worktree` (and `/worktree off`),
/// `/diff`, `/land MESSAGE`, `/dont-ask` (and `/dont-ask off`), `/help`, `/exit`. Ctrl-C
/// interrupts the turn; Ctrl-D or `/exit` ends and closes the session (a worktree with work
/// stays).
#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Start in a new worktree (worktree mode `always`).
    #[arg(long, conflicts_with = "no_worktree")]
    worktree: bool,
    /// Work in the checkout itself, every write asked (worktree mode `off`).
    #[arg(long)]
    no_worktree: bool,
    /// The model profile (`[models.PROFILE]` in your configuration; default `[model]`).
    #[arg(long, value_name = "PROFILE")]
    model: Option<String>,
    /// Go on with session ID's conversation (with --daemon: join it, and leave it open).
    #[arg(long, value_name = "ID", conflicts_with_all = ["worktree", "no_worktree"])]
    resume: Option<String>,
    /// Talk through a running `nodwyn serve`: another terminal can join the session
    /// (`nodwyn chat --daemon --resume ID`) and answer its questions.
    #[arg(long, conflicts_with = "model")]
    daemon: bool,
}

/// Answers a Ctrl-C pressed while the chat waits for a line (nothing to interrupt) with a hint,
/// and lowers the interrupt again, so that a second one does not end nodwyn as it would during a
/// turn. Gives the flag that says the chat is waiting.
fn idle_interrupts(interrupt: &nodwyn_core::prim::Interrupt) -> Arc<AtomicBool> {
    let waiting = Arc::new(AtomicBool::new(false));
    let (watched, interrupt) = (Arc::clone(&waiting), interrupt.clone());
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(50));
            if watched.load(Ordering::SeqCst) && interrupt.is_raised() {
                interrupt.lower();
                output::note("(Ctrl-C interrupts a turn; Ctrl-D or /exit ends the chat)");
                let _ = write!(std::io::stderr(), "> ");
                let _ = std::io::stderr().flush();
            }
        }
    });
    waiting
}

const HELP: &str = "commands: /worktree (where the session works), /worktree off (stay in the checkout), /diff (the session's changes), /land MESSAGE (land them), /dont-ask, /dont-ask off, /help, /exit (or Ctrl-D); Ctrl-C interrupts a turn";

pub fn run(args: ChatArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if invocation.json {
        bail!(
            "nodwyn chat is a conversation on a terminal; for JSON Lines use `nodwyn run --json`"
        );
    }
    if args.daemon {
        return super::chat_daemon::run(
            args.repo.dir()?,
            args.worktree,
            args.no_worktree,
            args.resume.as_deref(),
        );
    }
    let store = invocation.store()?;
    let dir = args.repo.dir()?;
    let repository = nodwyn_core::repository_of(&dir).ok();
    let settings = settings_for(repository.as_deref())?;
    let profile = model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
    let mode = chosen_mode(args.worktree, args.no_worktree, &settings);
    let (engine, host) = engine_and_host(&settings, &store)?;
    // Between messages there is time to make the engines of the next turn (its prompt, and a
    // strategy's on-turn) ahead.
    nodwyn_core::scheme::keep_warm(2);
    let person = host.person.clone();
    let limits = host.limits;
    let new_worktree = NewWorktree {
        dir: dir.clone(),
        location: settings.worktree_location,
        ..NewWorktree::default()
    };
    let id = session_for(
        &store,
        args.resume.as_deref(),
        &new_worktree,
        mode,
        repository.is_some(),
        host.home.as_deref(),
    )?;
    let runtime = SessionRuntime::open(
        store.clone(),
        &id,
        Arc::new(Registry::builtin()),
        host.clone(),
    )?;
    let options = agent_options(&settings, mode, new_worktree, profile.1)?;
    let view = Arc::new(RunView::new(false).knowing(&Registry::builtin()));
    let mut agent = Agent::new(
        Arc::clone(&runtime),
        Arc::new(Client::new(profile.0)?),
        options,
        view,
    )?
    .with_profiles(profiles_of(&settings));
    output::note(format!("nodwyn chat: session {id}; /help for commands"));
    let waiting = idle_interrupts(&runtime.settings().interrupt);
    let history = repository.as_deref().map(|repository| {
        store.home().join("history").join(format!(
            "{}.txt",
            nodwyn_core::Store::project_id(repository)
        ))
    });
    let mut editor = crate::line_editor::LineEditor::new(history);
    loop {
        if crate::asking::exit_asked() {
            break;
        }
        // A Ctrl-C raised before now belonged to what ran before (a turn, a landing); one
        // pressed from the prompt on gets the hint.
        runtime.settings().interrupt.lower();
        waiting.store(true, Ordering::SeqCst);
        let read = editor.read("> ");
        waiting.store(false, Ordering::SeqCst);
        let Some(line) = read? else {
            break;
        };
        let said = line.trim();
        match said {
            "" => continue,
            "/exit" => break,
            "/help" => output::note(HELP),
            "/worktree" => output::note(match runtime.session()?.active_worktree() {
                Some(tree) => format!("worktree {} on branch {}", tree.path.display(), tree.branch),
                None => match agent.worktree_mode() {
                    Mode::Auto => "no worktree yet: the first change opens one (mode auto; /worktree off stays in the checkout)".to_owned(),
                    Mode::Always | Mode::Off => "no worktree: the session works in the checkout".to_owned(),
                },
            }),
            "/worktree off" => {
                agent.stay_in_checkout();
                output::note("the session stays in the checkout; every write is asked");
            }
            "/diff" if agent.runtime().session()?.active_worktree().is_none() => {
                output::note("no worktree yet, so nothing of the session's to show; the first change opens one")
            }
            "/diff" => match nodwyn_core::worktree::diff_shown(&store, &id, &limits) {
                Ok(review) => output::text(super::worktree::diff::shown(&review))?,
                Err(error) => output::note(format!("nodwyn: {error}")),
            },
            "/dont-ask" | "/dont-ask off" => {
                let on = said == "/dont-ask";
                nodwyn_core::set_dont_ask(&store, &id, on, &format!("{person} (nodwyn chat)"))?;
                output::note(if on { "Don't ask is on" } else { "Don't ask is off" });
            }
            land if land.starts_with("/land") => {
                let message = land["/land".len()..].trim();
                if message.is_empty() {
                    output::note("give the commit message: /land MESSAGE");
                    continue;
                }
                match nodwyn_core::land(&store, &id, Some(message), Default::default(), None, false, &host) {
                    Ok(landed) => output::note(super::land::describe(&landed)),
                    Err(error) => output::note(format!("nodwyn: {}", output::printable(&error.to_string()))),
                }
            }
            command if command.starts_with('/') => {
                output::note(format!("unknown command {}; {HELP}", output::printable(command)));
            }
            message => {
                let outcome = engine.block_on(agent.turn(message));
                match outcome.end {
                    // The answer was shown as it streamed; on a terminal once is enough.
                    TurnEnd::Finished => {}
                    TurnEnd::Interrupted => output::note("interrupted"),
                    TurnEnd::Limit { why } | TurnEnd::Failed { why } => {
                        output::note(format!("nodwyn: {}", output::printable(&why)));
                    }
                }
            }
        }
    }
    let closed = nodwyn_core::worktree::close(&store, &id)?;
    if closed.kept.is_empty() {
        output::note(format!("closed session {id}"));
    } else {
        output::note(format!(
            "closed session {id}; its worktree stays: {}",
            closed.kept.join("; ")
        ));
    }
    Ok(())
}
