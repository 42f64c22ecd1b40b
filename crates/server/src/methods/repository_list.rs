//! `repository.list`: the repositories nodwyn keeps sessions of, for a client that shows every
//! session of every repository (the web console).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let repositories = blocking(move || Ok(store.repositories()?)).await?;
    Ok(json!({ "repositories": repositories }))
}
