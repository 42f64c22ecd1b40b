//! The dispatcher: one line from a client read as JSON-RPC 2.0 and answered. A request goes to
//! its method's file in `methods/`; an answer to an engine's question settles it; anything else
//! gets the JSON-RPC error that names what was wrong.

use std::sync::Arc;

use nodwyn_protocol::rpc::{INVALID_REQUEST, JSONRPC, METHOD_NOT_FOUND, PARSE_ERROR};
use nodwyn_protocol::{Approval, Request};
use serde_json::{Value, json};

use crate::events::{error_line, result_line};
use crate::methods;
use crate::outbox::{Line, Outbox};
use crate::refusal::Refusal;
use crate::server::Server;

/// The client a line came from.
#[derive(Clone, Debug)]
pub struct Peer {
    /// Its queue.
    pub outbox: Outbox,
    /// Whether its answers to questions count: `false` for a process an agent's command
    /// started (it would approve the agent's own calls).
    pub may_answer: bool,
    /// The name it gave in `hello`.
    pub name: Arc<std::sync::Mutex<Option<String>>>,
}

impl Peer {
    /// A client that writes to `outbox`; `may_answer` as [`Peer::may_answer`].
    pub fn new(outbox: Outbox, may_answer: bool) -> Self {
        Self {
            outbox,
            may_answer,
            name: Arc::default(),
        }
    }

    /// Keeps the name the client gave in `hello`.
    pub(crate) fn named(&self, client: &str) {
        *crate::hub::lock(&self.name) = Some(client.to_owned());
    }

    /// The name the client gave in `hello`, or words saying it gave none.
    pub(crate) fn client_name(&self) -> String {
        crate::hub::lock(&self.name)
            .clone()
            .unwrap_or_else(|| "a client that gave no name".to_owned())
    }
}

/// Answers one line from `peer`: the line to send back, if any.
pub async fn dispatch(server: &Arc<Server>, peer: &Peer, text: &str) -> Option<Line> {
    let message: Value = match serde_json::from_str(text) {
        Ok(message @ Value::Object(_)) => message,
        Ok(_) => {
            return Some(error_line(
                &Value::Null,
                INVALID_REQUEST,
                "a message is one JSON object per line",
                None,
            ));
        }
        Err(error) => {
            return Some(error_line(
                &Value::Null,
                PARSE_ERROR,
                &format!("the line is not JSON: {error}"),
                None,
            ));
        }
    };
    let id = message.get("id").cloned();
    if message.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC) {
        return Some(error_line(
            &id.unwrap_or_default(),
            INVALID_REQUEST,
            "every message carries \"jsonrpc\": \"2.0\"",
            None,
        ));
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // An answer to one of the engine's questions.
        return answer(server, peer, id, &message);
    };
    let Some(id) = id else {
        // A notification from the client: nothing to answer, nothing it may ask this way.
        return None;
    };
    Some(
        match call(server, peer, method, message.get("params")).await {
            Ok(result) => result_line(&id, result),
            Err(refusal) => error_line(&id, refusal.rpc, &refusal.message, Some(refusal.data())),
        },
    )
}

/// Runs `method` with `params`.
async fn call(
    server: &Arc<Server>,
    peer: &Peer,
    method: &str,
    params: Option<&Value>,
) -> Result<Value, Refusal> {
    if !Request::METHODS.contains(&method) {
        return Err(Refusal {
            rpc: METHOD_NOT_FOUND,
            ..Refusal::new(
                "unknown_method",
                format!(
                    "there is no method {method:?}; hello lists them ({})",
                    Request::METHODS.join(", ")
                ),
            )
        });
    }
    let params = params.cloned().unwrap_or_else(|| json!({}));
    let request: Request = serde_json::from_value(json!({"method": method, "params": params}))
        .map_err(|e| Refusal::params(format!("{method}: {e}")))?;
    methods::call(server, peer, request).await
}

/// A client's answer to question `id`.
fn answer(server: &Arc<Server>, peer: &Peer, id: Option<Value>, message: &Value) -> Option<Line> {
    let request = id.as_ref().and_then(Value::as_str)?.to_owned();
    if !peer.may_answer {
        tracing::warn!(
            request,
            "an answer from a process an agent's command started was ignored"
        );
        return None;
    }
    let decision = match message.get("result").cloned() {
        Some(result) => match serde_json::from_value::<Approval>(result) {
            Ok(approval) => approval.decision,
            Err(error) => {
                tracing::info!(request, error = %error, "an unreadable answer was ignored");
                return None;
            }
        },
        // A client that cannot answer declines.
        None => nodwyn_protocol::Decision::Decline,
    };
    if let Err(not_waiting) =
        server
            .hub
            .approvals
            .answer(&server.hub, &request, decision, Some(peer.client_name()))
    {
        tracing::info!(%not_waiting, "a late answer");
    }
    None
}
