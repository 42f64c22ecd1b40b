//! OpenAI-compatible Chat Completions: `POST {base_url}/chat/completions`, streamed as
//! server-sent events (`data: {chunk}`, `data: [DONE]`), tool calls arriving as deltas keyed by
//! their index, usage in the last chunk (`stream_options.include_usage`). Also the unstreamed
//! answer, for servers that drop streamed tool calls.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::error::Bound;
use crate::limits::{Budget, Limits};
use crate::sse::SseEvent;
use crate::types::{
    Message, Parts, Request, StopReason, StreamEvent, ToolCall, Usage, stop_or_inferred,
};

/// The request body.
pub fn body(request: &Request, model: &str, max_tokens: u32, stream: bool) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    for message in &request.messages {
        messages.push(match message {
            Message::User { text } => json!({"role": "user", "content": text}),
            Message::Assistant { text, tool_calls } => {
                let mut m = json!({"role": "assistant", "content": text});
                if !tool_calls.is_empty() {
                    m["tool_calls"] = tool_calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": arguments_text(&call.arguments)},
                            })
                        })
                        .collect();
                }
                m
            }
            Message::ToolResult {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    let mut body = json!({
        "model": model,
        "messages": messages,
        "max_tokens": max_tokens,
        "stream": stream,
    });
    if stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {"name": tool.name, "description": tool.description, "parameters": tool.schema},
                })
            })
            .collect();
    }
    body
}

/// Arguments as the wire carries them: a JSON text.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Arguments read back: a JSON value, or the text itself when it is not JSON. The text is
/// taken, not copied: a large call is held as its text or as its value, briefly both.
pub(crate) fn arguments_value(mut text: String) -> Value {
    if text.trim().is_empty() {
        return json!({});
    }
    // Room left over from the text's growth is given back before its value is made.
    text.shrink_to_fit();
    match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(_) => Value::String(text),
    }
}

/// Something the server said went wrong, inside its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// What it said.
    pub message: String,
    /// Whether trying again could help (overloaded, rate limited, internal error).
    pub retryable: bool,
}

/// Why a decoder stopped reading an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The server reported an error, or sent what cannot be read.
    Server(ServerError),
    /// The answer passed one of its limits.
    Bound(Bound),
}

impl From<ServerError> for DecodeError {
    fn from(error: ServerError) -> Self {
        DecodeError::Server(error)
    }
}

impl From<Bound> for DecodeError {
    fn from(bound: Bound) -> Self {
        DecodeError::Bound(bound)
    }
}

/// A tool call whose parts are still arriving.
#[derive(Debug, Default)]
struct Partial {
    id: String,
    name: String,
    arguments: String,
}

/// Assembles a streamed answer, counting what arrives against its limits.
#[derive(Debug, Default)]
pub struct Decoder {
    budget: Budget,
    text: String,
    calls: BTreeMap<u64, Partial>,
    emitted: Vec<ToolCall>,
    usage: Usage,
    stop: Option<StopReason>,
    /// Whether the model's text came as a refusal (`refusal` in place of `content`).
    refused: bool,
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
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| ServerError {
            message: format!("a chunk is not JSON ({e})"),
            retryable: false,
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(server_error(error).into());
        }
        self.read_usage(&chunk);
        let Some(choice) = chunk["choices"].get(0) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        self.words(delta, out)?;
        if let Some(calls) = delta["tool_calls"].as_array() {
            for (position, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().unwrap_or(position as u64);
                if !self.calls.contains_key(&index) {
                    self.budget.call()?;
                }
                let partial = self.calls.entry(index).or_default();
                for (part, piece) in [
                    (&mut partial.id, &call["id"]),
                    (&mut partial.name, &call["function"]["name"]),
                    (&mut partial.arguments, &call["function"]["arguments"]),
                ] {
                    if let Some(piece) = piece.as_str() {
                        self.budget.take(piece)?;
                        part.push_str(piece);
                    }
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.stop = Some(stop_reason(reason));
            self.complete_calls(out);
        }
        Ok(())
    }

    /// What a message or a delta says, counted and sent out: its reasoning
    /// (`reasoning_content`, as DeepSeek, vLLM and llama.cpp name it, or `reasoning`, as
    /// OpenRouter and Ollama do), then its text (`content`, or `refusal` when the model
    /// declined).
    fn words(
        &mut self,
        message: &Value,
        out: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), DecodeError> {
        if let Some(text) = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|field| message[field].as_str().filter(|t| !t.is_empty()))
        {
            self.budget.take(text)?;
            out(StreamEvent::ReasoningDelta(text.to_owned()));
        }
        for field in ["content", "refusal"] {
            if let Some(text) = message[field].as_str()
                && !text.is_empty()
            {
                self.budget.take(text)?;
                self.text.push_str(text);
                self.refused |= field == "refusal";
                out(StreamEvent::TextDelta(text.to_owned()));
            }
        }
        Ok(())
    }

    fn read_usage(&mut self, chunk: &Value) {
        let usage = &chunk["usage"];
        if let (Some(input), Some(output)) = (
            usage["prompt_tokens"].as_u64(),
            usage["completion_tokens"].as_u64(),
        ) {
            self.usage = Usage {
                input_tokens: input,
                output_tokens: output,
            };
        }
    }

    fn complete_calls(&mut self, out: &mut dyn FnMut(StreamEvent)) {
        for (index, partial) in std::mem::take(&mut self.calls) {
            let call = ToolCall {
                id: if partial.id.is_empty() {
                    format!("call_{index}")
                } else {
                    partial.id
                },
                name: partial.name,
                arguments: arguments_value(partial.arguments),
            };
            out(StreamEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
            });
            self.emitted.push(call);
        }
    }

    /// Whether the stream said it was done.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The whole answer once the stream ended: text, tool calls, usage, and why it stopped.
    pub fn finish(mut self, out: &mut dyn FnMut(StreamEvent)) -> Parts {
        self.complete_calls(out);
        let stop = match stop_or_inferred(self.stop, &self.emitted) {
            // A refusal comes as text in its own field, with the stop an ordinary one.
            StopReason::EndTurn if self.refused => StopReason::Refusal,
            stop => stop,
        };
        let received = self.budget.bytes();
        (self.text, self.emitted, self.usage, stop, received)
    }
}

/// An unstreamed answer (`stream: false`), taken apart rather than copied.
pub fn whole(
    mut body: Value,
    limits: Limits,
    out: &mut dyn FnMut(StreamEvent),
) -> Result<Parts, DecodeError> {
    if let Some(error) = body.get("error") {
        return Err(server_error(error).into());
    }
    let mut decoder = Decoder::new(limits);
    decoder.read_usage(&body);
    let mut choice = body
        .get_mut("choices")
        .and_then(|choices| choices.get_mut(0))
        .map(Value::take)
        .unwrap_or_default();
    // Taken apart with `get_mut` alone: indexing a value that is not an object would panic.
    let mut message = choice
        .get_mut("message")
        .map(Value::take)
        .unwrap_or_default();
    decoder.words(&message, out)?;
    if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for (index, call) in calls.iter_mut().enumerate() {
            decoder.budget.call()?;
            let id = call["id"].as_str().unwrap_or_default().to_owned();
            let name = call["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            decoder.budget.take(&id)?;
            decoder.budget.take(&name)?;
            let arguments = call
                .get_mut("function")
                .and_then(|function| function.get_mut("arguments"))
                .map(Value::take);
            let arguments = match arguments.unwrap_or_default() {
                Value::String(text) => {
                    decoder.budget.take(&text)?;
                    arguments_value(text)
                }
                Value::Null => json!({}),
                // Some servers send the object itself; the body's own limit bounded it.
                other => other,
            };
            let call = ToolCall {
                id: if id.is_empty() {
                    format!("call_{index}")
                } else {
                    id
                },
                name,
                arguments,
            };
            out(StreamEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
            });
            decoder.emitted.push(call);
        }
    }
    decoder.stop = choice["finish_reason"].as_str().map(stop_reason);
    Ok(decoder.finish(out))
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    }
}

fn server_error(error: &Value) -> ServerError {
    let message = error["message"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    let kind = error["type"].as_str().unwrap_or_default();
    let code = error["code"].as_str().unwrap_or_default();
    let retryable = ["overloaded", "rate_limit", "server_error", "timeout"]
        .iter()
        .any(|word| kind.contains(word) || code.contains(word));
    ServerError { message, retryable }
}
