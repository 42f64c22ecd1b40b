//! `nodwyn-mcp`: nodwyn as a Model Context Protocol server on stdio, for agents nodwyn does not
//! run itself (Claude Code, Codex, Gemini CLI, Cursor).
//!
//! A connection works in one session at a time: `worktree_create` opens one in a new worktree
//! (or `worktree_resume` an earlier one) and makes it the connection's active session. Every
//! primitive of the registry is a tool (`fs-read` as `fs_read`), run through the session's turn:
//! the guard, the person, the log, redaction, exactly as the engine's calls. The guard's
//! questions go to the person as elicitation requests when the client supports them; otherwise
//! the call is refused with `needs_person`. Refusals and errors are tool results with `isError`
//! set whose text starts with the stable code; protocol errors are only for malformed requests.
//! stdout carries the protocol alone.

pub mod install;
mod permission;
mod person;
mod server;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use nodwyn_core::Store;
use nodwyn_core::host::HostSettings;
use nodwyn_core::prim::Registry;
use nodwyn_core::scripts::ScriptOptions;
use nodwyn_core::services::Services;
use nodwyn_core::worktree::WorktreeLocation;

pub use server::NodwynServer;

/// What a server needs from the front-end that starts it.
#[derive(Clone)]
pub struct Options {
    /// The repository (or any folder of a checkout of it) the connection works on.
    pub repo: PathBuf,
    /// Where sessions are kept.
    pub store: Store,
    /// The primitives offered.
    pub registry: Arc<Registry>,
    /// What primitives take from the person's environment.
    pub settings: HostSettings,
    /// Who judges calls after the guard's rules: the repository's strategy and the judge model
    /// the person configured; every session of the connection shares them.
    pub services: Services,
    /// Where new worktrees go.
    pub location: WorktreeLocation,
    /// The ports a new worktree session may be given one of.
    pub ports: nodwyn_core::worktree::port::PortRange,
    /// The person's prompts file and Scheme's time limit, for the `scheme` tool.
    pub scripts: ScriptOptions,
}

/// Serves one connection on stdin and stdout until the client goes away. A call still running
/// then is interrupted (a command and everything it started end; a landing stops where it can
/// say what state it left), so the session stays resumable and nothing is left running.
pub async fn serve_stdio(options: Options) -> Result<(), String> {
    use rmcp::ServiceExt;
    let interrupt = options.settings.interrupt.clone();
    let running = NodwynServer::new(options)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the MCP connection could not start: {e}"))?;
    let ended = running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("the MCP connection failed: {e}"));
    interrupt.raise();
    ended
}
