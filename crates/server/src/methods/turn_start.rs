//! `turn.start`: the person's message to an open session starts a turn; refused with
//! `turn_running` while one runs. The answer comes at once; the turn's events follow to the
//! session's subscribers.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::Refusal;
use crate::server::{Holding, Server};

pub(super) async fn call(
    server: &Arc<Server>,
    session: &str,
    text: String,
) -> Result<Value, Refusal> {
    if text.trim().is_empty() {
        return Err(Refusal::params("the message is empty"));
    }
    let live = server.live(session, Holding::default()).await?;
    server.start_turn(&live, text)?;
    Ok(json!({"session": live.id}))
}
