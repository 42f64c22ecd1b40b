//! `worktree.list`: a repository's worktrees, as `nodwyn worktree list --json` lists them.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::refusal::{Refusal, blocking};
use crate::server::Server;

pub(super) async fn call(server: &Arc<Server>, repo: PathBuf) -> Result<Value, Refusal> {
    let store = server.engine.store.clone();
    let watch = server.dirty_watch();
    let (worktrees, unreadable) = blocking(move || {
        let repository = nodwyn_core::repository_of(&repo)?;
        Ok(nodwyn_core::worktree::list_watched(
            &store,
            &repository,
            watch.as_deref(),
        )?)
    })
    .await?;
    Ok(json!({"worktrees": worktrees, "unreadable": unreadable}))
}
