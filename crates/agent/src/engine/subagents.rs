//! Sub-agents: who is speaking in a turn (the session's agent, or a chain of sub-agents), what
//! each is offered (its declared `'tools`, the `agent` tool only where `'agents #t` and the depth
//! allow), and running one: its own conversation, system prompt and model profile, inside the
//! caller's turn, its final answer the call's result.

use std::sync::Arc;

use nodwyn_core::scheme::Agent as Declared;
use nodwyn_model::{Model, ToolCall};
use nodwyn_protocol::{Item, TurnEnd};

use super::{Agent, ToolOutcome, Working, failure};
use crate::history::INTERRUPTED;
use crate::tools::AGENT_TOOL;

/// Finds the model of one of the person's model profiles by its name.
pub type Profiles = dyn Fn(&str) -> Result<Arc<dyn Model>, String> + Send + Sync;

/// How deep sub-agents may nest: the session's agent calls one, which (when its definition
/// allows) may call one more.
pub const MAX_SUBAGENT_DEPTH: usize = 2;

impl Agent {
    /// The sub-agent speaking now, if one is.
    pub(super) fn speaker(&self) -> Option<&Declared> {
        self.speaking.last()
    }

    /// Who is speaking, for the log: the sub-agents' names, outermost first, joined by `/`.
    pub(super) fn speaker_path(&self) -> Option<String> {
        (!self.speaking.is_empty()).then(|| {
            self.speaking
                .iter()
                .map(|agent| agent.name.as_str())
                .collect::<Vec<_>>()
                .join("/")
        })
    }

    /// Whether whoever speaks now may hand a task to a sub-agent: the session's agent may, a
    /// sub-agent only when its definition says so and the depth allows it.
    pub(super) fn may_call_agents(&self) -> bool {
        !self.agents.is_empty()
            && match self.speaker() {
                None => true,
                Some(agent) => agent.may_call_agents && self.speaking.len() < MAX_SUBAGENT_DEPTH,
            }
    }

    /// Whether tool `name` is offered to whoever speaks now (a sub-agent's `'tools`).
    pub(super) fn offers(&self, name: &str) -> bool {
        if name == AGENT_TOOL {
            return self.may_call_agents();
        }
        if name == super::plan::PLAN_TOOL {
            return self.marks_plan();
        }
        self.speaker()
            .and_then(|agent| agent.tools.as_ref())
            .is_none_or(|tools| tools.iter().any(|tool| tool == name))
    }

    /// Runs sub-agent `call.arguments.name` on `call.arguments.task`: its own conversation with
    /// its own system prompt (`agent-system-prompt`), in the session's worktree, through the same
    /// turn (the guard's budget, the log, the token and call limits); its final answer is the
    /// call's result.
    pub(super) async fn run_subagent(
        &mut self,
        work: &mut Working,
        call: &ToolCall,
    ) -> ToolOutcome {
        let name = call.arguments["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let task = call.arguments["task"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let Some(declared) = self.agents.iter().find(|agent| agent.name == name).cloned() else {
            let names: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
            return failure(format!(
                "bad_arguments: agent takes {{\"name\": one of {}, \"task\": what it should do}}",
                names.join(", ")
            ));
        };
        if task.trim().is_empty() {
            return failure(format!(
                "bad_arguments: agent {name} needs a task (what it should do)"
            ));
        }
        if self.speaking.iter().any(|agent| agent.name == name) {
            return failure(format!(
                "refused: the sub-agent {name} is already working on a task in this chain"
            ));
        }
        let model = match &declared.model {
            None => Arc::clone(&self.model),
            Some(profile) => match self.profiles.as_ref().map(|profiles| profiles(profile)) {
                Some(Ok(model)) => model,
                Some(Err(why)) => {
                    return failure(format!(
                        "the sub-agent {name} names the model profile {profile}: {why}"
                    ));
                }
                None => {
                    return failure(format!(
                        "the sub-agent {name} names the model profile {profile}, and this front-end has no model profiles to offer it"
                    ));
                }
            },
        };
        let system = match self.compose(Some(&name)).await {
            Ok((system, ..)) => system,
            Err(why) => return failure(why),
        };
        let outer = std::mem::take(&mut self.items);
        let outer_model = std::mem::replace(&mut self.model, model);
        self.speaking.push(declared);
        let worked = match self.add(work, Item::UserMessage { text: task }) {
            Ok(()) => self.converse(work, system).await,
            Err(why) => Err(why),
        };
        self.speaking.pop();
        self.model = outer_model;
        self.items = outer;
        match worked {
            Ok((TurnEnd::Finished, answer)) => ToolOutcome {
                ok: true,
                content: answer,
                decision: None,
            },
            Ok((TurnEnd::Interrupted, _)) => failure(INTERRUPTED.to_owned()),
            Ok((TurnEnd::Refused, answer)) => {
                failure(format!("the sub-agent {name} declined the task: {answer}"))
            }
            Ok((TurnEnd::Limit { why } | TurnEnd::Failed { why }, _)) | Err(why) => {
                failure(format!("the sub-agent {name} stopped: {why}"))
            }
        }
    }
}
