//! `nodwyn worktree review`.

use anyhow::bail;
use clap::Args;
use nodwyn_protocol::{FileComment, LineComment};
use nodwyn_server::engine::Overrides;
use serde_json::json;

use crate::commands::run::{chosen_model, model_profile, outcome_of, settings_for};
use crate::commands::{Invocation, Outcome};
use crate::local_engine::InProcess;
use crate::remote::{Remote, call};

/// Send review comments to a session's agent as one message, and let it work on them: an
/// overall note first, then the comments grouped by file in line order, each naming its line's
/// number (never the line's text). Starts a turn with the configured model; refused while a turn
/// is running, for a closed session, and for a line the session's changes no longer have.
#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
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

pub(super) fn run(args: ReviewArgs, invocation: &Invocation) -> anyhow::Result<Outcome> {
    let store = invocation.store()?;
    let id = crate::commands::session_or_here(args.id.clone(), &store)?;
    let comments: Vec<LineComment> = args
        .comments
        .iter()
        .map(|given| line_comment(given))
        .collect::<anyhow::Result<_>>()?;
    let file_comments: Vec<FileComment> = args
        .file_comments
        .iter()
        .map(|given| match given.split_once(':') {
            Some((path, text)) if !path.is_empty() && !text.trim().is_empty() => Ok(FileComment {
                path: path.to_owned(),
                text: text.to_owned(),
            }),
            _ => bail!("--file-comment {given}: write it as PATH:TEXT"),
        })
        .collect::<anyhow::Result<_>>()?;
    let session = nodwyn_core::Session::load(&store.find(&id)?)?;
    // A session that ran elsewhere and was imported is reviewed here: it is resumed here first.
    if session.ran_on.is_some() && !session.resumed_here && !session.open {
        let resumed = nodwyn_core::worktree::resume(&store, &id)?;
        crate::output::note(format!(
            "nodwyn: resumed session {} here, in {}",
            session.id.short(),
            crate::output::printable(&resumed.root.display().to_string())
        ));
    }
    let repository = session.repository;
    let settings = settings_for(Some(&repository))?;
    model_profile(&chosen_model(&settings, args.model.as_deref())?)?;
    // A client of an engine of this process, as `nodwyn run` is: `worktree.review` checks the
    // comments against the changes now and starts the turn; its events are followed from here.
    let engine = InProcess::start(
        store,
        Overrides {
            model: args.model.clone(),
            ..Overrides::default()
        },
    )?;
    let mut client = engine.client()?;
    let (id, last) = crate::remote::last_event(&mut client, &id)?;
    let mut remote = Remote::follow(client, id.clone(), last, invocation.json, true)?;
    call(
        remote.client(),
        "worktree.review",
        json!({
            "session": id,
            "note": args.note,
            "comments": comments,
            "file_comments": file_comments,
        }),
    )?;
    let ended = remote.until_turn_ends()?;
    outcome_of(ended, &id, "nodwyn run --resume", invocation.json)
}

/// `PATH:LINE:TEXT`, split at the first `:digits:`.
fn line_comment(given: &str) -> anyhow::Result<LineComment> {
    for (at, _) in given.match_indices(':') {
        let rest = &given[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest.as_bytes().get(digits) == Some(&b':') && at > 0 {
            let text = &rest[digits + 1..];
            if text.trim().is_empty() {
                break;
            }
            return Ok(LineComment {
                path: given[..at].to_owned(),
                line: rest[..digits].parse()?,
                text: text.to_owned(),
                line_text: None,
            });
        }
    }
    bail!("--comment {given}: write it as PATH:LINE:TEXT, such as src/app.rs:12:why this?")
}
