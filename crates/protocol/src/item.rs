//! The items of a conversation (what the person said, what the model answered, each tool call
//! and its result) and a turn's accounting: both what a client is told and what a session's log
//! keeps.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One item of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    /// The person's message that starts a turn.
    UserMessage {
        /// What they said.
        text: String,
    },
    /// The model's answer: text, tool calls, or both.
    AssistantMessage {
        /// Its text.
        text: String,
        /// The tools it called, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCallItem>,
    },
    /// What one tool call gave back, as the model was shown it.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// The tool.
        tool: String,
        /// Whether it ran and succeeded.
        ok: bool,
        /// What the model was shown (redacted, cut to size).
        content: String,
        /// The guard's answer, in words, when it asked or refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision: Option<String>,
    },
    /// The engine's own note to the model (the session moved to a worktree, a call was
    /// interrupted, ...).
    Notice {
        /// What it says.
        text: String,
    },
}

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallItem {
    /// The provider's id for it.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// Its arguments (long strings abbreviated in the log).
    pub arguments: Value,
}

/// One call to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCall {
    /// The model and its server.
    pub model: String,
    /// Tokens read.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
    /// Why it stopped (`end_turn`, `tool_use`, `max_tokens`, ...).
    pub stop: String,
    /// Milliseconds from the request to the first text or tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_output_ms: Option<u64>,
    /// How many tries it took.
    pub tries: u32,
}

/// Tokens a turn or a run used, and how many model calls it made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnUsage {
    /// Model calls.
    pub model_calls: u32,
    /// Tokens read.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without calling a tool.
    Finished,
    /// The person interrupted it.
    Interrupted,
    /// A limit was reached (`--max-model-calls`, `--max-tokens`).
    Limit {
        /// Which limit, in words.
        why: String,
    },
    /// Something failed (the model server, the session).
    Failed {
        /// The sentence.
        why: String,
    },
    /// The model declined the task (its provider's refusal or content filter); its text, the
    /// turn's answer, says what it would say.
    Refused,
}

/// One step of a turn's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step does, as the strategy declared it.
    pub step: String,
    /// Where it stands.
    pub status: PlanStatus,
}

/// Where a plan's step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not begun.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}
