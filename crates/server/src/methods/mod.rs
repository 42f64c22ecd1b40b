//! The protocol's methods, one file each. Each takes its parameters as the protocol types them
//! and answers a JSON result or a [`Refusal`]; slow git work runs on blocking threads, holding
//! nothing other clients wait on.

mod hello;
mod repository_list;
mod run_start;
mod session_close;
mod session_dont_ask;
mod session_events;
mod session_land;
mod session_list;
mod session_open;
mod session_resume;
mod session_stay_in_checkout;
mod session_subscribe;
mod turn_interrupt;
mod turn_start;
mod worktree_diff;
mod worktree_list;
mod worktree_open;
mod worktree_remove;
mod worktree_review;
mod worktree_scan;

use std::sync::Arc;

use nodwyn_protocol::{ChangeScope, Request};
use serde_json::Value;

use crate::dispatch::Peer;
use crate::refusal::Refusal;
use crate::server::Server;

/// Runs `request` for `peer`.
pub(crate) async fn call(
    server: &Arc<Server>,
    peer: &Peer,
    request: Request,
) -> Result<Value, Refusal> {
    match request {
        Request::Hello { client } => hello::call(server, peer, &client),
        Request::SessionOpen {
            repo,
            worktree,
            base,
            name,
        } => session_open::call(server, repo, worktree, base, name).await,
        Request::SessionList { repo } => session_list::call(server, repo).await,
        Request::RepositoryList {} => repository_list::call(server).await,
        Request::ApprovalWatch {} => {
            server.hub.approvals.watch(&peer.outbox);
            Ok(serde_json::json!({"watching": true}))
        }
        Request::SessionEvents { session, after } => {
            session_events::call(server, &session, after).await
        }
        Request::SessionSubscribe { session, after } => {
            session_subscribe::subscribe(server, peer, &session, after).await
        }
        Request::SessionUnsubscribe { session } => {
            session_subscribe::unsubscribe(server, peer, &session).await
        }
        Request::SessionResume { session } => session_resume::call(server, &session).await,
        Request::SessionClose { session } => session_close::call(server, &session).await,
        Request::WorktreeOpen { repo, base, name } => {
            worktree_open::call(server, repo, base, name).await
        }
        Request::WorktreeList { repo } => worktree_list::call(server, repo).await,
        Request::WorktreeRemove { session, force } => {
            worktree_remove::call(server, &session, force).await
        }
        Request::WorktreeDiff { session } => {
            worktree_diff::call(server, &session, ChangeScope::SinceBase).await
        }
        Request::WorktreeChanges { session, scope } => {
            worktree_diff::call(server, &session, scope).await
        }
        Request::WorktreeScan { session } => worktree_scan::call(server, &session).await,
        Request::WorktreeReview {
            session,
            note,
            comments,
            file_comments,
        } => worktree_review::call(server, &session, note, comments, file_comments).await,
        Request::RunStart {
            repo,
            task,
            worktree,
            model,
        } => run_start::call(server, repo, task, worktree, model).await,
        Request::TurnStart { session, text } => turn_start::call(server, &session, text).await,
        Request::TurnInterrupt { session } => turn_interrupt::call(server, &session).await,
        Request::SessionStayInCheckout { session } => {
            session_stay_in_checkout::call(server, &session).await
        }
        Request::SessionLand { session, message } => {
            session_land::call(server, peer, &session, message).await
        }
        Request::SessionDontAsk { session, on } => {
            session_dont_ask::call(server, peer, &session, on).await
        }
    }
}

/// Refuses `peer` when it is a process an agent's command started: what only a person may do
/// (`what`) is not done for the agent.
fn person_only(peer: &Peer, what: &str) -> Result<(), Refusal> {
    if peer.may_answer {
        Ok(())
    } else {
        Err(Refusal::new(
            "not_a_person",
            format!("a process an agent's command started may not {what}"),
        ))
    }
}

/// The result of a value the engine made.
pub(crate) fn json(value: impl serde::Serialize) -> Result<Value, Refusal> {
    serde_json::to_value(value).map_err(|e| Refusal::internal(e.to_string()))
}
