//! `session.close`: closes a session (refused while its turn runs); its worktree goes only if
//! nothing in it would be lost.

use std::sync::Arc;

use serde_json::Value;

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>, session: &str) -> Result<Value, Refusal> {
    let id = server.session_id(session).await?;
    server.release(&id).await?;
    let store = server.engine.store.clone();
    let closing = id.clone();
    let closed = blocking(move || Ok(nodwyn_core::worktree::close(&store, &closing)?)).await?;
    server.hub.catch_up(&id);
    super::json(closed)
}
