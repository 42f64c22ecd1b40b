//! `session.resume`: a session made ready again (its worktree made again if it is gone, a turn
//! a killed engine left open ended as interrupted) and held open for turns; the answer also says
//! whether Don't ask is on.

use std::sync::Arc;

use serde_json::Value;

use crate::refusal::{Refusal, blocking};
use crate::server::{Holding, Server};

pub(super) async fn call(server: &Arc<Server>, session: &str) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let id = session.to_owned();
    let resumed = blocking(move || Ok(nodwyn_core::worktree::resume(&store, &id)?)).await?;
    let live = server.live(&resumed.session, Holding::default()).await?;
    if !live.turn_running() {
        live.runtime.end_open_turn()?;
    }
    server.hub.catch_up(&live.id);
    let mut answer = super::json(resumed)?;
    // Whether Don't ask is on, as core reads it (a record nodwyn did not seal counts for nothing).
    answer["dont_ask"] = live.runtime.session()?.dont_ask.is_some().into();
    Ok(answer)
}
