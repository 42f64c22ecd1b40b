//! `worktree.remove`: removes a session's worktree, refused when work would be lost unless
//! `force`, and refused while its turn runs.

use std::sync::Arc;

use serde_json::Value;

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(
    server: &Arc<Server>,
    session: &str,
    force: bool,
) -> Result<Value, Refusal> {
    let id = server.session_id(session).await?;
    server.release(&id).await?;
    let store = server.engine.store.clone();
    let removing = id.clone();
    let removed = blocking(move || {
        Ok(nodwyn_core::worktree::remove(
            &store, &removing, force, false,
        )?)
    })
    .await?;
    server.hub.catch_up(&id);
    super::json(removed)
}
