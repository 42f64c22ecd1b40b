//! `turn.interrupt`: ends one session's turn (its command's whole process tree, its model
//! stream, its waiting question) and no other's.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::Refusal;
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>, session: &str) -> Result<Value, Refusal> {
    let interrupted = server.interrupt(session).await?;
    Ok(json!({"interrupted": interrupted}))
}
