//! The person behind an MCP client: the guard's question goes to them as an elicitation request
//! (what, why, allow or decline), when the client declared elicitation; a client that cannot be
//! asked is nobody (the call is refused with `needs_person`), and a client that goes away
//! mid-question declines it. A security confirm is never asked here: the client is the agent's
//! own, and may answer its own questions. What the question shows (a command line, a path, the
//! guard's reason) is escaped as a terminal shows it: no control, escape or bidi character, and
//! no line break that could start a forged line.

use nodwyn_core::guard::{AskKind, Decision};
use nodwyn_core::person::{Person, Question, Reply};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer, RoleServer};

/// Asks through the client, from a blocking thread (the turn waits for the answer).
pub(crate) struct Eliciting {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) handle: tokio::runtime::Handle,
}

impl Person for Eliciting {
    fn ask(&mut self, question: &Question) -> Option<Reply> {
        if !self
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return None;
        }
        let kind = match question.verdict.decision {
            Decision::Ask(AskKind::Security) => "security confirm",
            _ => "confirm",
        };
        let message = format!(
            "nodwyn {kind}, session {}: {}\nbecause: {}\nAllow it?",
            question.session,
            nodwyn_text::escape_line(&question.effect.action),
            nodwyn_text::escape_line(&question.verdict.why)
        );
        let schema = ElicitationSchema::builder()
            .required_bool("allow")
            .build()
            .ok()?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        };
        match self.handle.block_on(self.peer.create_elicitation(params)) {
            Ok(answer) => Some(Reply::from(
                answer.action == ElicitationAction::Accept
                    && answer
                        .content
                        .as_ref()
                        .and_then(|c| c.get("allow"))
                        .and_then(serde_json::Value::as_bool)
                        == Some(true),
            )),
            // Gone mid-question, or an answer that could not be read: declined.
            Err(error) => {
                tracing::info!(error = %error, "an elicitation failed; the call is declined");
                Some(Reply::Decline)
            }
        }
    }

    fn answered_through(&self) -> Option<String> {
        Some("the MCP client".to_owned())
    }

    fn answers_security_confirms(&self) -> bool {
        false
    }
}
