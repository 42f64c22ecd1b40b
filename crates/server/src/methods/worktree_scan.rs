//! `worktree.scan`: what a landing's credential scan would refuse in a session's work now, and
//! the credential files its commit would leave out, without landing anything.

use std::sync::Arc;

use serde_json::Value;

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>, session: &str) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let limits = server.engine.host.limits;
    let id = session.to_owned();
    let leaving =
        blocking(move || Ok(nodwyn_core::worktree::leaving(&store, &id, &limits)?)).await?;
    super::json(leaving)
}
