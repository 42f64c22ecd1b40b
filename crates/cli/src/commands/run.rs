//! `nodwyn run`: a client of the engine, of one in this process or of a running `nodwyn serve`
//! (`--daemon`). It reads the configuration (the model profile, the worktree mode), refuses
//! what it can before a session opens, then opens or resumes the session, starts one turn with
//! the task, shows it, and closes the session unless asked to keep it open.

use anyhow::bail;
use clap::Args;
use nodwyn_config::{ModelProfile, Settings, WorktreeMode};
use nodwyn_protocol::{Notification, TurnEnd};
use nodwyn_server::engine::Overrides;
pub(crate) use nodwyn_server::engine::model_profile;
use serde_json::Value;

use crate::commands::{Invocation, Outcome, RepoArg, text_or_standard_input};
use crate::environment;
use crate::local_engine::InProcess;
use crate::output;

/// Give a model a task and let it work through nodwyn's primitives, every call judged by the
/// guard and recorded in the session's log. The model's text streams to stderr, one line per
/// tool call; its final answer goes to stdout. Exit 0 when the model finished, 1 on an error or
/// a limit, 130 when interrupted (Ctrl-C).
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Start in a new worktree (worktree mode `always`).
    #[arg(long, conflicts_with = "no_worktree")]
    worktree: bool,
    /// Work in the checkout itself, every write asked (worktree mode `off`).
    #[arg(long)]
    no_worktree: bool,
    /// The revision the session's worktree starts from.
    #[arg(long, value_name = "REF")]
    base: Option<String>,
    /// A name for the session, put in its branch's name.
    #[arg(long)]
    name: Option<String>,
    /// The model profile (`[models.PROFILE]` in your configuration; default `[model]`).
    #[arg(long, value_name = "PROFILE")]
    model: Option<String>,
    /// Stop after this many model calls (each answer of the model is one; `--max-turns` is
    /// the old name).
    #[arg(long, value_name = "N", alias = "max-turns")]
    max_model_calls: Option<u32>,
    /// Stop once this many tokens (read and written) are used.
    #[arg(long, value_name = "N")]
    max_tokens: Option<u64>,
    /// Turn Don't ask on for this session: ordinary questions are allowed without asking
    /// (security confirms still ask, or are refused with no terminal).
    #[arg(long)]
    dont_ask: bool,
    /// Leave the session open when the run ends (by default it is closed, its worktree kept
    /// whenever anything in it would be lost, as `nodwyn worktree close` does).
    #[arg(long)]
    keep_open: bool,
    /// Continue session ID's conversation with TASK, in the same worktree (made again if it
    /// is gone).
    #[arg(long, value_name = "ID", conflicts_with_all = ["worktree", "no_worktree", "base", "name"])]
    resume: Option<String>,
    /// Drive a running `nodwyn serve` instead of an engine of this command's own: the session
    /// is the daemon's, and another client (`nodwyn chat --daemon --resume ID`) can watch it and
    /// answer its questions.
    #[arg(long, conflicts_with_all = ["max_model_calls", "max_tokens"])]
    daemon: bool,
    /// Run with nobody to ask (a CI runner): every question is declined, its reason recorded;
    /// the run works in a new worktree, and refuses to start where commands cannot be confined.
    /// Exit 3 when anything needed a person.
    #[arg(long, conflicts_with_all = ["no_worktree", "daemon", "resume", "keep_open", "dont_ask"])]
    headless: bool,
    /// After the run, commit the session's changes and push its branch (never the base) to the
    /// base's remote, once the same credential scan as a landing passed, and only to a URL your
    /// allow.toml's push list names (`nodwyn allow push URL`).
    #[arg(long, requires = "headless")]
    push_branch: bool,
    /// After the run, write the session's record (its log, its base, branch and head, where it
    /// ran) to PATH, which must not exist, for `nodwyn session import` to bring home.
    #[arg(long, value_name = "PATH", requires = "headless")]
    export: Option<std::path::PathBuf>,
    /// The task; `-` reads it from standard input (no question can then be asked on the
    /// terminal).
    task: String,
}

pub(crate) fn run(args: RunArgs, invocation: &Invocation) -> anyhow::Result<Outcome> {
    let task = text_or_standard_input(args.task.clone(), "the task")?;
    if task.trim().is_empty() {
        bail!("the task is empty: say what the model should do");
    }
    for (flag, value) in [
        ("--max-model-calls", args.max_model_calls.map(u64::from)),
        ("--max-tokens", args.max_tokens),
    ] {
        if value == Some(0) {
            bail!("{flag} 0: give a number above 0");
        }
    }
    let dir = std::fs::canonicalize(args.repo.dir()?)?;
    let repository = nodwyn_core::repository_of(&dir).ok();
    let settings = settings_for(repository.as_deref())?;
    let mode = chosen_mode(args.worktree || args.headless, args.no_worktree, &settings);
    if args.headless {
        crate::commands::headless::refuse_unconfined(&settings)?;
        if let Some(path) = &args.export {
            nodwyn_core::remote::export::refuse_existing(path)?;
        }
    }
    // The engine here or a daemon's; either way this command is a client of the protocol.
    let (client, engine) = if args.daemon {
        (crate::remote::connect()?, None)
    } else {
        // What can be refused before a session is opened is refused in one sentence first.
        model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
        if mode == WorktreeMode::Off && (args.base.is_some() || args.name.is_some()) {
            bail!(
                "--base and --name choose a worktree, and this run works in the checkout (--no-worktree or [worktrees] mode = \"off\")"
            );
        }
        let engine = InProcess::start(
            invocation.store()?,
            Overrides {
                model: args.model.clone(),
                max_model_calls: args.max_model_calls,
                max_tokens: args.max_tokens,
            },
        )?;
        (engine.client()?, Some(engine))
    };
    let outcome = run_as_client(
        client,
        &args,
        &task,
        &dir,
        mode,
        engine.is_some(),
        invocation,
    );
    drop(engine);
    outcome
}

/// The run, as a client of an engine (`alone`: this process's own, with no other client).
fn run_as_client(
    mut client: nodwyn_server::client::Client,
    args: &RunArgs,
    task: &str,
    dir: &std::path::Path,
    mode: WorktreeMode,
    alone: bool,
    invocation: &Invocation,
) -> anyhow::Result<Outcome> {
    use crate::remote::call;
    use serde_json::json;
    let mode = nodwyn_server::engine::protocol_mode(mode);
    // Where the session is, told from the answer that opened it, and whether its turn started.
    let (session, root, branch, after, started) = if let Some(id) = &args.resume {
        let resumed = call(&mut client, "session.resume", json!({"session": id}))?;
        let (session, last) =
            crate::remote::last_event(&mut client, resumed["session"].as_str().unwrap_or(id))?;
        let branch = resumed["worktree"]["branch"].as_str().map(str::to_owned);
        (session, resumed["root"].clone(), branch, last, false)
    } else if args.daemon && args.model.is_some() {
        // A daemon's sessions take their model when their first turn starts.
        let started = call(
            &mut client,
            "run.start",
            json!({"repo": dir, "task": task, "worktree": mode, "model": args.model}),
        )?;
        let session: String = started["session"].as_str().unwrap_or_default().to_owned();
        (session, Value::Null, None, 0, true)
    } else {
        let opened = call(
            &mut client,
            "session.open",
            json!({"repo": dir, "worktree": mode, "base": args.base, "name": args.name}),
        )?;
        let session = opened["session"].as_str().unwrap_or_default().to_owned();
        let branch = opened["branch"].as_str().map(str::to_owned);
        (session, opened["root"].clone(), branch, 0, false)
    };
    if args.dont_ask {
        let store = invocation.store()?;
        let person = environment::host_settings().person;
        nodwyn_core::set_dont_ask(
            &store,
            &session,
            true,
            &format!("{person} (nodwyn run --dont-ask)"),
        )?;
    }
    if args.headless {
        let ran_on = nodwyn_core::remote::ran_on::here(|name| std::env::var(name).ok());
        nodwyn_core::remote::ran_on::record_headless(&invocation.store()?, &session, ran_on)?;
    }
    let mut remote =
        crate::remote::Remote::follow(client, session.clone(), after, invocation.json, alone)?
            .with_nobody_to_ask(args.headless);
    if let Some(root) = root.as_str() {
        remote.tell(&Notification::SessionStarted {
            session: session.clone(),
            root: root.into(),
            branch,
        });
    }
    if !started {
        call(
            remote.client(),
            "turn.start",
            json!({"session": session, "text": task}),
        )?;
    }
    let ended = remote.until_turn_ends()?;
    let pushed = args
        .push_branch
        .then(|| crate::commands::headless::push_branch(invocation, &session, task));
    if !args.keep_open {
        let closed = call(
            remote.client(),
            "session.close",
            json!({"session": session}),
        )?;
        if !invocation.json {
            tell_closed(&closed, args.daemon);
        }
    }
    let resume = if args.daemon {
        "nodwyn run --daemon --resume"
    } else {
        "nodwyn run --resume"
    };
    let exported = args
        .export
        .as_ref()
        .map(|path| crate::commands::headless::export(invocation, &session, path));
    let unasked = remote.unasked();
    let outcome = outcome_of(ended, &session, resume, invocation.json)?;
    if !args.headless {
        return Ok(outcome);
    }
    Ok(crate::commands::headless::outcome(
        outcome, unasked, pushed, exported,
    ))
}

/// How nodwyn exits after session `session`'s turn `ended`, the answer printed where a program
/// reads it; `resume` is the command that goes on after an interrupt.
pub(crate) fn outcome_of(
    ended: crate::remote::Ended,
    session: &str,
    resume: &str,
    json: bool,
) -> anyhow::Result<Outcome> {
    let short = &session[session.len().saturating_sub(8)..];
    Ok(match ended.end {
        TurnEnd::Finished => {
            // On a terminal the answer has streamed already; printed again only where stdout
            // goes elsewhere (a file, a pipe), for a program to read.
            use std::io::IsTerminal;
            let streamed_here = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
            if !json && !streamed_here {
                output::text(&ended.answer)?;
            }
            Outcome::Success
        }
        TurnEnd::Interrupted => {
            output::note(format!(
                "nodwyn: interrupted; `{resume} {short} TASK` goes on"
            ));
            Outcome::Exit(130)
        }
        TurnEnd::Limit { why } | TurnEnd::Failed { why } => {
            output::note(format!("nodwyn: {}", output::printable(&why)));
            Outcome::Exit(1)
        }
        TurnEnd::Refused => {
            use std::io::IsTerminal;
            if !json && !std::io::stdout().is_terminal() {
                output::text(&ended.answer)?;
            }
            output::note("nodwyn: the model declined the task");
            Outcome::Exit(1)
        }
    })
}

/// Says what became of the session a run ended in (`session.close`'s answer `closed`) and how
/// to go on.
fn tell_closed(closed: &Value, daemon: bool) {
    let session = closed["session"].as_str().unwrap_or_default();
    let short = &session[session.len().saturating_sub(8)..];
    let kept: Vec<&str> = closed["kept"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let resume = if daemon { "run --daemon" } else { "run" };
    output::note(if closed["removed"] == true {
        format!(
            "nodwyn: closed session {short}; its worktree was removed, as nothing in it would be lost"
        )
    } else if kept.is_empty() {
        format!("nodwyn: closed session {short}")
    } else {
        format!(
            "nodwyn: closed session {short}; its worktree stays ({}): `nodwyn worktree diff {short}` shows it, `nodwyn land {short}` lands it, `nodwyn {resume} --resume {short} TASK` goes on",
            output::printable(&kept.join("; "))
        )
    });
}

/// The settings of the person's configuration and, when given, `repository`'s.
pub(crate) fn settings_for(repository: Option<&std::path::Path>) -> anyhow::Result<Settings> {
    Settings::resolve(environment::user_config_file().as_deref(), repository)
}

/// The worktree mode `--worktree` (`always`) or `--no-worktree` (`off`) choose, else the
/// configuration's.
pub(crate) fn chosen_mode(always: bool, off: bool, settings: &Settings) -> WorktreeMode {
    if always {
        WorktreeMode::Always
    } else if off {
        WorktreeMode::Off
    } else {
        settings.worktree_mode
    }
}

/// The model profile `--model` names (`None`: the default), or a sentence naming the flag.
pub(crate) fn chosen_model(
    settings: &Settings,
    name: Option<&str>,
) -> anyhow::Result<ModelProfile> {
    settings.model(name).map_err(|error| match name {
        Some(name) => crate::error::coded("unknown_model", format!("--model {name}: {error}")),
        None => crate::error::coded("no_model", format!("{error:#}")),
    })
}
