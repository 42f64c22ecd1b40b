//! `session.stay_in_checkout`: a session kept in its checkout from now on (worktree mode `off`):
//! its first change makes no worktree, and every write is asked. Refused while a turn runs (the
//! turn holds the agent).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::Refusal;
use crate::server::{Holding, Server};

pub(super) async fn call(server: &Arc<Server>, session: &str) -> Result<Value, Refusal> {
    let live = server.live(session, Holding::default()).await?;
    let Ok(mut agent) = live.agent.try_lock() else {
        return Err(crate::server::turn_running(&live.id));
    };
    agent.stay_in_checkout();
    Ok(json!({"session": live.id, "worktree": "off"}))
}
