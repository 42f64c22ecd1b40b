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

use crate::translate::{Kind, Status, Update};
use crate::turn::{self, Question, Stop};
use crate::{Connect, Options};

/// What the handlers share: how to reach the engine and the sessions this connection opened.
struct Shared {
    connect: Connect,
    options: Options,
    /// Each session's folder, by its id.
    roots: Mutex<HashMap<String, PathBuf>>,
}

/// Serves the editor on stdin and stdout until it closes the connection.
pub(crate) async fn serve(connect: Connect, options: Options) -> anyhow::Result<()> {
    let shared = Arc::new(Shared {
        connect,
        options,
        roots: Mutex::new(HashMap::new()),
    });
    let (opening, loading, prompting, cancelling) = (
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
        Arc::clone(&shared),
    );
    Agent
        .v1()
        .name("nodwyn")
        .on_receive_request(
            async move |_: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        _: ConnectionTo<Editor>| {
                responder.respond(
                    acp::InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            acp::AgentCapabilities::new()
                                .load_session(true)
                                .prompt_capabilities(
                                    acp::PromptCapabilities::new().embedded_context(true),
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
                editor.clone().spawn(async move {
                    let cwd = request.cwd.clone();
                    let opened =
                        tokio::task::spawn_blocking(move || open_session(&shared, cwd)).await;
                    match opened {
                        Ok(Ok((id, said))) => {
                            responder.respond(acp::NewSessionResponse::new(
                                acp::SessionId::new(id.clone()),
                            ))?;
                            send(&editor, &id, Update::Text(said))
                        }
                        Ok(Err(e)) => responder.respond_with_error(refused(&e)),
                        Err(e) => responder.respond_with_internal_error(e),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: acp::LoadSessionRequest,
                        responder: Responder<acp::LoadSessionResponse>,
                        editor: ConnectionTo<Editor>| {
                let shared = Arc::clone(&loading);
                editor.clone().spawn(async move {
                    let session = request.session_id.to_string();
                    let loaded =
                        tokio::task::spawn_blocking(move || load_session(&shared, &session)).await;
                    match loaded {
                        Ok(Ok((id, updates))) => {
                            // The thread is told again before the answer, as ACP asks.
                            for update in updates {
                                send(&editor, &id, update)?;
                            }
                            responder.respond(acp::LoadSessionResponse::new())
                        }
                        Ok(Err(e)) => responder.respond_with_error(refused(&e)),
                        Err(e) => responder.respond_with_internal_error(e),
                    }
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
                editor.clone().spawn(async move {
                    let session = request.session_id.to_string();
                    let text = prompt_text(&request.prompt);
                    let to = editor.clone();
                    let ran = tokio::task::spawn_blocking(move || {
                        prompt(&shared, &session, &text, &to, &handle)
                    })
                    .await;
                    match ran {
                        Ok(Ok(stop)) => responder.respond(acp::PromptResponse::new(match stop {
                            Stop::EndTurn => acp::StopReason::EndTurn,
                            Stop::Cancelled => acp::StopReason::Cancelled,
                            Stop::MaxTokens => acp::StopReason::MaxTokens,
                            Stop::MaxTurnRequests => acp::StopReason::MaxTurnRequests,
                        })),
                        Ok(Err(e)) => responder.respond_with_error(refused(&e)),
                        Err(e) => responder.respond_with_internal_error(e),
                    }
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
                    let interrupted = (shared.connect)().and_then(|mut client| {
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

/// Opens a session for the folder `cwd` (a new worktree of its repository): its id, and the
/// sentence saying where it works.
fn open_session(shared: &Shared, cwd: PathBuf) -> anyhow::Result<(String, String)> {
    let mut client = (shared.connect)()?;
    let opened = turn::request(
        &mut client,
        "session.open",
        json!({"repo": cwd, "worktree": shared.options.worktree}),
    )?;
    let id = opened["session"].as_str().unwrap_or_default().to_owned();
    let root = PathBuf::from(opened["root"].as_str().unwrap_or_default());
    let said = match opened["branch"].as_str() {
        Some(branch) => format!(
            "nodwyn session {id} works in its own worktree {} on branch {branch}; your checkout is not touched until you land it with /land.\n\n",
            root.display()
        ),
        None => format!(
            "nodwyn session {id} works in {} itself.\n\n",
            root.display()
        ),
    };
    lock(&shared.roots).insert(id.clone(), root);
    Ok((id, said))
}

/// Opens session `session` again (its worktree made again if it is gone): its id, and the
/// updates that tell its conversation.
fn load_session(shared: &Shared, session: &str) -> anyhow::Result<(String, Vec<Update>)> {
    let mut client = (shared.connect)()?;
    let resumed = turn::request(&mut client, "session.resume", json!({"session": session}))?;
    let id = resumed["session"].as_str().unwrap_or(session).to_owned();
    let root = PathBuf::from(resumed["root"].as_str().unwrap_or_default());
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
    let updates = crate::translate::Translator::replay(&id, &root, &records);
    lock(&shared.roots).insert(id.clone(), root);
    Ok((id, updates))
}

/// Runs `text` as a turn of `session`, streaming it to `editor` and asking its questions there.
fn prompt(
    shared: &Shared,
    session: &str,
    text: &str,
    editor: &ConnectionTo<Editor>,
    handle: &tokio::runtime::Handle,
) -> anyhow::Result<Stop> {
    let Some(root) = lock(&shared.roots).get(session).cloned() else {
        anyhow::bail!("no session {session} was opened on this connection");
    };
    let mut client = (shared.connect)()?;
    let timeout = shared.options.permission_timeout;
    turn::run(
        &mut client,
        session,
        &root,
        text,
        &mut |update| {
            if let Err(e) = send(editor, session, update) {
                tracing::warn!(error = %e, "an update could not be sent to the editor");
            }
        },
        &mut |question| ask(editor, session, question, handle, timeout),
    )
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
    let options = vec![
        acp::PermissionOption::new(
            "allow_once",
            if question.security {
                "Allow this once (a security confirm)"
            } else {
                "Allow this once"
            },
            acp::PermissionOptionKind::AllowOnce,
        ),
        acp::PermissionOption::new(
            "reject_once",
            "Decline",
            acp::PermissionOptionKind::RejectOnce,
        ),
    ];
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
            acp::RequestPermissionOutcome::Selected(selected)
                if selected.option_id.to_string() == "allow_once" =>
            {
                Decision::Allow
            }
            _ => Decision::Decline,
        },
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the editor did not answer the permission request");
            Decision::Decline
        }
        Err(_) => Decision::Decline,
    }
}

/// Sends `update` of `session` to the editor.
fn send(
    editor: &ConnectionTo<Editor>,
    session: &str,
    update: Update,
) -> Result<(), agent_client_protocol::Error> {
    editor.send_notification(acp::SessionNotification::new(
        acp::SessionId::new(session.to_owned()),
        session_update(update),
    ))
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
            diff,
        } => {
            let mut content = Vec::new();
            if let Some(diff) = diff {
                content.push(acp::ToolCallContent::Diff(
                    acp::Diff::new(diff.path, diff.new).old_text(diff.old),
                ));
            }
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
