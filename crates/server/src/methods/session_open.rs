//! `session.open`: a session for an agent in a folder: a new worktree (`always`, in a git
//! repository), or the folder itself (`auto` moves into a worktree at its first change, `off`
//! stays). The session is held open for turns; with no model configured it is opened all the
//! same, and its first turn is refused with the sentence saying how to configure one.

use std::path::PathBuf;
use std::sync::Arc;

use nodwyn_core::worktree::NewWorktree;
use nodwyn_protocol::WorktreeMode;
use serde_json::{Value, json};

use crate::engine::config_mode;
use crate::refusal::{Refusal, blocking, configuration};
use crate::server::{Holding, Server};

pub(super) async fn call(
    server: &Arc<Server>,
    repo: PathBuf,
    mode: WorktreeMode,
    base: Option<String>,
    name: Option<String>,
) -> Result<Value, Refusal> {
    let (id, holding) = open(server, repo, mode, base, name, None).await?;
    let session = match server.live(&id, holding).await {
        Ok(live) => live.runtime.session()?,
        // A session needs a model only for its turns: the first one's refusal says how to
        // configure one, where the person reads it (an editor's thread, chat's prompt).
        Err(refusal) if refusal.code == "no_model" => {
            let store = server.engine.store.clone();
            let opened = id.clone();
            blocking(move || Ok(nodwyn_core::Session::load(&store.find(&opened)?)?)).await?
        }
        Err(refusal) => return Err(refusal),
    };
    Ok(json!({
        "session": id,
        "root": session.root,
        "branch": session.active_worktree().map(|w| w.branch.clone()),
    }))
}

/// Opens the session `mode` asks for in `repo`: its id, and how to hold it.
pub(super) async fn open(
    server: &Arc<Server>,
    repo: PathBuf,
    mode: WorktreeMode,
    base: Option<String>,
    name: Option<String>,
    model: Option<String>,
) -> Result<(String, Holding), Refusal> {
    // A relative folder would be read against the daemon's own folder, which is not the
    // client's.
    if !repo.is_absolute() {
        return Err(Refusal::params(format!(
            "the folder {} is not an absolute path: give the whole path",
            repo.display()
        )));
    }
    if mode == WorktreeMode::Off && (base.is_some() || name.is_some()) {
        return Err(Refusal::params(
            "base and name choose a worktree, and worktree mode off works in the folder itself",
        ));
    }
    let engine = server.engine.clone();
    blocking(move || {
        let repository = nodwyn_core::repository_of(&repo).ok();
        let settings = engine
            .settings_for(repository.as_deref())
            .map_err(|e| configuration("bad_configuration", &e))?;
        let request = NewWorktree {
            dir: repo.clone(),
            base,
            name,
            location: settings.worktree_location,
            ports: settings.worktree_ports,
            ..NewWorktree::default()
        };
        let home = engine.host.home.clone();
        let id = match (mode, &repository) {
            (WorktreeMode::Always, Some(top)) => {
                nodwyn_core::open::refuse_task_root(top, home.as_deref(), engine.store.home())?;
                nodwyn_core::worktree::create(&engine.store, &request)?
                    .session
                    .to_string()
            }
            _ => nodwyn_core::open::open_in_folder(&engine.store, &repo, home.as_deref())?
                .id
                .to_string(),
        };
        Ok((
            id,
            Holding {
                mode: Some(config_mode(mode)),
                new_worktree: Some(request),
                model,
            },
        ))
    })
    .await
}
