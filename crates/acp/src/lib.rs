//! `nodwyn-acp`: nodwyn as an Agent Client Protocol agent (JSON-RPC 2.0 on stdio; the editor
//! starts `nodwyn acp` as a subprocess). An editor thread is a nodwyn session in a worktree of
//! its own; each prompt is a turn of the engine, its tool calls shown with their kind, files and
//! diffs, and the guard's questions asked through the editor's permission prompt.
//!
//! It is a client of the engine's protocol like every other front-end (`connect` gives it a
//! client of an engine, in this process or a daemon's) and adds no engine logic. It never uses
//! the editor's `fs/*` or `terminal/*` methods, even when the editor offers them: the editor's
//! buffers are the person's checkout, not the session's worktree, and a command the editor ran
//! would escape nodwyn's confinement.

mod commands;
mod sdk;
mod translate;
mod turn;

use std::sync::Arc;
use std::time::Duration;

use nodwyn_server::client::Client;

/// Makes a client of the engine that has said hello.
pub type Connect = Arc<dyn Fn() -> anyhow::Result<Client> + Send + Sync>;

/// How the agent serves its editor.
#[derive(Debug, Clone)]
pub struct Options {
    /// The worktree mode of a new thread's session (`always` unless the person chose another).
    pub worktree: nodwyn_protocol::WorktreeMode,
    /// How long a permission prompt waits for the person before it is declined.
    pub permission_timeout: Duration,
    /// The repository every thread's session opens in, whatever folder the editor gives.
    pub repo: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            worktree: nodwyn_protocol::WorktreeMode::Always,
            permission_timeout: Duration::from_secs(300),
            repo: None,
        }
    }
}

/// Serves the editor on stdin and stdout, through clients `connect` makes, until the editor
/// closes the connection.
pub async fn serve_stdio(connect: Connect, options: Options) -> anyhow::Result<()> {
    sdk::serve(connect, options).await
}
