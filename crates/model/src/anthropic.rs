//! Anthropic Messages: `POST {base_url}/v1/messages` with the `anthropic-version` header,
//! streamed as named events (`message_start`, `content_block_start`, `content_block_delta` with
//! `text_delta` or `input_json_delta`, `content_block_stop`, `message_delta` with usage and the
//! stop reason, `message_stop`, `ping`, `error`). Tool results travel in the user's turn, so
//! consecutive results are one message.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::openai::{ServerError, arguments_value};
use crate::sse::SseEvent;
use crate::types::{
    Message, Parts, Request, StopReason, StreamEvent, ToolCall, Usage, stop_or_inferred,
};

/// The API version nodwyn speaks.
pub const VERSION: &str = "2023-06-01";

/// The request body.
pub fn body(request: &Request, model: &str, max_tokens: u32, stream: bool) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        let (role, block) = match message {
            Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
            Message::Assistant { text, tool_calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in tool_calls {
                    let input = match &call.arguments {
                        Value::Object(_) => call.arguments.clone(),
                        // What was not an object goes back as the model wrote it.
                        other => json!({"arguments": other}),
                    };
                    blocks.push(
                        json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                    );
                }
                ("assistant", blocks)
            }
            Message::ToolResult {
                call_id,
                content,
                is_error,
            } => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content,
                    "is_error": is_error,
                })],
            ),
        };
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(block);
                }
            }
            _ => messages.push(json!({"role": role, "content": block})),
        }
    }
    let mut body = json!({
        "model": model,
        "max_tokens": max_tokens,
        "system": request.system,
        "messages": messages,
        "stream": stream,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| json!({"name": tool.name, "description": tool.description, "input_schema": tool.schema}))
            .collect();
    }
    body
}

/// A content block still arriving.
#[derive(Debug)]
enum Block {
    Text,
    Tool {
        id: String,
        name: String,
        json: String,
    },
}

/// Assembles a streamed answer.
#[derive(Debug, Default)]
pub struct Decoder {
    text: String,
    blocks: BTreeMap<u64, Block>,
    calls: Vec<ToolCall>,
    usage: Usage,
    stop: Option<StopReason>,
    done: bool,
}

impl Decoder {
    /// Reads one event; what it completes goes to `out`.
    pub fn event(
        &mut self,
        event: &SseEvent,
        out: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), ServerError> {
        let data: Value = if event.data.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&event.data).map_err(|e| ServerError {
                message: format!("an event is not JSON ({e})"),
                retryable: false,
            })?
        };
        let kind = if event.name.is_empty() {
            data["type"].as_str().unwrap_or_default().to_owned()
        } else {
            event.name.clone()
        };
        match kind.as_str() {
            "message_start" => {
                let usage = &data["message"]["usage"];
                self.usage.input_tokens = usage["input_tokens"].as_u64().unwrap_or(0)
                    + usage["cache_read_input_tokens"].as_u64().unwrap_or(0)
                    + usage["cache_creation_input_tokens"].as_u64().unwrap_or(0);
                self.usage.output_tokens = usage["output_tokens"].as_u64().unwrap_or(0);
            }
            "content_block_start" => {
                let index = data["index"].as_u64().unwrap_or(0);
                let block = &data["content_block"];
                let started = match block["type"].as_str() {
                    Some("tool_use") => Block::Tool {
                        id: block["id"].as_str().unwrap_or_default().to_owned(),
                        name: block["name"].as_str().unwrap_or_default().to_owned(),
                        json: String::new(),
                    },
                    _ => {
                        if let Some(text) = block["text"].as_str()
                            && !text.is_empty()
                        {
                            self.text.push_str(text);
                            out(StreamEvent::TextDelta(text.to_owned()));
                        }
                        Block::Text
                    }
                };
                self.blocks.insert(index, started);
            }
            "content_block_delta" => {
                let index = data["index"].as_u64().unwrap_or(0);
                let delta = &data["delta"];
                match (delta["type"].as_str(), self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        let text = delta["text"].as_str().unwrap_or_default();
                        if !text.is_empty() {
                            self.text.push_str(text);
                            out(StreamEvent::TextDelta(text.to_owned()));
                        }
                    }
                    (Some("input_json_delta"), Some(Block::Tool { json, .. })) => {
                        json.push_str(delta["partial_json"].as_str().unwrap_or_default());
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = data["index"].as_u64().unwrap_or(0);
                if let Some(Block::Tool { id, name, json }) = self.blocks.remove(&index) {
                    let call = ToolCall {
                        id,
                        name,
                        arguments: arguments_value(&json),
                    };
                    out(StreamEvent::ToolCall(call.clone()));
                    self.calls.push(call);
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop = Some(stop_reason(reason));
                }
                if let Some(output) = data["usage"]["output_tokens"].as_u64() {
                    self.usage.output_tokens = output;
                }
                if let Some(input) = data["usage"]["input_tokens"].as_u64() {
                    self.usage.input_tokens = self.usage.input_tokens.max(input);
                }
            }
            "message_stop" => self.done = true,
            "error" => return Err(server_error(&data["error"])),
            // `ping` and events added later.
            _ => {}
        }
        Ok(())
    }

    /// Whether the stream said it was done.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The whole answer once the stream ended.
    pub fn finish(self) -> Parts {
        let stop = stop_or_inferred(self.stop, &self.calls);
        (self.text, self.calls, self.usage, stop)
    }
}

/// An unstreamed answer.
pub fn whole(body: &Value, out: &mut dyn FnMut(StreamEvent)) -> Result<Parts, ServerError> {
    if body["type"] == "error" {
        return Err(server_error(&body["error"]));
    }
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in body["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => {
                let piece = block["text"].as_str().unwrap_or_default();
                text.push_str(piece);
                out(StreamEvent::TextDelta(piece.to_owned()));
            }
            Some("tool_use") => {
                let call = ToolCall {
                    id: block["id"].as_str().unwrap_or_default().to_owned(),
                    name: block["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: block["input"].clone(),
                };
                out(StreamEvent::ToolCall(call.clone()));
                calls.push(call);
            }
            _ => {}
        }
    }
    let usage = Usage {
        input_tokens: body["usage"]["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: body["usage"]["output_tokens"].as_u64().unwrap_or(0),
    };
    let stop = body["stop_reason"]
        .as_str()
        .map(stop_reason)
        .unwrap_or(StopReason::EndTurn);
    Ok((text, calls, usage, stop))
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        other => StopReason::Other(other.to_owned()),
    }
}

fn server_error(error: &Value) -> ServerError {
    let kind = error["type"].as_str().unwrap_or_default();
    ServerError {
        message: error["message"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| error.to_string()),
        retryable: matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error"),
    }
}
