//! A session the engine holds open for turns: its runtime (with an interrupt no other session
//! shares), its agent, and the front-end its turns report to, which is the hub: notifications
//! that are no record go to the session's subscribers live, records are published from the log,
//! and the guard's questions become requests every subscriber is asked.

use std::sync::{Arc, Mutex};

use nodwyn_agent::{Agent, Frontend};
use nodwyn_core::person::{Question, Reply, StrategyQuestion};
use nodwyn_core::prim::Interrupt;
use nodwyn_core::turn::SessionRuntime;
use nodwyn_protocol::{ApprovalKind, Decision, Notification, ServerRequest};

use crate::hub::{Hub, lock};

/// A session open for turns in this engine.
pub struct LiveSession {
    /// The session's full id.
    pub id: String,
    /// Its runtime.
    pub runtime: Arc<SessionRuntime>,
    /// Its agent; held by the turn that runs.
    pub agent: Arc<tokio::sync::Mutex<Agent>>,
    /// The running turn's task, if one runs.
    pub running: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl LiveSession {
    /// The session's interrupt: raised, it ends this session's turn and no other.
    pub fn interrupt(&self) -> &Interrupt {
        &self.runtime.settings().interrupt
    }

    /// Whether a turn runs.
    pub fn turn_running(&self) -> bool {
        lock(&self.running)
            .as_ref()
            .is_some_and(|task| !task.is_finished())
    }
}

/// Where a session's turn is, for the questions it asks.
#[derive(Debug, Default)]
struct Position {
    turn: Option<u32>,
    call: Option<String>,
}

/// The hub as an agent's front-end, for one session.
pub struct HubFrontend {
    hub: Arc<Hub>,
    session: String,
    interrupt: Interrupt,
    position: Mutex<Position>,
    /// Where an unanswered question is recorded; set once the runtime exists.
    runtime: Mutex<Option<std::sync::Weak<SessionRuntime>>>,
    /// The client whose answer settled the last question.
    answered_by: Mutex<Option<String>>,
}

impl HubFrontend {
    /// The front-end of session `session`, whose turns `interrupt` stops.
    pub fn new(hub: Arc<Hub>, session: String, interrupt: Interrupt) -> Self {
        Self {
            hub,
            session,
            interrupt,
            position: Mutex::new(Position::default()),
            runtime: Mutex::new(None),
            answered_by: Mutex::new(None),
        }
    }

    /// Lets the front-end record questions nobody answered in `runtime`'s log.
    pub fn recording_in(&self, runtime: &Arc<SessionRuntime>) {
        *lock(&self.runtime) = Some(Arc::downgrade(runtime));
    }

    /// Asks the subscribers `make`'s request and waits for it to be settled; `None` never: a
    /// question nobody answers is declined at the timeout.
    fn settle(
        &self,
        action: &str,
        make: impl FnOnce(String, Option<u32>, Option<String>) -> ServerRequest,
    ) -> Option<Reply> {
        self.hub.catch_up(&self.session);
        let (turn, call) = {
            let position = lock(&self.position);
            (position.turn, position.call.clone())
        };
        let started = std::time::Instant::now();
        let (settled, id) = self.hub.approvals.ask(
            &self.hub,
            &self.session,
            |id| make(id, turn, call),
            &self.interrupt,
        );
        *lock(&self.answered_by) = settled.by.clone();
        match settled.decision {
            Decision::Allow => Some(Reply::Allow),
            Decision::AllowAlways => Some(Reply::Always),
            Decision::Decline => {
                if settled.reason.as_deref() == Some("timed_out")
                    && let Some(runtime) = lock(&self.runtime).as_ref().and_then(|r| r.upgrade())
                    && let Err(error) =
                        runtime.record_unanswered(&id, action, started.elapsed().as_secs())
                {
                    tracing::info!(error = %error, "could not record an unanswered question");
                }
                Some(Reply::Decline)
            }
            Decision::Cancel => {
                self.interrupt.raise();
                Some(Reply::Decline)
            }
            Decision::NoPerson => None,
            // Settled as a decline by `Approvals::answer`; never seen here.
            Decision::Unanswered => Some(Reply::Decline),
        }
    }
}

impl Frontend for HubFrontend {
    fn notify(&self, notification: &Notification) {
        match notification {
            Notification::TurnStarted { turn, .. } => {
                *lock(&self.position) = Position {
                    turn: Some(*turn),
                    call: None,
                };
                self.hub.catch_up(&self.session);
            }
            Notification::ItemStarted { item, kind, .. } => {
                if kind == "tool_call" {
                    lock(&self.position).call = Some(item.clone());
                }
                self.hub.live(&self.session, notification);
            }
            Notification::ItemDelta { .. }
            | Notification::ItemReasoning { .. }
            | Notification::TurnPlan { .. }
            | Notification::SessionWorktree { .. }
            | Notification::SessionStarted { .. } => self.hub.live(&self.session, notification),
            // The rest tell records, which the log gives with their `seq`.
            _ => self.hub.catch_up(&self.session),
        }
    }

    fn ask(&self, question: &Question) -> Option<Reply> {
        self.settle(&question.effect.action, |id, turn, call| {
            nodwyn_agent::approval_request(question, id, turn, call)
        })
    }

    fn answered_through(&self) -> Option<String> {
        lock(&self.answered_by).clone()
    }

    fn approve_strategy(&self, question: &StrategyQuestion<'_>) -> Option<bool> {
        let files: Vec<serde_json::Value> = question
            .files
            .iter()
            .map(
                |file| serde_json::json!({"name": file.name, "path": file.path, "text": file.text}),
            )
            .collect();
        let action = format!(
            "run the repository's strategy ({})",
            question
                .files
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.settle(&action.clone(), |id, turn, call| {
            ServerRequest::ApprovalRequest {
                request: id,
                session: question.session.to_owned(),
                turn,
                call,
                action,
                effect: serde_json::json!({"files": files, "sha256": question.sha256}),
                why: "a repository's .nodwyn/init.scm runs only once a person approved it, and again whenever it or .nodwyn/prompts.scm changes".to_owned(),
                kind: ApprovalKind::Strategy,
                always: None,
            }
        })
        .map(|reply| reply != Reply::Decline)
    }
}
