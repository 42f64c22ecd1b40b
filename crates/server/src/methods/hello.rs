//! `hello`: the protocol's version, the engine's, and the methods it answers.

use nodwyn_protocol::{Hello, Request, VERSION};
use serde_json::Value;

use crate::dispatch::Peer;
use crate::refusal::Refusal;
use crate::server::Server;

pub(super) fn call(server: &Server, peer: &Peer, client: &str) -> Result<Value, Refusal> {
    tracing::info!(client, "a client said hello");
    peer.named(client);
    super::json(Hello {
        protocol: VERSION,
        engine: format!("nodwyn {}", env!("CARGO_PKG_VERSION")),
        methods: Request::METHODS.iter().map(|m| (*m).to_owned()).collect(),
        data: Some(server.engine.store.home().to_path_buf()),
    })
}
