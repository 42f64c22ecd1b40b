//! `nodwyn worktree review`.

use std::sync::Arc;

use anyhow::bail;
use clap::Args;
use nodwyn_core::prim::Registry;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_core::worktree::comments::{Comments, message};

use crate::commands::run::{
    agent_options, chosen_model, drive, engine_and_host, model_profile, profiles_of, settings_for,
};
use crate::commands::{Invocation, Outcome};

/// Send review comments to a session's agent as one message, and let it work on them: an
/// overall note first, then the comments grouped by file in line order, each naming its line's
/// number (never the line's text). Starts a turn with the configured model; refused while a turn
/// is running, for a closed session, and for a line the session's changes no longer have.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
    /// A comment on a line of the changes, as PATH:LINE:TEXT (the line as the file is now).
    #[arg(long = "comment", value_name = "PATH:LINE:TEXT")]
    comments: Vec<String>,
    /// A comment on a whole file, as PATH:TEXT.
    #[arg(long = "file-comment", value_name = "PATH:TEXT")]
    file_comments: Vec<String>,
    /// An overall note, sent first.
    #[arg(long)]
    note: Option<String>,
    /// The model profile (default `[model]`).
    #[arg(long, value_name = "PROFILE")]
    model: Option<String>,
}

pub fn run(args: ReviewArgs, invocation: &Invocation) -> anyhow::Result<Outcome> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let comments = Comments {
        note: args.note.clone(),
        lines: args
            .comments
            .iter()
            .map(|given| line_comment(given))
            .collect::<anyhow::Result<_>>()?,
        files: args
            .file_comments
            .iter()
            .map(|given| match given.split_once(':') {
                Some((path, text)) if !path.is_empty() && !text.trim().is_empty() => {
                    Ok((path.to_owned(), text.to_owned()))
                }
                _ => bail!("--file-comment {given}: write it as PATH:TEXT"),
            })
            .collect::<anyhow::Result<_>>()?,
    };
    let store = invocation.store()?;
    let repository = nodwyn_core::Session::load(&store.find(&id)?)?.repository;
    let settings = settings_for(Some(&repository))?;
    let (engine, host) = engine_and_host(&settings, &store)?;
    let runtime = SessionRuntime::open(store.clone(), &id, Arc::new(Registry::builtin()), host)?;
    if runtime.turn_running()? {
        bail!(
            "a turn is running in session {} (an agent is working in it); send the review when it ends",
            runtime.id()
        );
    }
    let review =
        nodwyn_core::worktree::diff_shown(&store, &runtime.id(), &runtime.settings().limits)?;
    let text = message(&review, &comments)?;
    let profile = model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
    let options = agent_options(
        &settings,
        nodwyn_config::WorktreeMode::Auto,
        nodwyn_core::worktree::NewWorktree::default(),
        profile.1,
    )?;
    let profiles = profiles_of(&settings);
    drive(
        engine,
        runtime,
        &text,
        options,
        (profile.0, profiles),
        invocation.json,
    )
}

/// `PATH:LINE:TEXT`, split at the first `:digits:`.
fn line_comment(given: &str) -> anyhow::Result<(String, u64, String)> {
    for (at, _) in given.match_indices(':') {
        let rest = &given[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest.as_bytes().get(digits) == Some(&b':') && at > 0 {
            let text = &rest[digits + 1..];
            if text.trim().is_empty() {
                break;
            }
            return Ok((
                given[..at].to_owned(),
                rest[..digits].parse()?,
                text.to_owned(),
            ));
        }
    }
    bail!("--comment {given}: write it as PATH:LINE:TEXT, such as src/app.rs:12:why this?")
}
