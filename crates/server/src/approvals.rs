//! Questions as requests: each has an id, its session, turn and call, and what it touches in
//! data. Every subscriber of the session is asked; the first answer settles it, and every
//! subscriber hears `approval.resolved`. An interrupt or the turn's end settles it as
//! cancelled; a question nobody answers in time is declined. A client that watches every
//! session's questions (`approval.watch`, the console's queue) is asked each one too, and told
//! each settled.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use nodwyn_core::prim::Interrupt;
use nodwyn_protocol::{Decision, Notification, ServerRequest};

use crate::events::request_line;
use crate::hub::{Hub, lock};
use crate::outbox::{Line, Outbox};

/// How often a waiting question looks at its turn's interrupt.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// The questions waiting for an answer.
pub struct Approvals {
    waiting: Mutex<HashMap<String, Waiting>>,
    /// The clients that watch every session's questions.
    watchers: Mutex<Vec<Outbox>>,
    next: AtomicU64,
    timeout: Duration,
}

struct Waiting {
    session: String,
    line: Line,
    reply: mpsc::Sender<Settled>,
}

/// How a question was settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// What was decided.
    pub decision: Decision,
    /// Why, when no client's answer decided it (`timed_out`, `interrupted`, `turn_ended`,
    /// `shutting_down`).
    pub reason: Option<String>,
    /// The client whose answer decided it, by the name it gave in `hello`.
    pub by: Option<String>,
}

/// An answer that settled nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotWaiting(pub String);

impl std::fmt::Display for NotWaiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no question {} is waiting: it was answered, cancelled or declined already",
            self.0
        )
    }
}

impl Approvals {
    /// Questions that wait at most `timeout` for an answer.
    pub fn new(timeout: Duration) -> Self {
        Self {
            waiting: Mutex::new(HashMap::new()),
            watchers: Mutex::new(Vec::new()),
            next: AtomicU64::new(1),
            timeout,
        }
    }

    /// Asks session `session`'s subscribers the request `make` builds from the question's id,
    /// and waits (on a blocking thread) until a client answers, `interrupt` is raised
    /// (cancelled), or the time runs out (declined). The second value is the question's id.
    pub fn ask(
        &self,
        hub: &Hub,
        session: &str,
        make: impl FnOnce(String) -> ServerRequest,
        interrupt: &Interrupt,
    ) -> (Settled, String) {
        let id = format!("approval-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let line = request_line(&make(id.clone()));
        let (reply, answer) = mpsc::channel();
        let asked = hub.with_feed(session, |feed| {
            lock(&self.waiting).insert(
                id.clone(),
                Waiting {
                    session: session.to_owned(),
                    line: Line::clone(&line),
                    reply,
                },
            );
            feed.broadcast(&line);
            self.tell_watchers(&line);
        });
        if asked.is_none() {
            return (
                Settled {
                    decision: Decision::Decline,
                    reason: Some("no_session".to_owned()),
                    by: None,
                },
                id,
            );
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            match answer.recv_timeout(INTERRUPT_POLL) {
                Ok(settled) => return (settled, id),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return (
                        Settled {
                            decision: Decision::Cancel,
                            reason: Some("interrupted".to_owned()),
                            by: None,
                        },
                        id,
                    );
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let ending = if interrupt.is_raised() {
                Some((Decision::Cancel, "interrupted"))
            } else if Instant::now() >= deadline {
                Some((Decision::Decline, "timed_out"))
            } else {
                None
            };
            if let Some((decision, reason)) = ending {
                // Settled here unless an answer won the race, which then waits in the channel.
                self.settle(
                    hub,
                    &id,
                    Settled {
                        decision,
                        reason: Some(reason.to_owned()),
                        by: None,
                    },
                );
                if let Ok(settled) = answer.recv() {
                    return (settled, id);
                }
            }
        }
    }

    /// A client's answer to question `request`; the first answer wins. A client's
    /// [`Decision::Unanswered`] declines it as nobody answered in time.
    pub fn answer(
        &self,
        hub: &Hub,
        request: &str,
        decision: Decision,
        by: Option<String>,
    ) -> Result<(), NotWaiting> {
        let settled = match decision {
            Decision::Unanswered => Settled {
                decision: Decision::Decline,
                reason: Some("timed_out".to_owned()),
                by: None,
            },
            decision => Settled {
                decision,
                reason: None,
                by,
            },
        };
        if self.settle(hub, request, settled) {
            Ok(())
        } else {
            Err(NotWaiting(request.to_owned()))
        }
    }

    /// Settles every question of session `session` as cancelled, for `reason`.
    pub fn cancel_session(&self, hub: &Hub, session: &str, reason: &str) {
        self.cancel_where(hub, reason, |waiting| waiting.session == session);
    }

    /// Settles every question, for `reason` (the engine is stopping).
    pub fn cancel_all(&self, hub: &Hub, reason: &str) {
        self.cancel_where(hub, reason, |_| true);
    }

    /// Settles as cancelled, for `reason`, every waiting question `which` picks.
    fn cancel_where(&self, hub: &Hub, reason: &str, which: impl Fn(&Waiting) -> bool) {
        let ids: Vec<String> = lock(&self.waiting)
            .iter()
            .filter(|(_, waiting)| which(waiting))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.settle(
                hub,
                &id,
                Settled {
                    decision: Decision::Cancel,
                    reason: Some(reason.to_owned()),
                    by: None,
                },
            );
        }
    }

    /// The requests of session `session`'s questions still waiting, for a client that
    /// subscribes.
    pub(crate) fn waiting(&self, session: &str) -> Vec<Line> {
        lock(&self.waiting)
            .values()
            .filter(|w| w.session == session)
            .map(|w| Line::clone(&w.line))
            .collect()
    }

    /// How many questions wait.
    pub fn len(&self) -> usize {
        lock(&self.waiting).len()
    }

    /// Whether no question waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lets `outbox` watch every session's questions: it is asked each waiting one now, and each
    /// new one, and told each settled, until it goes away.
    pub fn watch(&self, outbox: &Outbox) {
        let mut watchers = lock(&self.watchers);
        watchers.retain(|watcher| !watcher.is_dropped() && watcher.client() != outbox.client());
        for waiting in lock(&self.waiting).values() {
            outbox.send(Line::clone(&waiting.line));
        }
        watchers.push(outbox.clone());
    }

    /// Sends `line` to every watcher still there.
    fn tell_watchers(&self, line: &Line) {
        lock(&self.watchers)
            .retain(|watcher| !watcher.is_dropped() && watcher.send(Line::clone(line)));
    }

    /// Settles question `id` if it still waits: its asker gets `settled`, and every subscriber
    /// of its session hears `approval.resolved`.
    fn settle(&self, hub: &Hub, id: &str, settled: Settled) -> bool {
        let Some(waiting) = lock(&self.waiting).remove(id) else {
            return false;
        };
        let resolved = Notification::ApprovalResolved {
            request: id.to_owned(),
            decision: settled.decision,
            reason: settled.reason.clone(),
        };
        // Told before the asker goes on, so no client sees the turn move past an open question.
        hub.live(&waiting.session, &resolved);
        // Watchers follow no session's events: no `seq`, only the session it belongs to.
        let mut told = serde_json::to_value(&resolved).unwrap_or_default();
        told["params"]["session"] = serde_json::Value::from(waiting.session.as_str());
        self.tell_watchers(&Line::from(told.to_string()));
        let _ = waiting.reply.send(settled);
        true
    }
}
