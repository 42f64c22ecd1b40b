//! One prompt of an editor thread as one turn of the engine, over a client of the protocol: the
//! turn is started, its events are translated as they come, its questions asked of the editor,
//! and its end given back as the prompt's stop reason. Runs on a blocking thread: the engine's
//! client waits for its messages.

use std::path::Path;
use std::time::Duration;

use nodwyn_protocol::Decision;
use nodwyn_server::client::Client;
use serde_json::{Value, json};

use crate::translate::{Translator, Update};

/// Why a prompt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The model gave its answer.
    EndTurn,
    /// The editor cancelled it.
    Cancelled,
    /// One of nodwyn's limits (model calls, tool calls) ended it.
    MaxTurnRequests,
    /// The token limit ended it.
    MaxTokens,
    /// The model declined the task.
    Refusal,
}

/// A question of the guard, for the editor's permission prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Question {
    /// What the guard asks about (`fs-write notes.txt`).
    pub action: String,
    /// Why it asks.
    pub why: String,
    /// Whether it is a security confirm (never allowed for good).
    pub security: bool,
    /// What allowing it always would allow for the rest of the session, when the engine offers
    /// a standing answer (never for a security confirm).
    pub always: Option<String>,
    /// The tool call it is about, when one runs.
    pub call: Option<String>,
}

/// How long the engine's client waits for a message before it looks again.
const POLL: Duration = Duration::from_secs(1);

/// Runs `text` as a turn of session `session` (its files under `root`) through `client`:
/// every update goes to `emit`, every question to `ask`.
pub(crate) fn run(
    client: &mut Client,
    session: &str,
    root: &Path,
    text: &str,
    emit: &mut dyn FnMut(Update),
    ask: &mut dyn FnMut(&Question) -> Decision,
) -> anyhow::Result<Stop> {
    // Followed from the session's last event on, so what an earlier turn sent is not sent again.
    let (_, last) = client.last_event(session).map_err(|e| Refused(e.message))?;
    request(
        client,
        "session.subscribe",
        json!({"session": session, "after": last}),
    )?;
    request(
        client,
        "turn.start",
        json!({"session": session, "text": text}),
    )?;
    let mut translator = Translator::new(session, root);
    loop {
        let Some(message) = client.next(POLL).map_err(|e| anyhow::anyhow!(e.message))? else {
            continue;
        };
        let params = &message["params"];
        if message["method"] == "approval.request" && params["session"] == session {
            let question = Question {
                action: params["action"].as_str().unwrap_or_default().to_owned(),
                why: params["why"].as_str().unwrap_or_default().to_owned(),
                security: params["kind"] == "security",
                always: params["always"]
                    .as_str()
                    .filter(|_| params["kind"] == "ordinary")
                    .map(str::to_owned),
                call: translator.running().map(str::to_owned),
            };
            let decision = ask(&question);
            let id = message["id"].as_str().unwrap_or_default().to_owned();
            client.answer(&id, decision)?;
            continue;
        }
        for update in translator.on(&message) {
            emit(update);
        }
        if message["method"] == "turn.completed" && params["session"] == session {
            return stop_of(&params["end"]);
        }
    }
}

/// The stop reason of a turn that ended as `end` says; a failed turn is an error.
fn stop_of(end: &Value) -> anyhow::Result<Stop> {
    let why = end["why"].as_str().unwrap_or_default();
    match end["reason"].as_str().unwrap_or_default() {
        "finished" => Ok(Stop::EndTurn),
        "refused" => Ok(Stop::Refusal),
        "interrupted" => Ok(Stop::Cancelled),
        "limit" if why.contains("token") => Ok(Stop::MaxTokens),
        "limit" => Ok(Stop::MaxTurnRequests),
        _ => anyhow::bail!("the turn failed: {why}"),
    }
}

/// The engine's refusal of a request, its sentence kept.
#[derive(Debug)]
pub(crate) struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The result of `method`, or its refusal ([`Refused`]) as the error.
pub(crate) fn request(client: &mut Client, method: &str, params: Value) -> anyhow::Result<Value> {
    client
        .request(method, params)
        .map_err(|e| Refused(e.message).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_end_of_a_turn_is_a_stop_reason_and_a_failure_an_error() {
        assert_eq!(
            stop_of(&json!({"reason": "finished"})).unwrap(),
            Stop::EndTurn
        );
        assert_eq!(
            stop_of(&json!({"reason": "interrupted"})).unwrap(),
            Stop::Cancelled
        );
        assert_eq!(
            stop_of(&json!({"reason": "limit", "why": "--max-tokens 10 reached"})).unwrap(),
            Stop::MaxTokens
        );
        assert_eq!(
            stop_of(&json!({"reason": "limit", "why": "30 model calls"})).unwrap(),
            Stop::MaxTurnRequests
        );
        let failed = stop_of(&json!({"reason": "failed", "why": "no model server"})).unwrap_err();
        assert_eq!(failed.to_string(), "the turn failed: no model server");
    }
}
