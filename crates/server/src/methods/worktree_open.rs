//! `worktree.open`: a session in a new worktree of a repository (the checkout runs the
//! repository's hooks and filters on a blocking thread, holding no other client).

use std::path::PathBuf;
use std::sync::Arc;

use nodwyn_protocol::WorktreeMode;
use serde_json::{Value, json};

use crate::refusal::Refusal;
use crate::server::Server;

pub(super) async fn call(
    server: &Arc<Server>,
    repo: PathBuf,
    base: Option<String>,
    name: Option<String>,
) -> Result<Value, Refusal> {
    if repo.is_absolute() && nodwyn_core::repository_of(&repo).is_err() {
        return Err(Refusal::new(
            "not_a_git_repo",
            format!("{} is not in a git repository", repo.display()),
        ));
    }
    let (id, holding) =
        super::session_open::open(server, repo, WorktreeMode::Always, base, name, None).await?;
    let live = server.live(&id, holding).await?;
    let session = live.runtime.session()?;
    let worktree = session.active_worktree();
    Ok(json!({
        "session": id,
        "root": session.root,
        "branch": worktree.map(|w| w.branch.clone()),
        "base": worktree.map(|w| w.base.clone()),
    }))
}
