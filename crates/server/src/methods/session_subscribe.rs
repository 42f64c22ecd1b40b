//! `session.subscribe` and `session.unsubscribe`: a client follows a session's events from
//! after its cursor, then live, and is asked its questions.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::dispatch::Peer;
use crate::refusal::Refusal;
use crate::server::Server;

pub(super) async fn subscribe(
    server: &Arc<Server>,
    peer: &Peer,
    session: &str,
    after: Option<u64>,
) -> Result<Value, Refusal> {
    let id = server.session_id(session).await?;
    server.hub.subscribe(&id, after, &peer.outbox).await?;
    Ok(json!({"session": id}))
}

pub(super) async fn unsubscribe(
    server: &Arc<Server>,
    peer: &Peer,
    session: &str,
) -> Result<Value, Refusal> {
    let id = server.session_id(session).await?;
    server.hub.unsubscribe(&id, peer.outbox.client());
    Ok(json!({"session": id}))
}
