//! The wire of `nodwyn serve`: JSON-RPC 2.0, one JSON object per line. A client's request is
//! `{"jsonrpc":"2.0","id":..,"method":..,"params":..}` with a [`crate::Request`]'s method and
//! parameters; the engine answers `{"jsonrpc":"2.0","id":..,"result":..}` or `..,"error":`
//! [`RpcError`]; it tells subscribers of a session's events as notifications (no id) whose
//! `params` hold the session and the event's `seq` beside a [`crate::Notification`]'s fields; and
//! it asks each subscriber a [`crate::ServerRequest`] (an id of its own, a string), answered with
//! an [`crate::Approval`] as the result.

use serde::{Deserialize, Serialize};

/// The `jsonrpc` member every message carries.
pub const JSONRPC: &str = "2.0";

/// The line was not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON was not a request.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// A parameter is missing, of the wrong type, or unknown.
pub const INVALID_PARAMS: i64 = -32602;
/// The engine failed in a way it did not foresee.
pub const INTERNAL_ERROR: i64 = -32603;
/// The engine refused the request, or the work it asked for failed: `data.code` says why.
pub const REFUSED: i64 = -32000;

/// A request's error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// JSON-RPC's number ([`REFUSED`] for every refusal of nodwyn's own).
    pub code: i64,
    /// The sentence people read.
    pub message: String,
    /// What programs act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

/// The stable part of an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorData {
    /// The stable code (`worktree_dirty`, `turn_running`, `unknown_session`, `bad_params`, ...),
    /// the same the command line's `--json` gives.
    pub code: String,
    /// The files the refusal is about, where it names some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}
