//! `session.list`: a repository's sessions, each with whether a turn runs in this engine, how
//! its last turn ended and its last landing.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>, repo: PathBuf) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let (sessions, unreadable) = blocking(move || {
        // A repository, or a folder outside git whose sessions work in it.
        let repository = nodwyn_core::sessions_folder_of(&repo)?;
        Ok(nodwyn_core::sessions_of(&store, &repository)?)
    })
    .await?;
    let sessions: Vec<Value> = sessions
        .iter()
        .map(|session| {
            let id = session.id.to_string();
            json!({
                "session": id,
                "root": session.root,
                "branch": session.active_worktree().map(|w| w.branch.clone()),
                "name": session.active_worktree().and_then(|w| w.name.clone()),
                "open": session.open,
                "turns": session.turns,
                "turn_running": server.turn_running(&id),
                "last_turn": session.last_turn_end,
                "last_landing": session.last_landing.as_ref().map(|(base, commit)| json!({"base": base, "commit": commit})),
            })
        })
        .collect();
    Ok(json!({"sessions": sessions, "unreadable": unreadable}))
}
