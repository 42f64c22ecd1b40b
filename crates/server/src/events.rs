//! The messages of the wire, built in one place: a session's record as the notification that
//! tells it (with the session and its `seq`), a live notification, a request to a client, a
//! response.

use nodwyn_core::event::{Event, Record};
use nodwyn_protocol::rpc::{ErrorData, JSONRPC, RpcError};
use nodwyn_protocol::{Notification, ServerRequest};
use serde_json::{Value, json};

use crate::outbox::Line;

/// The notification that tells `record`: the protocol's conversation notifications for the
/// turn's records, `session.record` for every other.
pub(crate) fn notification_of(session: &str, record: Record) -> Notification {
    match record.event {
        Event::TurnStart { turn, .. } => Notification::TurnStarted {
            session: session.to_owned(),
            turn,
        },
        Event::ConversationItem {
            turn,
            item_id,
            agent,
            item,
        } => Notification::ItemCompleted {
            item: item_id.unwrap_or_else(|| format!("{turn}.?")),
            agent,
            value: item,
        },
        Event::ModelCall { call, .. } => Notification::ModelCalled(call),
        Event::TurnEnd {
            turn,
            end,
            usage,
            answer,
        } => Notification::TurnCompleted {
            session: session.to_owned(),
            turn,
            end,
            usage,
            answer,
        },
        event => Notification::SessionRecord {
            record: Record::new(record.at, event),
        },
    }
}

/// `notification` as a line of the wire: its `params` carry the session and `seq`.
pub(crate) fn notification_line(session: &str, seq: u64, notification: &Notification) -> Line {
    let mut message = serde_json::to_value(notification).unwrap_or_default();
    let params = match message.get_mut("params") {
        Some(Value::Object(params)) => params,
        _ => {
            message["params"] = json!({});
            message["params"].as_object_mut().expect("just made")
        }
    };
    params.insert("session".to_owned(), Value::from(session));
    params.insert("seq".to_owned(), Value::from(seq));
    message["jsonrpc"] = Value::from(JSONRPC);
    line(&message)
}

/// A request from the engine to a client; its id is the question's own.
pub(crate) fn request_line(request: &ServerRequest) -> Line {
    let mut message = serde_json::to_value(request).unwrap_or_default();
    let ServerRequest::ApprovalRequest { request, .. } = request;
    message["id"] = Value::from(request.as_str());
    message["jsonrpc"] = Value::from(JSONRPC);
    line(&message)
}

/// The answer to request `id`.
pub(crate) fn result_line(id: &Value, result: Value) -> Line {
    line(&json!({"jsonrpc": JSONRPC, "id": id, "result": result}))
}

/// The error answering request `id` (`null` when the request could not be read).
pub(crate) fn error_line(id: &Value, code: i64, message: &str, data: Option<ErrorData>) -> Line {
    let error = RpcError {
        code,
        message: message.to_owned(),
        data,
    };
    line(&json!({"jsonrpc": JSONRPC, "id": id, "error": error}))
}

fn line(message: &Value) -> Line {
    Line::from(serde_json::to_string(message).unwrap_or_default())
}
