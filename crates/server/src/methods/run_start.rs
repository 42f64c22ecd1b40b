//! `run.start`: opens a session as `session.open` does and starts its first turn with the task.

use std::path::PathBuf;
use std::sync::Arc;

use nodwyn_protocol::WorktreeMode;
use serde_json::{Value, json};

use crate::refusal::Refusal;
use crate::server::Server;

pub(super) async fn call(
    server: &Arc<Server>,
    repo: PathBuf,
    task: String,
    mode: WorktreeMode,
    model: Option<String>,
) -> Result<Value, Refusal> {
    if task.trim().is_empty() {
        return Err(Refusal::params(
            "the task is empty: say what the model should do",
        ));
    }
    let (id, holding) = super::session_open::open(server, repo, mode, None, None, model).await?;
    let live = server.live(&id, holding).await?;
    server.start_turn(&live, task)?;
    Ok(json!({"session": id}))
}
