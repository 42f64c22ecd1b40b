//! `session.dont_ask`: Don't ask turned on or off for a session, recorded (sealed, as every
//! Don't ask record is) as the person's choice through the client that said hello. Refused for
//! a process an agent's command started: an agent never turns it on for itself.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::dispatch::Peer;
use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(
    server: &Arc<Server>,
    peer: &Peer,
    session: &str,
    on: bool,
) -> Result<Value, Refusal> {
    super::person_only(peer, "turn Don't ask on or off")?;
    let id = server.session_id(session).await?;
    let store = server.engine.store.clone();
    let by = format!("the person, through {}", peer.client_name());
    let setting = id.clone();
    blocking(move || Ok(nodwyn_core::set_dont_ask(&store, &setting, on, &by)?)).await?;
    server.hub.catch_up(&id);
    Ok(json!({"session": id, "dont_ask": on}))
}
