//! `session.land`: a session's work landed on its base by core's one guarded step, with the
//! person's commit message. When the person was shown the session's changes, exactly that tree
//! lands or the landing says it changed since (core checks the `review.shown` record). Refused
//! while a turn runs (the agent may be writing) and for a process an agent's command started
//! (it would land its own work unreviewed).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::dispatch::Peer;
use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(
    server: &Arc<Server>,
    peer: &Peer,
    session: &str,
    message: String,
) -> Result<Value, Refusal> {
    super::person_only(peer, "land a session")?;
    if message.trim().is_empty() {
        return Err(Refusal::params(
            "session.land needs a commit message for the session's changes",
        ));
    }
    let id = server.session_id(session).await?;
    if server.turn_running(&id) {
        return Err(crate::server::turn_running(&id));
    }
    let store = server.engine.store.clone();
    let host = server.engine.host.clone();
    let landing = id.clone();
    let landed = blocking(move || {
        Ok(nodwyn_core::land(
            &store,
            &landing,
            Some(message.trim()),
            Default::default(),
            None,
            false,
            &host,
        )?)
    })
    .await?;
    server.hub.catch_up(&id);
    Ok(json!({"session": id, "summary": landed.summary(), "landed": landed}))
}
