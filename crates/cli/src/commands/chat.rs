//! `nodwyn chat`: a conversation with the agent on a terminal, one line at a time, as a client
//! of the protocol: of an engine in this process, or of a running `nodwyn serve` (`--daemon`).
//! The model's text streams as it comes, each tool call is one line, the guard's questions are
//! asked inline; lines starting with `/` are commands. Ctrl-C interrupts the turn, not the
//! program; Ctrl-D or `/exit` ends, closing the session as `worktree close` would (a worktree
//! with work stays). Through the daemon, what the session's turns (started by any client) send,
//! their questions too, is shown between the keys of the line being typed, so a second terminal
//! can answer them; a
//! session joined there with `--resume ID` stays open for the client that runs it.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::bail;
use clap::Args;
use nodwyn_protocol::{TurnEnd, WorktreeMode as Mode};
use nodwyn_server::engine::{Overrides, protocol_mode};
use serde_json::json;

use crate::commands::run::{chosen_mode, chosen_model, model_profile, settings_for};
use crate::commands::{Invocation, RepoArg};
use crate::local_engine::InProcess;
use crate::remote::{Remote, call};
use crate::{environment, output};

/// Talk with the agent in a session, a message a line: `/worktree` (and `/worktree off`),
/// `/diff`, `/land MESSAGE`, `/dont-ask` (and `/dont-ask off`), `/help`, `/exit`. Ctrl-C
/// interrupts the turn; Ctrl-D or `/exit` ends and closes the session (a worktree with work
/// stays).
#[derive(Debug, Args)]
pub(super) struct ChatArgs {
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
/// and lowers the interrupt flag again, so that a second one does not end nodwyn as it would
/// during a turn. Gives the flag that says the chat is waiting.
fn idle_interrupts(interrupt: &Arc<AtomicBool>) -> Arc<AtomicBool> {
    let waiting = Arc::new(AtomicBool::new(false));
    let (watched, interrupt) = (Arc::clone(&waiting), Arc::clone(interrupt));
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if watched.load(Ordering::SeqCst) && interrupt.swap(false, Ordering::SeqCst) {
                output::note("(Ctrl-C interrupts a turn; Ctrl-D or /exit ends the chat)");
                let _ = write!(std::io::stderr(), "> ");
                let _ = std::io::stderr().flush();
            }
        }
    });
    waiting
}

const HELP: &str = "commands: /worktree (where the session works), /worktree off (stay in the checkout), /diff (the session's changes), /land MESSAGE (land them), /dont-ask, /dont-ask off, /help, /exit (or Ctrl-D); Ctrl-C interrupts a turn";

pub(super) fn run(args: ChatArgs, invocation: &Invocation) -> anyhow::Result<()> {
    if invocation.json {
        bail!(
            "nodwyn chat is a conversation on a terminal; for JSON Lines use `nodwyn run --json`"
        );
    }
    let store = invocation.store()?;
    let dir = std::fs::canonicalize(args.repo.dir()?)?;
    let repository = nodwyn_core::repository_of(&dir).ok();
    let settings = settings_for(repository.as_deref())?;
    let mut mode = chosen_mode(args.worktree, args.no_worktree, &settings);
    // The engine here or a daemon's; either way the conversation is a client of the protocol.
    let (mut client, engine) = if args.daemon {
        (crate::remote::connect()?, None)
    } else {
        model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
        let engine = InProcess::start(
            store.clone(),
            Overrides {
                model: args.model.clone(),
                ..Overrides::default()
            },
        )?;
        // Between messages there is time to make the engines of the next turn (its prompt, and
        // a strategy's on-turn) ahead.
        nodwyn_core::scheme::keep_warm(2);
        (engine.client()?, Some(engine))
    };
    let alone = engine.is_some();
    let (session, after, joined) = match &args.resume {
        Some(id) if !alone => {
            // Joined as it is: a turn may be running in it (and its call holding the session),
            // which is what a second terminal comes to watch and answer.
            let (session, last) = crate::remote::last_event(&mut client, id)?;
            (session, last, true)
        }
        Some(id) => {
            let resumed = call(&mut client, "session.resume", json!({"session": id}))?;
            let (session, last) =
                crate::remote::last_event(&mut client, resumed["session"].as_str().unwrap_or(id))?;
            (session, last, false)
        }
        None => {
            let opened = call(
                &mut client,
                "session.open",
                json!({"repo": dir, "worktree": protocol_mode(mode)}),
            )?;
            let session = opened["session"].as_str().unwrap_or_default().to_owned();
            (session, 0, false)
        }
    };
    let mut remote = Remote::follow(client, session.clone(), after, false, alone)?;
    output::note(if alone {
        format!("nodwyn chat: session {session}; /help for commands")
    } else {
        format!("nodwyn chat: session {session} through the daemon; /help for commands")
    });
    let waiting = idle_interrupts(remote.interrupt());
    let history = repository.as_deref().map(|repository| {
        store.home().join("history").join(format!(
            "{}.txt",
            nodwyn_core::Store::project_id(repository)
        ))
    });
    let mut editor = crate::line_editor::LineEditor::new(history);
    let person = environment::host_settings().person;
    loop {
        if crate::asking::exit_asked() {
            break;
        }
        // A Ctrl-C raised before now belonged to what ran before (a turn, a landing); one
        // pressed from the prompt on gets the hint.
        remote.interrupt().store(false, Ordering::SeqCst);
        waiting.store(true, Ordering::SeqCst);
        let read = editor.read("> ", &mut remote);
        waiting.store(false, Ordering::SeqCst);
        let Some(line) = read? else {
            break;
        };
        let said = line.trim();
        let worktree = || -> anyhow::Result<Option<(std::path::PathBuf, String)>> {
            let session = nodwyn_core::Session::load(&store.find(&session)?)?;
            Ok(session
                .active_worktree()
                .map(|tree| (tree.path.clone(), tree.branch.clone())))
        };
        match said {
            "" => continue,
            "/exit" => break,
            "/help" => output::note(HELP),
            "/worktree" => output::note(match worktree()? {
                Some((path, branch)) => format!("worktree {} on branch {branch}", path.display()),
                None => match protocol_mode(mode) {
                    Mode::Auto => "no worktree yet: the first change opens one (mode auto; /worktree off stays in the checkout)".to_owned(),
                    Mode::Always | Mode::Off => "no worktree: the session works in the checkout".to_owned(),
                },
            }),
            "/worktree off" => {
                match call(
                    remote.client(),
                    "session.stay_in_checkout",
                    json!({"session": session}),
                ) {
                    Ok(_) => {
                        mode = nodwyn_config::WorktreeMode::Off;
                        output::note("the session stays in the checkout; every write is asked");
                    }
                    Err(error) => output::note(format!("nodwyn: {error}")),
                }
            }
            "/diff" if worktree()?.is_none() => output::note(
                "no worktree yet, so nothing of the session's to show; the first change opens one",
            ),
            "/diff" => {
                let limits = environment::host_settings().limits;
                match nodwyn_core::worktree::diff_shown(&store, &session, &limits) {
                    Ok(review) => output::text(super::worktree::diff::shown(&review))?,
                    Err(error) => output::note(format!("nodwyn: {error}")),
                }
            }
            "/dont-ask" | "/dont-ask off" => {
                let on = said == "/dont-ask";
                nodwyn_core::set_dont_ask(
                    &store,
                    &session,
                    on,
                    &format!("{person} (nodwyn chat)"),
                )?;
                output::note(if on { "Don't ask is on" } else { "Don't ask is off" });
            }
            land if land.starts_with("/land") => {
                let message = land["/land".len()..].trim();
                if message.is_empty() {
                    output::note("give the commit message: /land MESSAGE");
                    continue;
                }
                let host = environment::host_settings_confined();
                match nodwyn_core::land(
                    &store,
                    &session,
                    Some(message),
                    Default::default(),
                    None,
                    false,
                    &host,
                ) {
                    Ok(landed) => output::note(landed.summary()),
                    Err(error) => output::note(format!(
                        "nodwyn: {}",
                        output::printable(&error.to_string())
                    )),
                }
            }
            command if command.starts_with('/') => {
                output::note(format!(
                    "unknown command {}; {HELP}",
                    output::printable(command)
                ));
            }
            message => {
                if let Err(error) = call(
                    remote.client(),
                    "turn.start",
                    json!({"session": session, "text": message}),
                ) {
                    output::note(format!("nodwyn: {error}"));
                    continue;
                }
                match remote.until_turn_ends()?.end {
                    // The answer was shown as it streamed; on a terminal once is enough.
                    TurnEnd::Finished => {}
                    TurnEnd::Interrupted => output::note("interrupted"),
                    TurnEnd::Limit { why } | TurnEnd::Failed { why } => {
                        output::note(format!("nodwyn: {}", output::printable(&why)));
                    }
                    TurnEnd::Refused => output::note("nodwyn: the model declined"),
                }
            }
        }
    }
    if !joined {
        let closed = call(
            remote.client(),
            "session.close",
            json!({"session": session}),
        )?;
        let kept: Vec<&str> = closed["kept"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .collect();
        if kept.is_empty() {
            output::note(format!("closed session {session}"));
        } else {
            output::note(format!(
                "closed session {session}; its worktree stays: {}",
                kept.join("; ")
            ));
        }
    }
    drop(remote);
    drop(engine);
    Ok(())
}
