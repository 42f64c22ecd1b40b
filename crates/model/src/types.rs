//! What goes to a model and what comes back, whatever the provider.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One call to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The system prompt.
    pub system: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<Tool>,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// What the person (or the engine on their behalf) said.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// Its text (may be empty).
        text: String,
        /// The tools it called, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// What one tool call gave back.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// What it gave back, as text.
        content: String,
        /// Whether the call failed or was refused.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Its name (letters, digits, `-` and `_`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// Its arguments as a JSON Schema object.
    pub schema: Value,
}

/// One complete tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for it, which the result names.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments. Arguments that are not a JSON object arrive as a string (the model's own
    /// text), so the tool can say what was wrong with them.
    pub arguments: Value,
}

/// Tokens a call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read (the prompt and conversation).
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

impl Usage {
    /// Both together.
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }

    /// Adds `other` to this.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why a model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It called tools and waits for their results.
    ToolUse,
    /// It reached its output limit.
    MaxTokens,
    /// It declined to answer (a provider's safety refusal or content filter).
    Refusal,
    /// Something else, as the provider named it.
    Other(String),
}

/// What a model's answer delivers as it streams.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More of the answer's text.
    TextDelta(String),
    /// More of the reasoning the model shows before its answer (`reasoning_content` of
    /// OpenAI-compatible servers, Anthropic's thinking). It is shown, never part of the answer
    /// and never sent back to the model.
    ReasoningDelta(String),
    /// A tool call, whole: which call and which tool (its arguments are in the answer, held
    /// once rather than copied here too).
    ToolCall {
        /// The provider's id for it.
        id: String,
        /// The tool.
        name: String,
    },
}

/// An answer's parts as a decoder assembles them: text, tool calls, usage, why it stopped, and
/// the bytes of text, tool names, ids and arguments that arrived.
pub(crate) type Parts = (String, Vec<ToolCall>, Usage, StopReason, u64);

/// Why an answer stopped: as the server said, else inferred from whether it called tools.
pub(crate) fn stop_or_inferred(stop: Option<StopReason>, calls: &[ToolCall]) -> StopReason {
    stop.unwrap_or(if calls.is_empty() {
        StopReason::EndTurn
    } else {
        StopReason::ToolUse
    })
}

/// A model's whole answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Its text.
    pub text: String,
    /// Its tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// The tokens used.
    pub usage: Usage,
    /// Why it stopped.
    pub stop: StopReason,
    /// How long after the request the first text or tool call arrived.
    pub first_output: Option<Duration>,
    /// How many tries it took.
    pub tries: u32,
    /// How many bytes of text, tool names, ids and arguments arrived (for an unstreamed answer,
    /// its whole body): what was received, whatever the server says it used.
    pub received: u64,
}
