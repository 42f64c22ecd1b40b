//! `nodwyn-server`: nodwyn's engine as a server for many clients.
//!
//! - [`engine`]: one way to assemble the engine from the configuration and the environment.
//! - [`hub`]: the live sessions' events, each numbered by its record's place in the session's
//!   log (`seq`), kept in a ring, replayed after a cursor and then sent live, nothing lost or
//!   doubled between the two; [`approvals`]: questions as identified requests, the first answer
//!   winning, cancelled by an interrupt, declined when nobody answers in time.
//! - [`server`]: the sessions held open for turns, each with its own interrupt.
//! - [`dispatch`] and `methods/`: JSON-RPC 2.0, one file per method.
//! - [`socket`]: the daemon's private Unix socket; [`client`]: a client of it.
//! - [`web`]: the web console's loopback listener (its page, and the protocol over a
//!   WebSocket), behind the checks a browser's neighbourhood needs.

pub mod approvals;
pub mod client;
pub mod dispatch;
pub mod engine;
mod events;
mod feed;
pub mod hub;
pub mod live;
mod methods;
pub mod outbox;
mod peer;
pub mod refusal;
pub mod server;
pub mod socket;
pub mod web;

pub use engine::Engine;
pub use hub::{Hub, Limits};
pub use server::{Holding, Server};
