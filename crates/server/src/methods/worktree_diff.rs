//! `worktree.diff` and `worktree.changes`: a session's changes for review (since its base, or
//! in the scope asked), shown to a person (`review.shown` names the tree a landing must match). A large branch stops at the diff's time limit (30 s at
//! most), each file capped and the whole answer too, the rest named as omitted.

use std::sync::Arc;
use std::time::Duration;

use nodwyn_protocol::ChangeScope;
use serde_json::Value;

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

/// The longest a diff over the wire may take.
const LONGEST: Duration = Duration::from_secs(30);

/// The most bytes of diff lines one answer carries.
const LARGEST: usize = 8 * 1024 * 1024;

pub(super) async fn call(
    server: &Arc<Server>,
    session: &str,
    scope: ChangeScope,
) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let mut limits = server.engine.host.limits;
    limits.diff_time = limits.diff_time.min(LONGEST);
    limits.diff_total = limits.diff_total.min(LARGEST);
    let id = session.to_owned();
    let review = blocking(move || {
        Ok(nodwyn_core::worktree::changes_shown(
            &store, &id, scope, &limits,
        )?)
    })
    .await?;
    super::json(review)
}
