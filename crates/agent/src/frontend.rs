//! The front-end an agent reports to and asks through: `nodwyn run` (a terminal, or JSON Lines),
//! later the daemon's clients and the MCP server.

use std::sync::Arc;

use nodwyn_core::guard::{AskKind, Decision};
use nodwyn_core::person::{Person, Question, Reply, StrategyQuestion};
use nodwyn_protocol::{ApprovalKind, Notification, ServerRequest};

/// Whoever drives an agent.
pub trait Frontend: Send + Sync {
    /// Something happened. Called in order, from the turn's task and its blocking threads.
    fn notify(&self, notification: &Notification);

    /// The guard asks a person whether a call may run; `None` means nobody can be asked (the
    /// call is refused with how to approve it). Called on a blocking thread; the turn waits.
    fn ask(&self, question: &Question) -> Option<Reply>;

    /// How the last answer reached nodwyn (the client that gave it), when not at a terminal.
    fn answered_through(&self) -> Option<String> {
        None
    }

    /// Whether a repository's `.nodwyn/init.scm` may run; nobody is asked unless the front-end
    /// can reach a person.
    fn approve_strategy(&self, question: &StrategyQuestion<'_>) -> Option<bool> {
        let _ = question;
        None
    }
}

/// The guard's question as the protocol asks it of a client (`approval.request`): `request` is
/// its id, `turn` and `call` (the tool call's item id) what waits for it.
pub fn approval_request(
    question: &Question,
    request: String,
    turn: Option<u32>,
    call: Option<String>,
) -> ServerRequest {
    ServerRequest::ApprovalRequest {
        request,
        session: question.session.clone(),
        turn,
        call,
        action: question.effect.action.clone(),
        effect: serde_json::to_value(&question.effect).unwrap_or_default(),
        why: question.verdict.why.clone(),
        kind: match question.verdict.decision {
            Decision::Ask(AskKind::Security) => ApprovalKind::Security,
            _ => ApprovalKind::Ordinary,
        },
        always: question.offer.as_ref().map(|offer| offer.allows.clone()),
    }
}

/// A front-end as the core's [`Person`].
pub struct FrontendPerson(pub Arc<dyn Frontend>);

impl Person for FrontendPerson {
    fn ask(&mut self, question: &Question) -> Option<Reply> {
        self.0.ask(question)
    }

    fn approve_strategy(&mut self, question: &StrategyQuestion<'_>) -> Option<bool> {
        self.0.approve_strategy(question)
    }

    fn answered_through(&self) -> Option<String> {
        self.0.answered_through()
    }
}
