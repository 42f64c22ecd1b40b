//! The one module that names the Agent Client Protocol's SDK (`agent-client-protocol`, pinned
//! exactly): the connection on stdio, a handler per method, and the SDK's types made from
//! nodwyn's plain ones. A new major of the SDK changes this file only.
//!
//! The SDK handles one message at a time, so every handler that waits for the engine (a
//! session opened, a turn) moves its work to a task of its own and answers from there; the
//! engine's client waits on a blocking thread.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client as Editor, Stdio};
use nodwyn_protocol::Decision;
use serde_json::json;

use crate::commands::Place;
use crate::translate::{Kind, Status, Step, Update};
use crate::turn::{self, Question, Stop};
use crate::{Connect, Options};

/// What the handlers share: how to reach the engine and where each session this connection
/// opened works.
struct Shared {
    connect: Connect,
    options: Options,
    /// Each session's folder and branch, by its id.
    places: Mutex<HashMap<String, Place>>,
    /// The editor, as it named itself in `initialize`.
    editor: Mutex<Option<String>>,
}

impl Shared {
    /// A client of the engine, named to it as this agent and its editor (a Don't ask the
    /// person turns on is recorded as theirs, through this editor).
    fn client(&self) -> anyhow::Result<nodwyn_server::client::Client> {
        let mut client = (self.connect)()?;
        let editor = lock(&self.editor)
            .clone()
            .unwrap_or_else(|| "an editor that gave no name".to_owned());
        let name = format!("nodwyn acp {}, in {editor}", env!("CARGO_PKG_VERSION"));
        turn::request(&mut client, "hello", json!({"client": name}))?;
        Ok(client)
    }
}

/// The modes a thread offers: nodwyn asks, or Don't ask (only the person's own choice in the
/// editor turns it on, and it is recorded as theirs).
const ASK: &str = "ask";
const DONT_ASK: &str = "dont-ask";

/// Serves the editor on stdin and stdout until it closes the connection.
pub(crate) async fn serve(connect: Connect, options: Options) -> anyhow::Result<()> {
    let shared = Arc::new(Shared {
        connect,
        options,
        places: Mutex::new(HashMap::new()),
        editor: Mutex::new(None),
    });
    let greeting = Arc::clone(&shared);
    let (opening, loading, listing, moding, prompting, cancelling) = (
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
    );
    Agent
        .v1()
        .name("nodwyn")
        .on_receive_request(
            async move |request: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        _: ConnectionTo<Editor>| {
                if let Some(info) = &request.client_info {
                    *lock(&greeting.editor) = Some(format!("{} {}", info.name, info.version));
                }
                responder.respond(
                    acp::InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            acp::AgentCapabilities::new()
                                .load_session(true)
                                .prompt_capabilities(
                                    acp::PromptCapabilities::new().embedded_context(true),
                                )
                                .session_capabilities(
                                    acp::SessionCapabilities::new()
                                        .list(acp::SessionListCapabilities::new()),
                                ),
                        )
                        .agent_info(acp::Implementation::new(
                            "nodwyn",
                            env!("CARGO_PKG_VERSION"),
                        )),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::NewSessionRequest,
                        responder: Responder<acp::NewSessionResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&opening);
                later(&editor, responder, move |_| {
                    let (id, said) = open_session(&shared, &request.cwd)?;
                    let response = acp::NewSessionResponse::new(acp::SessionId::new(id.clone()))
                        .modes(modes(false));
                    // Told after the answer: before it the editor does not know the session.
                    Ok((
                        response,
                        vec![update(&id, Update::Text(said)), commands(&id)],
                    ))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::LoadSessionRequest,
                        responder: Responder<acp::LoadSessionResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&loading);
                later(&editor, responder, move |editor| {
                    let (id, updates, dont_ask) =
                        load_session(&shared, &request.session_id.to_string())?;
                    // The thread is told again before the answer, as ACP asks.
                    for told in updates {
                        notify(editor, update(&id, told));
                    }
                    notify(editor, commands(&id));
                    Ok((
                        acp::LoadSessionResponse::new().modes(modes(dont_ask)),
                        Vec::new(),
                    ))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::ListSessionsRequest,
                        responder: Responder<acp::ListSessionsResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&listing);
                later(&editor, responder, move |_| {
                    Ok((list_sessions(&shared, request.cwd)?, Vec::new()))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::SetSessionModeRequest,
                        responder: Responder<acp::SetSessionModeResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&moding);
                later(&editor, responder, move |_| {
                    let session = request.session_id.to_string();
                    if !lock(&shared.places).contains_key(&session) {
                        anyhow::bail!("no session {session} was opened on this connection");
                    }
                    let mode = request.mode_id.to_string();
                    let on = match mode.as_str() {
                        ASK => false,
                        DONT_ASK => true,
                        _ => anyhow::bail!(
                            "there is no mode {mode:?}; nodwyn's modes are {ASK} and {DONT_ASK}"
                        ),
                    };
                    let mut client = shared.client()?;
                    turn::request(
                        &mut client,
                        "session.dont_ask",
                        json!({"session": session, "on": on}),
                    )?;
                    Ok((acp::SetSessionModeResponse::new(), Vec::new()))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::PromptRequest,
                        responder: Responder<acp::PromptResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&prompting);
                let handle = tokio::runtime::Handle::current();
                later(&editor, responder, move |editor| {
                    let session = request.session_id.to_string();
                    let text = prompt_text(&request.prompt);
                    let stop = prompt(&shared, &session, &text, editor, &handle)?;
                    Ok((
                        acp::PromptResponse::new(match stop {
                            Stop::EndTurn => acp::StopReason::EndTurn,
                            Stop::Cancelled => acp::StopReason::Cancelled,
                            Stop::MaxTokens => acp::StopReason::MaxTokens,
                            Stop::MaxTurnRequests => acp::StopReason::MaxTurnRequests,
                            Stop::Refusal => acp::StopReason::Refusal,
                        }),
                        Vec::new(),
                    ))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: acp::CancelNotification, _: ConnectionTo<Editor>| {
                let shared = Arc::clone(&cancelling);
                let session = cancel.session_id.to_string();
                // Ends the session's turn: its command's tree, its model stream, its question.
                tokio::task::spawn_blocking(move || {
                    let interrupted = shared.client().and_then(|mut client| {
                        turn::request(&mut client, "turn.interrupt", json!({"session": session}))
                    });
                    if let Err(e) = interrupted {
                        tracing::warn!(error = %e, "the turn could not be interrupted");
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
        .map_err(|e| anyhow::anyhow!("the editor's connection failed: {e}"))
}

/// Answers `responder` from `work`, run on a blocking thread in a task of its own (the SDK
/// handles one message at a time, and the engine's client waits): its response, then the
/// notifications it gives to send after it. A refusal is answered with its sentence. Nothing
/// that goes wrong here ends the editor's connection: it is logged.
fn later<R: agent_client_protocol::JsonRpcResponse>(
    editor: &ConnectionTo<Editor>,
    responder: Responder<R>,
    work: impl FnOnce(&ConnectionTo<Editor>) -> anyhow::Result<(R, Vec<acp::SessionNotification>)>
    + Send
    + 'static,
) -> Result<(), agent_client_protocol::Error> {
    let to = editor.clone();
    editor.spawn(async move {
        let worker = to.clone();
        let done = tokio::task::spawn_blocking(move || work(&worker)).await;
        let answered = match done {
            Ok(Ok((response, after))) => responder.respond(response).map(|()| after),
            Ok(Err(e)) => responder
                .respond_with_error(refused(&e))
                .map(|()| Vec::new()),
            Err(e) => responder
                .respond_with_internal_error(e)
                .map(|()| Vec::new()),
        };
        match answered {
            Ok(after) => after.into_iter().for_each(|told| notify(&to, told)),
            Err(e) => tracing::warn!(error = %e, "an answer could not be sent to the editor"),
        }
        Ok(())
    })
}

/// Opens a session for the folder `cwd` (or the `--repo` the person gave): its id, and the
/// sentence saying where it works.
fn open_session(shared: &Shared, cwd: &std::path::Path) -> anyhow::Result<(String, String)> {
    let mut client = shared.client()?;
    let repo = shared.options.repo.as_deref().unwrap_or(cwd);
    let opened = turn::request(
        &mut client,
        "session.open",
        json!({"repo": repo, "worktree": shared.options.worktree}),
    )?;
    let id = opened["session"].as_str().unwrap_or_default().to_owned();
    let place = Place {
        root: PathBuf::from(opened["root"].as_str().unwrap_or_default()),
        branch: opened["branch"].as_str().map(str::to_owned),
    };
    let said = match &place.branch {
        Some(branch) => format!(
            "nodwyn session {id} works in its own worktree {} on branch {branch}; your checkout is not touched until you land it with /land.\n\n",
            place.root.display()
        ),
        None => format!(
            "nodwyn session {id} works in {} itself.\n\n",
            place.root.display()
        ),
    };
    lock(&shared.places).insert(id.clone(), place);
    Ok((id, said))
}

/// Opens session `session` again (its worktree made again if it is gone): its id, the updates
/// that tell its conversation, and whether Don't ask is on.
fn load_session(shared: &Shared, session: &str) -> anyhow::Result<(String, Vec<Update>, bool)> {
    let mut client = shared.client()?;
    let resumed = turn::request(&mut client, "session.resume", json!({"session": session}))?;
    let id = resumed["session"].as_str().unwrap_or(session).to_owned();
    let place = Place {
        root: PathBuf::from(resumed["root"].as_str().unwrap_or_default()),
        branch: resumed["branch"].as_str().map(str::to_owned),
    };
    let mut records = Vec::new();
    loop {
        let page = turn::request(
            &mut client,
            "session.events",
            json!({"session": id, "after": records.len()}),
        )?;
        let events = page["events"].as_array().cloned().unwrap_or_default();
        let more = page["more"].as_bool().unwrap_or(false) && !events.is_empty();
        records.extend(events.into_iter().map(|event| event["record"].clone()));
        if !more {
            break;
        }
    }
    let updates = crate::translate::Translator::replay(&id, &place.root, &records);
    let dont_ask = resumed["dont_ask"] == true;
    lock(&shared.places).insert(id.clone(), place);
    Ok((id, updates, dont_ask))
}

/// The sessions of the repository holding `cwd` (or the `--repo` the person gave, or the
/// folder nodwyn was started in), newest first as the engine lists them.
fn list_sessions(
    shared: &Shared,
    cwd: Option<PathBuf>,
) -> anyhow::Result<acp::ListSessionsResponse> {
    let folder = match (&shared.options.repo, cwd) {
        (Some(repo), _) => repo.clone(),
        (None, Some(cwd)) => cwd,
        (None, None) => std::env::current_dir()?,
    };
    let mut client = shared.client()?;
    let listed = turn::request(&mut client, "session.list", json!({"repo": folder}))?;
    let sessions = listed["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|session| session["open"] == true)
        .map(|session| {
            let id = session["session"].as_str().unwrap_or_default();
            let root = session["root"].as_str().unwrap_or_default();
            let title = match (session["name"].as_str(), session["branch"].as_str()) {
                (Some(name), _) => name.to_owned(),
                (None, Some(branch)) => branch.to_owned(),
                (None, None) => format!("session {id} in {root}"),
            };
            acp::SessionInfo::new(acp::SessionId::new(id.to_owned()), folder.clone()).title(title)
        })
        .collect();
    Ok(acp::ListSessionsResponse::new(sessions))
}

/// Runs `text` in `session`: one of the thread's commands, or a turn streamed to `editor` with
/// its questions asked there.
fn prompt(
    shared: &Shared,
    session: &str,
    text: &str,
    editor: &ConnectionTo<Editor>,
    handle: &tokio::runtime::Handle,
) -> anyhow::Result<Stop> {
    let Some(place) = lock(&shared.places).get(session).cloned() else {
        anyhow::bail!("no session {session} was opened on this connection");
    };
    let mut client = shared.client()?;
    if let Some(answer) = crate::commands::run(&mut client, session, &place, text) {
        for told in answer {
            notify(editor, update(session, told));
        }
        return Ok(Stop::EndTurn);
    }
    let timeout = shared.options.permission_timeout;
    let ran = turn::run(
        &mut client,
        session,
        &place.root,
        text,
        &mut |told| notify(editor, update(session, told)),
        &mut |question| ask(editor, session, question, handle, timeout),
    );
    match ran {
        // A turn the engine would not start (no model configured, one already running) is
        // answered in the thread, where the person reads it.
        Err(e) if e.downcast_ref::<turn::Refused>().is_some() => {
            notify(
                editor,
                update(session, Update::Text(format!("nodwyn: {e}"))),
            );
            Ok(Stop::EndTurn)
        }
        ran => ran,
    }
}

/// Asks the editor `question` through its permission prompt; nothing chosen in `timeout`, an
/// unknown option or a cancelled prompt declines.
fn ask(
    editor: &ConnectionTo<Editor>,
    session: &str,
    question: &Question,
    handle: &tokio::runtime::Handle,
    timeout: Duration,
) -> Decision {
    let call = question
        .call
        .clone()
        .unwrap_or_else(|| "question".to_owned());
    let title = format!("{} (nodwyn asks: {})", question.action, question.why);
    let mut options = vec![acp::PermissionOption::new(
        "allow_once",
        if question.security {
            "Allow this once (a security confirm)"
        } else {
            "Allow this once"
        },
        acp::PermissionOptionKind::AllowOnce,
    )];
    if let Some(allows) = &question.always {
        options.push(acp::PermissionOption::new(
            "allow_always",
            format!("Allow {}", nodwyn_text::escape_line(allows)),
            acp::PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(acp::PermissionOption::new(
        "reject_once",
        "Decline",
        acp::PermissionOptionKind::RejectOnce,
    ));
    let request = acp::RequestPermissionRequest::new(
        acp::SessionId::new(session.to_owned()),
        acp::ToolCallUpdate::new(call, acp::ToolCallUpdateFields::new().title(title)),
        options,
    );
    let answered = handle.block_on(async {
        tokio::time::timeout(timeout, editor.send_request(request).block_task()).await
    });
    match answered {
        Ok(Ok(response)) => match response.outcome {
            acp::RequestPermissionOutcome::Selected(selected) => {
                match selected.option_id.to_string().as_str() {
                    "allow_once" => Decision::Allow,
                    "allow_always" if question.always.is_some() => Decision::AllowAlways,
                    _ => Decision::Decline,
                }
            }
            _ => Decision::Decline,
        },
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the editor did not answer the permission request");
            Decision::Decline
        }
        // Declined, and recorded in the session's log as a question nobody answered.
        Err(_) => Decision::Unanswered,
    }
}

/// Sends `told` to the editor; one that cannot be sent is logged (the turn goes on).
fn notify(editor: &ConnectionTo<Editor>, told: acp::SessionNotification) {
    if let Err(e) = editor.send_notification(told) {
        tracing::warn!(error = %e, "an update could not be sent to the editor");
    }
}

/// `update` of `session`, as the editor reads it.
fn update(session: &str, update: Update) -> acp::SessionNotification {
    acp::SessionNotification::new(
        acp::SessionId::new(session.to_owned()),
        session_update(update),
    )
}

/// The thread's commands, for the editor's command menu.
fn commands(session: &str) -> acp::SessionNotification {
    let offered = crate::commands::COMMANDS
        .iter()
        .map(|command| {
            let offered = acp::AvailableCommand::new(command.name, command.description);
            match command.hint {
                Some(hint) => offered.input(acp::AvailableCommandInput::Unstructured(
                    acp::UnstructuredCommandInput::new(hint),
                )),
                None => offered,
            }
        })
        .collect();
    acp::SessionNotification::new(
        acp::SessionId::new(session.to_owned()),
        acp::SessionUpdate::AvailableCommandsUpdate(acp::AvailableCommandsUpdate::new(offered)),
    )
}

/// The thread's modes, Don't ask current when `dont_ask`.
fn modes(dont_ask: bool) -> acp::SessionModeState {
    acp::SessionModeState::new(
        if dont_ask { DONT_ASK } else { ASK },
        vec![
            acp::SessionMode::new(ASK, "Ask")
                .description("The guard's questions are asked in your permission prompt"),
            acp::SessionMode::new(DONT_ASK, "Don't ask").description(
                "Ordinary questions are allowed without asking; security confirms are still asked",
            ),
        ],
    )
}

/// The SDK's form of `update`.
fn session_update(update: Update) -> acp::SessionUpdate {
    match update {
        Update::UserText(text) => acp::SessionUpdate::UserMessageChunk(acp::ContentChunk::new(
            acp::ContentBlock::Text(acp::TextContent::new(text)),
        )),
        Update::Text(text) => acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
            acp::ContentBlock::Text(acp::TextContent::new(text)),
        )),
        Update::Thought(text) => acp::SessionUpdate::AgentThoughtChunk(acp::ContentChunk::new(
            acp::ContentBlock::Text(acp::TextContent::new(text)),
        )),
        Update::Plan(steps) => acp::SessionUpdate::Plan(acp::Plan::new(
            steps
                .into_iter()
                .map(|(step, status)| {
                    acp::PlanEntry::new(
                        step,
                        acp::PlanEntryPriority::Medium,
                        match status {
                            Step::Pending => acp::PlanEntryStatus::Pending,
                            Step::InProgress => acp::PlanEntryStatus::InProgress,
                            Step::Completed => acp::PlanEntryStatus::Completed,
                        },
                    )
                })
                .collect(),
        )),
        Update::ToolCall {
            id,
            title,
            kind,
            locations,
            input,
        } => acp::SessionUpdate::ToolCall(
            acp::ToolCall::new(id, title)
                .kind(match kind {
                    Kind::Read => acp::ToolKind::Read,
                    Kind::Edit => acp::ToolKind::Edit,
                    Kind::Search => acp::ToolKind::Search,
                    Kind::Execute => acp::ToolKind::Execute,
                    Kind::Other => acp::ToolKind::Other,
                })
                .status(acp::ToolCallStatus::Pending)
                .locations(
                    locations
                        .into_iter()
                        .map(acp::ToolCallLocation::new)
                        .collect::<Vec<_>>(),
                )
                .raw_input(input),
        ),
        Update::ToolStatus {
            id,
            status,
            output,
            diffs,
        } => {
            let mut content: Vec<acp::ToolCallContent> = diffs
                .into_iter()
                .map(|diff| {
                    acp::ToolCallContent::Diff(
                        acp::Diff::new(diff.path, diff.new).old_text(diff.old),
                    )
                })
                .collect();
            if let Some(output) = output {
                content.push(acp::ToolCallContent::Content(acp::Content::new(
                    acp::ContentBlock::Text(acp::TextContent::new(output)),
                )));
            }
            let mut fields = acp::ToolCallUpdateFields::new().status(match status {
                Status::InProgress => acp::ToolCallStatus::InProgress,
                Status::Completed => acp::ToolCallStatus::Completed,
                Status::Failed => acp::ToolCallStatus::Failed,
            });
            if !content.is_empty() {
                fields = fields.content(content);
            }
            acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(id, fields))
        }
    }
}

/// The person's message: its text, each linked resource named, each embedded one's text given.
fn prompt_text(blocks: &[acp::ContentBlock]) -> String {
    let mut text = String::new();
    for block in blocks {
        match block {
            acp::ContentBlock::Text(said) => text.push_str(&said.text),
            acp::ContentBlock::ResourceLink(link) => {
                text.push_str(&format!("\n[{}]({})\n", link.name, link.uri));
            }
            acp::ContentBlock::Resource(embedded) => {
                if let acp::EmbeddedResourceResource::TextResourceContents(contents) =
                    &embedded.resource
                {
                    text.push_str(&format!(
                        "\n<context uri=\"{}\">\n{}\n</context>\n",
                        contents.uri, contents.text
                    ));
                }
            }
            _ => {}
        }
    }
    text
}

/// The editor's error for a refusal or a failure, its sentence kept.
fn refused(error: &anyhow::Error) -> agent_client_protocol::Error {
    agent_client_protocol::Error::new(-32000, error.to_string())
}

/// `mutex`'s value, even after a panic elsewhere.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
