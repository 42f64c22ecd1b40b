//! `session.events`: a session's records after a cursor, each with its `seq`, at most
//! [`PAGE`] at a time (`more` says there are others).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

/// The most records one answer holds.
pub(crate) const PAGE: usize = 1000;

pub(super) async fn call(
    server: &Arc<Server>,
    session: &str,
    after: Option<u64>,
) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let session = session.to_owned();
    blocking(move || {
        let stored = store.find(&session)?;
        let after = after.unwrap_or(0);
        let mut events = Vec::new();
        let mut seq = 0u64;
        let mut more = false;
        stored.log.each_record_from(0, |record| {
            seq += 1;
            if seq > after {
                if events.len() < PAGE {
                    events.push(json!({"seq": seq, "record": record}));
                } else {
                    more = true;
                }
            }
        })?;
        Ok(json!({
            "session": stored.id.to_string(),
            "events": events,
            "last": seq,
            "more": more,
        }))
    })
    .await
}
