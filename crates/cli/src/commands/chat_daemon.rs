//! `nodwyn chat --daemon`: the conversation through a running `nodwyn serve`. A session opened
//! here is closed at the end; one joined with `--resume ID` stays open for the client that runs
//! it. While the person has not typed, the questions of the session's turns (started by any
//! client) are asked here, so a second terminal can answer them.

use std::io::{BufRead, Write};
use std::time::Duration;

use nodwyn_protocol::TurnEnd;
use serde_json::json;

use crate::asking::input_waits;
use crate::commands::run::{chosen_mode, settings_for};
use crate::output;
use crate::remote::{Remote, call, connect};

/// What the conversation answers `/help` with through the daemon.
const HELP: &str = "type a message for the agent; /exit ends (Ctrl-D too); Ctrl-C interrupts the turn. Through the daemon the other commands (/diff, /land, /worktree, /dont-ask) are the command line's: `nodwyn worktree diff ID`, `nodwyn land ID`";

pub(super) fn run(
    dir: std::path::PathBuf,
    worktree: bool,
    no_worktree: bool,
    resume: Option<&str>,
) -> anyhow::Result<()> {
    let mut client = connect()?;
    let dir = std::fs::canonicalize(dir)?;
    let (session, after, joined) = match resume {
        Some(id) => {
            // Joined as it is: a turn may be running in it (and its call holding the session),
            // which is what a second terminal comes to watch and answer.
            let end = call(
                &mut client,
                "session.events",
                json!({"session": id, "after": u64::MAX}),
            )?;
            let session = end["session"].as_str().unwrap_or_default().to_owned();
            (session, end["last"].as_u64().unwrap_or(0), true)
        }
        None => {
            let repository = nodwyn_core::repository_of(&dir).ok();
            let settings = settings_for(repository.as_deref())?;
            let mode =
                nodwyn_server::engine::protocol_mode(chosen_mode(worktree, no_worktree, &settings));
            let opened = call(
                &mut client,
                "session.open",
                json!({"repo": dir, "worktree": mode}),
            )?;
            (
                opened["session"].as_str().unwrap_or_default().to_owned(),
                0,
                false,
            )
        }
    };
    let mut remote = Remote::follow(client, session.clone(), after, false, false)?;
    output::note(format!(
        "nodwyn chat: session {session} through the daemon; /help for commands"
    ));
    let stdin = std::io::stdin();
    loop {
        if crate::asking::exit_asked() {
            break;
        }
        eprint_prompt();
        while !input_waits(&stdin, Duration::from_millis(100)) {
            remote.while_idle()?;
        }
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            break;
        }
        match line.trim() {
            "" => continue,
            "/exit" => break,
            "/help" => output::note(HELP),
            command if command.starts_with('/') => output::note(format!(
                "unknown command {}; {HELP}",
                output::printable(command)
            )),
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
                    TurnEnd::Finished => {}
                    TurnEnd::Interrupted => output::note("interrupted"),
                    TurnEnd::Limit { why } | TurnEnd::Failed { why } => {
                        output::note(format!("nodwyn: {}", output::printable(&why)));
                    }
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
        output::note(format!("closed session {session}"));
        if let Some(kept) = closed["kept"].as_array().filter(|k| !k.is_empty()) {
            output::note(format!("its worktree stays: {kept:?}"));
        }
    }
    Ok(())
}

fn eprint_prompt() {
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(b"> ");
    let _ = stderr.flush();
}
