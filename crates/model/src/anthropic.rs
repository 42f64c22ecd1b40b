//! Anthropic Messages: `POST {base_url}/v1/messages` with the `anthropic-version` header,
//! streamed as named events (`message_start`, `content_block_start`, `content_block_delta` with
//! `text_delta` or `input_json_delta`, `content_block_stop`, `message_delta` with usage and the
//! stop reason, `message_stop`, `ping`, `error`). Tool results travel in the user's turn, so
//! consecutive results are one message.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::limits::{Budget, Limits};
use crate::openai::{DecodeError, ServerError, arguments_value};
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

/// A tool call still arriving (text blocks need no keeping: their deltas go straight out).
#[derive(Debug)]
struct Block {
    id: String,
    name: String,
    json: String,
}

/// Assembles a streamed answer, counting what arrives against its limits.
#[derive(Debug, Default)]
pub struct Decoder {
    budget: Budget,
    text: String,
    blocks: BTreeMap<u64, Block>,
    calls: Vec<ToolCall>,
    usage: Usage,
    stop: Option<StopReason>,
    done: bool,
}

impl Decoder {
    /// A decoder holding the answer to `limits`.
    pub fn new(limits: Limits) -> Self {
        Self {
            budget: Budget::new(limits),
            ..Self::default()
        }
    }

    /// Reads one event; what it completes goes to `out`.
    pub fn event(
        &mut self,
        event: &SseEvent,
        out: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), DecodeError> {
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
                if block["type"] == "tool_use" {
                    self.budget.call()?;
                    let id = block["id"].as_str().unwrap_or_default();
                    let name = block["name"].as_str().unwrap_or_default();
                    self.budget.take(id)?;
                    self.budget.take(name)?;
                    self.blocks.insert(
                        index,
                        Block {
                            id: id.to_owned(),
                            name: name.to_owned(),
                            json: String::new(),
                        },
                    );
                } else {
                    self.blocks.remove(&index);
                    if let Some(text) = block["text"].as_str() {
                        self.text_delta(text, out)?;
                    }
                }
            }
            "content_block_delta" => {
                let index = data["index"].as_u64().unwrap_or(0);
                let delta = &data["delta"];
                match (delta["type"].as_str(), self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        self.text_delta(delta["text"].as_str().unwrap_or_default(), out)?;
                    }
                    (Some("thinking_delta"), _) => {
                        let thought = delta["thinking"].as_str().unwrap_or_default();
                        if !thought.is_empty() {
                            self.budget.take(thought)?;
                            out(StreamEvent::ReasoningDelta(thought.to_owned()));
                        }
                    }
                    (Some("input_json_delta"), Some(block)) => {
                        let piece = delta["partial_json"].as_str().unwrap_or_default();
                        self.budget.take(piece)?;
                        block.json.push_str(piece);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = data["index"].as_u64().unwrap_or(0);
                if let Some(Block { id, name, json }) = self.blocks.remove(&index) {
                    out(StreamEvent::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                    });
                    self.calls.push(ToolCall {
                        id,
                        name,
                        arguments: arguments_value(json),
                    });
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
            "error" => return Err(server_error(&data["error"]).into()),
            // `ping` and events added later.
            _ => {}
        }
        Ok(())
    }

    /// More of the answer's text, counted.
    fn text_delta(
        &mut self,
        text: &str,
        out: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), DecodeError> {
        if !text.is_empty() {
            self.budget.take(text)?;
            self.text.push_str(text);
            out(StreamEvent::TextDelta(text.to_owned()));
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
        let received = self.budget.bytes();
        (self.text, self.calls, self.usage, stop, received)
    }
}

/// An unstreamed answer, taken apart rather than copied.
pub fn whole(
    mut body: Value,
    limits: Limits,
    out: &mut dyn FnMut(StreamEvent),
) -> Result<Parts, DecodeError> {
    if body["type"] == "error" {
        return Err(server_error(&body["error"]).into());
    }
    let mut budget = Budget::new(limits);
    let mut text = String::new();
    let mut calls = Vec::new();
    if let Some(blocks) = body.get_mut("content").and_then(Value::as_array_mut) {
        for block in blocks {
            match block["type"].as_str() {
                Some("text") => {
                    let piece = block["text"].as_str().unwrap_or_default();
                    budget.take(piece)?;
                    text.push_str(piece);
                    out(StreamEvent::TextDelta(piece.to_owned()));
                }
                Some("thinking") => {
                    let thought = block["thinking"].as_str().unwrap_or_default();
                    if !thought.is_empty() {
                        budget.take(thought)?;
                        out(StreamEvent::ReasoningDelta(thought.to_owned()));
                    }
                }
                Some("tool_use") => {
                    budget.call()?;
                    let id = block["id"].as_str().unwrap_or_default().to_owned();
                    let name = block["name"].as_str().unwrap_or_default().to_owned();
                    budget.take(&id)?;
                    budget.take(&name)?;
                    out(StreamEvent::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                    });
                    // The body's own limit bounded the input.
                    calls.push(ToolCall {
                        id,
                        name,
                        arguments: block.get_mut("input").map(Value::take).unwrap_or_default(),
                    });
                }
                _ => {}
            }
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
    Ok((text, calls, usage, stop, budget.bytes()))
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "refusal" => StopReason::Refusal,
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
