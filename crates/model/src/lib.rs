//! `nodwyn-model`: the clients that talk to a model, behind one trait ([`Model`]).
//!
//! A [`Request`] is a system prompt, the conversation so far ([`Message`]: the person's text,
//! the assistant's text and tool calls, tool results) and the tools offered ([`Tool`]: a name, a
//! description, a JSON Schema). The answer streams as [`StreamEvent`]s (text as it comes, each
//! tool call named once its arguments are whole) and ends as an [`Answer`]. Two wire protocols
//! serve every server people run: OpenAI-compatible Chat Completions ([`openai`]: OpenAI,
//! OpenRouter, vLLM, LM Studio, llama.cpp's server, Ollama) and Anthropic Messages
//! ([`anthropic`]). A [`Client`] picks the protocol from its [`Profile`], retries what a retry
//! can mend before any output reached the caller ([`retry`]), holds each answer to its
//! [`Limits`] (bytes of text and tool calls, how many calls, the length of one event, a deadline
//! and a longest silence), counted on what arrived, and never lets the API key reach a log or an
//! error.
//!
//! This crate knows nothing of nodwyn: the engine gives it a profile and a request.

pub mod anthropic;
mod client;
mod error;
mod limits;
pub mod openai;
mod profile;
pub mod retry;
mod sse;
mod types;

pub use client::{Client, Model};
pub use error::{Bound, Error};
pub use limits::{
    ANSWER_DEADLINE, IDLE_TIMEOUT, Limits, MAX_ANSWER_BYTES, MAX_EVENT_BYTES, MAX_TOOL_CALLS,
};
pub use profile::{ApiKey, Profile, Provider};
pub use retry::Retry;
pub use types::{Answer, Message, Request, StopReason, StreamEvent, Tool, ToolCall, Usage};
