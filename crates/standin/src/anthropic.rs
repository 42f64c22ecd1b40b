//! Replies in Anthropic's Messages format: `message_start`, content blocks (text deltas, tool
//! input in `input_json_delta` pieces), `ping`, `message_delta` with usage, `message_stop`;
//! and the `error` event.

use serde_json::{Value, json};

use crate::{Reply, pieces};

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A streamed answer: `text`, then `calls`, with a `ping` in between.
pub fn answer(text: &str, calls: &[(&str, Value)], usage: (u64, u64)) -> Reply {
    let mut events = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_standin", "type": "message", "role": "assistant", "content": [], "model": "standin", "usage": {"input_tokens": usage.0, "output_tokens": 1}}}),
        ),
        event("ping", json!({"type": "ping"})),
    ];
    let mut index = 0;
    if !text.is_empty() {
        events.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        ));
        for piece in pieces(text, 5) {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (name, arguments) in calls {
        events.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": name, "input": {}}}),
        ));
        for piece in pieces(&arguments.to_string(), 7) {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": usage.1}}),
    ));
    events.push(event("message_stop", json!({"type": "message_stop"})));
    Reply::events(events)
}

/// A streamed answer of text alone.
pub fn text(text: &str) -> Reply {
    answer(text, &[], (100, 10))
}

/// A streamed answer calling one tool.
pub fn call(name: &str, arguments: Value) -> Reply {
    answer("", &[(name, arguments)], (100, 10))
}

/// A stream that reports an error (`overloaded_error`, ...) before any content.
pub fn error(kind: &str, message: &str) -> Reply {
    Reply::events(vec![event(
        "error",
        json!({"type": "error", "error": {"type": kind, "message": message}}),
    )])
}

/// A streamed answer with a thinking block (`thought`) before its text, as extended thinking
/// gives it; `stop` is the message's stop reason (`end_turn`, or `refusal`).
pub fn thinking_then(thought: &str, text: &str, stop: &str) -> Reply {
    let mut events = vec![event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_standin", "type": "message", "role": "assistant", "content": [], "model": "standin", "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )];
    let blocks = [("thinking", thought), ("text", text)];
    for (index, (kind, words)) in blocks.iter().enumerate() {
        if words.is_empty() {
            continue;
        }
        let (start, delta_kind, field) = match *kind {
            "thinking" => (
                json!({"type": "thinking", "thinking": ""}),
                "thinking_delta",
                "thinking",
            ),
            _ => (json!({"type": "text", "text": ""}), "text_delta", "text"),
        };
        events.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for piece in pieces(words, 6) {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": delta_kind, field: piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 10}}),
    ));
    events.push(event("message_stop", json!({"type": "message_stop"})));
    Reply::events(events)
}
