//! Replies in OpenAI's Chat Completions format: streamed chunks (`data: {...}`, `data: [DONE]`)
//! with tool-call arguments split across many chunks, usage in the last chunk, and the
//! unstreamed answer.

use serde_json::{Value, json};

use crate::{Reply, pieces};

fn event(chunk: Value) -> String {
    format!("data: {chunk}\n\n")
}

fn delta(delta: Value, finish: Option<&str>) -> String {
    event(json!({
        "id": "chatcmpl-standin",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }))
}

/// A streamed answer: `text` (in small pieces), then `calls` (name and arguments, the
/// arguments in pieces of 7 characters), usage and `[DONE]`.
pub fn answer(text: &str, calls: &[(&str, Value)], usage: (u64, u64)) -> Reply {
    let mut events = vec![delta(json!({"role": "assistant", "content": ""}), None)];
    for piece in pieces(text, 5) {
        events.push(delta(json!({"content": piece}), None));
    }
    for (index, (name, arguments)) in calls.iter().enumerate() {
        events.push(delta(
            json!({"tool_calls": [{"index": index, "id": format!("call_{index}"), "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        for piece in pieces(&arguments.to_string(), 7) {
            events.push(delta(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(delta(json!({}), Some(finish)));
    events.push(event(json!({
        "id": "chatcmpl-standin",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1},
    })));
    events.push("data: [DONE]\n\n".to_owned());
    Reply::events(events)
}

/// A streamed answer calling one tool, its arguments in pieces of `size` bytes (ASCII
/// arguments), as a server that batches its deltas sends them.
pub fn call_in_pieces(name: &str, arguments: &Value, size: usize) -> Reply {
    let text = arguments.to_string();
    let mut events = vec![delta(
        json!({"tool_calls": [{"index": 0, "id": "call_0", "type": "function", "function": {"name": name, "arguments": ""}}]}),
        None,
    )];
    for piece in text.as_bytes().chunks(size.max(1)) {
        let piece = String::from_utf8_lossy(piece);
        events.push(delta(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            None,
        ));
    }
    events.push(delta(json!({}), Some("tool_calls")));
    events.push("data: [DONE]\n\n".to_owned());
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

/// The same answer unstreamed (`stream: false`).
pub fn whole(text: &str, calls: &[(&str, Value)], usage: (u64, u64)) -> Reply {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({"id": format!("call_{index}"), "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": text});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    Reply::status(
        200,
        &json!({
            "id": "chatcmpl-standin",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1},
        })
        .to_string(),
    )
}

/// A streamed answer that first shows `thought` as `reasoning_content` (as DeepSeek, vLLM and
/// llama.cpp stream a model's reasoning), then says `text`.
pub fn reasoning_then(thought: &str, text: &str) -> Reply {
    let mut events = vec![delta(json!({"role": "assistant", "content": ""}), None)];
    for piece in pieces(thought, 6) {
        events.push(delta(json!({"reasoning_content": piece}), None));
    }
    for piece in pieces(text, 5) {
        events.push(delta(json!({"content": piece}), None));
    }
    events.push(delta(json!({}), Some("stop")));
    events.push("data: [DONE]\n\n".to_owned());
    Reply::events(events)
}

/// A streamed refusal: the model's words in `refusal` in place of `content`, as OpenAI sends
/// them.
pub fn refusal(text: &str) -> Reply {
    let mut events = vec![delta(json!({"role": "assistant", "content": null}), None)];
    for piece in pieces(text, 5) {
        events.push(delta(json!({"refusal": piece}), None));
    }
    events.push(delta(json!({}), Some("stop")));
    events.push("data: [DONE]\n\n".to_owned());
    Reply::events(events)
}
