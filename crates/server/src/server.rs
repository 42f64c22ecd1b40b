//! The engine serving many clients: the hub, the sessions held open for turns, and what starts,
//! interrupts and ends their turns. Two sessions' turns run at once; one session runs one turn
//! at a time. Nothing here is held while git works.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use nodwyn_agent::Agent;
use nodwyn_config::WorktreeMode;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_core::worktree::{DirtyWatch, NewWorktree};
use nodwyn_model::Client;

use crate::engine::{Engine, agent_options, model_profile, profiles_of};
use crate::hub::{Hub, Limits, lock};
use crate::live::{HubFrontend, LiveSession};
use crate::refusal::{Refusal, blocking, configuration};

/// How many times, 20 ms apart, closing a session looks whether its turn has ended.
const RELEASE_TRIES: usize = 50;

/// How long a stopping engine waits for its turns to end.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// The engine and its live sessions.
pub struct Server {
    /// How sessions are assembled.
    pub engine: Engine,
    /// The sessions' events and questions.
    pub hub: Arc<Hub>,
    live: Mutex<HashMap<String, Arc<LiveSession>>>,
    handle: tokio::runtime::Handle,
    /// Worktrees' dirty answers, kept while nothing they depend on changes; made when first
    /// asked, none where the kernel gives no inotify instance.
    dirty_watch: OnceLock<Option<Arc<DirtyWatch>>>,
}

/// How a session is held open: where it works and which model it talks to.
#[derive(Debug, Clone, Default)]
pub struct Holding {
    /// Where it works (none: the configuration's mode).
    pub mode: Option<WorktreeMode>,
    /// Where a worktree it makes goes and starts from.
    pub new_worktree: Option<NewWorktree>,
    /// The model profile (none: the default).
    pub model: Option<String>,
}

impl Server {
    /// An engine serving `engine`'s sessions on the runtime `handle` belongs to.
    pub fn new(
        engine: Engine,
        limits: Limits,
        approval_timeout: Duration,
        handle: tokio::runtime::Handle,
    ) -> Arc<Self> {
        let hub = Arc::new(Hub::new(engine.store.clone(), limits, approval_timeout));
        Arc::new(Self {
            engine,
            hub,
            live: Mutex::new(HashMap::new()),
            handle,
            dirty_watch: OnceLock::new(),
        })
    }

    /// The engine's dirty watcher, made on first use (`None` without inotify).
    pub fn dirty_watch(&self) -> Option<Arc<DirtyWatch>> {
        self.dirty_watch
            .get_or_init(|| match DirtyWatch::new() {
                Ok(watch) => Some(Arc::new(watch)),
                Err(e) => {
                    tracing::warn!("worktrees will be checked each time: no inotify ({e})");
                    None
                }
            })
            .clone()
    }

    /// The full id of the session `id` names (a full id, its short id, or its name).
    pub async fn session_id(&self, id: &str) -> Result<String, Refusal> {
        let store = self.engine.store.clone();
        let id = id.to_owned();
        blocking(move || Ok(store.find(&id)?.id.to_string())).await
    }

    /// Session `id` held open for turns, opened now if it is not yet (as `holding` says).
    pub async fn live(&self, id: &str, holding: Holding) -> Result<Arc<LiveSession>, Refusal> {
        let id = self.session_id(id).await?;
        if let Some(live) = lock(&self.live).get(&id) {
            return Ok(Arc::clone(live));
        }
        let engine = self.engine.clone();
        let hub = Arc::clone(&self.hub);
        let handle = self.handle.clone();
        let opening = id.clone();
        let live = blocking(move || open_live(&engine, &hub, &handle, &opening, holding)).await?;
        Ok(Arc::clone(
            lock(&self.live).entry(id).or_insert_with(|| Arc::new(live)),
        ))
    }

    /// Starts a turn of `live`'s session with the person's message `text`; refused with
    /// `turn_running` while one runs.
    pub fn start_turn(
        self: &Arc<Self>,
        live: &Arc<LiveSession>,
        text: String,
    ) -> Result<(), Refusal> {
        let mut running = lock(&live.running);
        if running.as_ref().is_some_and(|task| !task.is_finished()) {
            return Err(turn_running(&live.id));
        }
        let Ok(mut agent) = Arc::clone(&live.agent).try_lock_owned() else {
            return Err(turn_running(&live.id));
        };
        let server = Arc::clone(self);
        let session = live.id.clone();
        *running = Some(self.handle.spawn(async move {
            agent.turn(&text).await;
            // A question of the turn that is still waiting has nothing left to wait for.
            server
                .hub
                .approvals
                .cancel_session(&server.hub, &session, "turn_ended");
            server.hub.catch_up(&session);
        }));
        Ok(())
    }

    /// Interrupts session `id`'s turn: its command, its model stream and its question; `false`
    /// when no turn runs.
    pub async fn interrupt(&self, id: &str) -> Result<bool, Refusal> {
        let id = self.session_id(id).await?;
        let Some(live) = lock(&self.live).get(&id).cloned() else {
            return Ok(false);
        };
        if !live.turn_running() {
            return Ok(false);
        }
        live.interrupt().raise();
        self.hub
            .approvals
            .cancel_session(&self.hub, &id, "interrupted");
        Ok(true)
    }

    /// Lets go of session `id` (it is closed); refused while a turn runs. A turn whose end was
    /// just told is given a moment to finish.
    pub async fn release(&self, id: &str) -> Result<(), Refusal> {
        for _ in 0..RELEASE_TRIES {
            let released = {
                let mut live = lock(&self.live);
                let running = live.get(id).is_some_and(|l| l.turn_running());
                if !running {
                    live.remove(id);
                }
                !running
            };
            if released {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Err(turn_running(id))
    }

    /// Whether session `id` runs a turn in this engine.
    pub fn turn_running(&self, id: &str) -> bool {
        lock(&self.live).get(id).is_some_and(|l| l.turn_running())
    }

    /// Ends every running turn as interrupted and settles every question as cancelled, waiting
    /// up to 10 s for the turns to record their end.
    pub async fn stop(&self) {
        let live: Vec<Arc<LiveSession>> = lock(&self.live).values().cloned().collect();
        for session in &live {
            if session.turn_running() {
                session.interrupt().raise();
            }
        }
        self.hub.approvals.cancel_all(&self.hub, "shutting_down");
        let tasks: Vec<_> = live
            .iter()
            .filter_map(|session| lock(&session.running).take())
            .collect();
        let _ = tokio::time::timeout(STOP_WAIT, async {
            for task in tasks {
                let _ = task.await;
            }
        })
        .await;
    }
}

/// The refusal of a second turn (or of what a running turn holds).
pub(crate) fn turn_running(id: &str) -> Refusal {
    Refusal::new(
        "turn_running",
        format!(
            "a turn is running in session {id}; interrupt it (turn.interrupt) or wait until it ends"
        ),
    )
}

/// Session `id` made ready for turns: its settings, host, model and agent.
fn open_live(
    engine: &Engine,
    hub: &Arc<Hub>,
    handle: &tokio::runtime::Handle,
    id: &str,
    holding: Holding,
) -> Result<LiveSession, Refusal> {
    let session = nodwyn_core::Session::load(&engine.store.find(id)?)?;
    let in_git = nodwyn_core::repository_of(&session.root).is_ok();
    let settings = engine
        .settings_for(in_git.then_some(session.repository.as_path()))
        .map_err(|e| configuration("bad_configuration", &e))?;
    let (host, services) = engine
        .host_for_session(&settings, handle)
        .map_err(|e| configuration("bad_configuration", &e))?;
    let interrupt = host.interrupt.clone();
    let runtime = SessionRuntime::open(
        engine.store.clone(),
        id,
        Arc::clone(&engine.registry),
        host,
        services,
    )?;
    let profile = settings
        .model(
            holding
                .model
                .as_deref()
                .or(engine.overrides.model.as_deref()),
        )
        .map_err(|e| configuration("no_model", &e))?;
    let (profile, context) = model_profile(&profile).map_err(|e| configuration("no_model", &e))?;
    let model =
        Arc::new(Client::new(profile).map_err(|e| Refusal::new("no_model", e.to_string()))?);
    let new_worktree = holding.new_worktree.unwrap_or_else(|| NewWorktree {
        dir: session.root.clone(),
        location: settings.worktree_location,
        ports: settings.worktree_ports,
        ..NewWorktree::default()
    });
    let mut options = agent_options(
        &settings,
        holding.mode.unwrap_or(settings.worktree_mode),
        new_worktree,
        context,
        engine.scripts.clone(),
    );
    options.max_model_calls = engine.overrides.max_model_calls.or(options.max_model_calls);
    options.max_tokens = engine.overrides.max_tokens.or(options.max_tokens);
    let frontend = Arc::new(HubFrontend::new(Arc::clone(hub), id.to_owned(), interrupt));
    frontend.recording_in(&runtime);
    let agent = Agent::new(Arc::clone(&runtime), model, options, frontend)?
        .with_profiles(profiles_of(&settings));
    Ok(LiveSession {
        id: id.to_owned(),
        runtime,
        agent: Arc::new(tokio::sync::Mutex::new(agent)),
        running: Mutex::new(None),
    })
}
