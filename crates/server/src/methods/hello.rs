//! `hello`: the protocol's version, the engine's, and the methods it answers.

use nodwyn_protocol::{Hello, Request, VERSION};
use serde_json::Value;

use crate::dispatch::Peer;
use crate::refusal::Refusal;

pub(super) fn call(peer: &Peer, client: &str) -> Result<Value, Refusal> {
    tracing::info!(client, "a client said hello");
    peer.named(client);
    super::json(Hello {
        protocol: VERSION,
        engine: format!("nodwyn {}", env!("CARGO_PKG_VERSION")),
        methods: Request::METHODS.iter().map(|m| (*m).to_owned()).collect(),
    })
}
