//! `worktree.review`: a person's comments on a session's changes, checked against its diff
//! now (recorded as shown, as `worktree.diff` does) and sent to it as one message, starting a
//! turn.

use std::sync::Arc;

use nodwyn_core::worktree::comments::{Comments, message};
use nodwyn_protocol::{FileComment, LineComment};
use serde_json::{Value, json};

use crate::refusal::{Refusal, blocking};
use crate::server::{Holding, Server};

pub(super) async fn call(
    server: &Arc<Server>,
    session: &str,
    note: Option<String>,
    comments: Vec<LineComment>,
    file_comments: Vec<FileComment>,
) -> Result<Value, Refusal> {
    let live = server.live(session, Holding::default()).await?;
    // A turn of this engine, or of another process (a `nodwyn run` in a terminal).
    if live.turn_running() || live.runtime.turn_running()? {
        return Err(Refusal::new(
            "turn_running",
            format!(
                "a turn is running in session {}; the review waits until it ends",
                live.id
            ),
        ));
    }
    let store = server.engine.store.clone();
    let limits = server.engine.host.limits;
    let id = live.id.clone();
    let text = blocking(move || {
        // The person commented on these changes: the next landing lands exactly them.
        let review = nodwyn_core::worktree::diff_shown(&store, &id, &limits)?;
        let comments = Comments {
            note,
            lines: comments,
            files: file_comments
                .into_iter()
                .map(|c| (c.path, c.text))
                .collect(),
        };
        Ok(message(&review, &comments)?)
    })
    .await?;
    server.start_turn(&live, text)?;
    Ok(json!({"session": live.id}))
}
