//! OpenAI-compatible Chat Completions: `POST {base_url}/chat/completions`, streamed as
//! server-sent events (`data: {chunk}`, `data: [DONE]`), tool calls arriving as deltas keyed by
//! their index, usage in the last chunk (`stream_options.include_usage`). Also the unstreamed
//! answer, for servers that drop streamed tool calls.

use std::collections::BTreeMap;

use serde_json::{Value, json};

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

/// Arguments read back: a JSON value, or the text itself when it is not JSON.
pub(crate) fn arguments_value(text: &str) -> Value {
    if text.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Something the server said went wrong, inside its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// What it said.
    pub message: String,
    /// Whether trying again could help (overloaded, rate limited, internal error).
    pub retryable: bool,
}

/// A tool call whose parts are still arriving.
#[derive(Debug, Default)]
struct Partial {
    id: String,
    name: String,
    arguments: String,
}

/// Assembles a streamed answer.
#[derive(Debug, Default)]
pub struct Decoder {
    text: String,
    calls: BTreeMap<u64, Partial>,
    emitted: Vec<ToolCall>,
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
            return Err(server_error(error));
        }
        self.read_usage(&chunk);
        let Some(choice) = chunk["choices"].get(0) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str()
            && !text.is_empty()
        {
            self.text.push_str(text);
            out(StreamEvent::TextDelta(text.to_owned()));
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for (position, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().unwrap_or(position as u64);
                let partial = self.calls.entry(index).or_default();
                if let Some(id) = call["id"].as_str() {
                    partial.id.push_str(id);
                }
                if let Some(name) = call["function"]["name"].as_str() {
                    partial.name.push_str(name);
                }
                if let Some(arguments) = call["function"]["arguments"].as_str() {
                    partial.arguments.push_str(arguments);
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.stop = Some(stop_reason(reason));
            self.complete_calls(out);
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
                arguments: arguments_value(&partial.arguments),
            };
            out(StreamEvent::ToolCall(call.clone()));
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
        let stop = stop_or_inferred(self.stop, &self.emitted);
        (self.text, self.emitted, self.usage, stop)
    }
}

/// An unstreamed answer (`stream: false`).
pub fn whole(body: &Value, out: &mut dyn FnMut(StreamEvent)) -> Result<Parts, ServerError> {
    if let Some(error) = body.get("error") {
        return Err(server_error(error));
    }
    let choice = &body["choices"][0];
    let message = &choice["message"];
    let mut decoder = Decoder::default();
    decoder.read_usage(body);
    if let Some(text) = message["content"].as_str()
        && !text.is_empty()
    {
        decoder.text.push_str(text);
        out(StreamEvent::TextDelta(text.to_owned()));
    }
    for (index, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        decoder.calls.insert(
            index as u64,
            Partial {
                id: call["id"].as_str().unwrap_or_default().to_owned(),
                name: call["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                arguments: match &call["function"]["arguments"] {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                },
            },
        );
    }
    decoder.stop = choice["finish_reason"].as_str().map(stop_reason);
    Ok(decoder.finish(out))
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
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
