//! The turn loop: compose the prompt, call the model, run its tool calls through the guard, feed
//! the results back, until the model answers without a tool call, a limit is reached, or the
//! person interrupts. Everything is recorded in the session's log and told to the front-end.

mod plan;
mod subagents;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How the line begins that a tool's result starts with when the session moved into its
/// worktree before the call; a front-end that said so already passes over it.
pub const MOVED_NOTICE: &str = "nodwyn: this session moved into its own worktree";

use nodwyn_core::person::Person;
use nodwyn_core::scheme::{Agent as Declared, Source};
use nodwyn_core::scripts::{Target, compose, eval, on_turn};
use nodwyn_core::turn::{SessionRuntime, Turn, conversation};
use nodwyn_model::{Model, Request, StopReason, StreamEvent, ToolCall};
use nodwyn_protocol::{
    Item, ModelCall, Notification, ToolCallItem, TurnEnd, TurnUsage, WorktreeMode,
};

use crate::frontend::{Frontend, FrontendPerson};
use crate::history::{INTERRUPTED, fitted, messages};
use crate::options::Options;
use crate::tools::{AGENT_TOOL, SCHEME_TOOL, agent_tool, cut, offered};
use nodwyn_core::call::result_text;

pub use subagents::{MAX_SUBAGENT_DEPTH, Profiles};

/// The most tool calls of one answer that run, whatever model produced it (nodwyn's own client
/// refuses more before the answer ends).
pub const MAX_TOOL_CALLS_PER_ANSWER: usize = nodwyn_model::MAX_TOOL_CALLS;

/// How many bytes of a model's output are counted as one token when its size is estimated from
/// what arrived. Text and code run about 3 to 4 bytes a token, so the estimate falls short of
/// what an honest server reports and only catches one that reports less than it sent.
pub const BYTES_PER_TOKEN: u64 = 4;

/// How a turn ended, and what it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// How it ended.
    pub end: TurnEnd,
    /// The model's final text (empty unless it finished).
    pub answer: String,
    /// What the turn used.
    pub usage: TurnUsage,
}

/// One session's agent: its runtime, its model, the conversation so far.
pub struct Agent {
    runtime: Arc<SessionRuntime>,
    model: Arc<dyn Model>,
    options: Options,
    frontend: Arc<dyn Frontend>,
    items: Vec<Item>,
    run_usage: TurnUsage,
    /// The tokens `--max-tokens` counts in this run: what the server reported read, and the
    /// larger of what it reported written and what arrived ([`BYTES_PER_TOKEN`]).
    run_tokens: u64,
    in_git: bool,
    /// The sub-agents the session's strategy declared, offered as the `agent` tool.
    agents: Vec<Declared>,
    /// The sub-agents speaking now, outermost first; empty for the session's own agent.
    speaking: Vec<Declared>,
    /// The turn's plan, as the agent marked it (empty: the strategy declared none).
    plan: Vec<nodwyn_protocol::PlanStep>,
    /// Finds a model by the name of one of the person's profiles, for a sub-agent that names one.
    profiles: Option<Arc<Profiles>>,
}

/// What a tool call gave the model.
struct ToolOutcome {
    ok: bool,
    content: String,
    decision: Option<String>,
}

impl Agent {
    /// The agent of `runtime`'s session, its conversation read back from the session's log.
    pub fn new(
        runtime: Arc<SessionRuntime>,
        model: Arc<dyn Model>,
        options: Options,
        frontend: Arc<dyn Frontend>,
    ) -> Result<Self, nodwyn_core::Error> {
        let items = conversation(runtime.store(), &runtime.id())?
            .into_iter()
            .map(|(_, item)| item)
            .collect();
        let session = runtime.session()?;
        let in_git = session.worktree.is_some()
            || nodwyn_core::repository_of(&session.root).is_ok_and(|r| r == session.repository);
        Ok(Self {
            runtime,
            model,
            options,
            frontend,
            items,
            run_usage: TurnUsage::default(),
            run_tokens: 0,
            in_git,
            agents: Vec::new(),
            speaking: Vec::new(),
            plan: Vec::new(),
            profiles: None,
        })
    }

    /// Lets sub-agents run on the person's other model profiles (`'model "PROFILE"`), found by
    /// `profiles`; without it, a sub-agent that names a profile is refused.
    pub fn with_profiles(mut self, profiles: Arc<Profiles>) -> Self {
        self.profiles = Some(profiles);
        self
    }

    /// The session's runtime.
    pub fn runtime(&self) -> &Arc<SessionRuntime> {
        &self.runtime
    }

    /// Stops `auto` from opening a worktree for the rest of the session (`/worktree off`): the
    /// session works in its checkout, every write asked.
    pub fn stay_in_checkout(&mut self) {
        self.options.worktree = WorktreeMode::Off;
    }

    /// Where the session works, as its options say.
    pub fn worktree_mode(&self) -> WorktreeMode {
        self.options.worktree
    }

    /// What this run used so far, every turn together.
    pub fn usage(&self) -> TurnUsage {
        self.run_usage
    }

    /// Works the person's message `text` to the end of the turn. An interrupt raised before
    /// the turn began belonged to the turn before it.
    pub async fn turn(&mut self, text: &str) -> TurnOutcome {
        self.runtime.settings().interrupt.lower();
        let session = self.runtime.id();
        let turn = match self.runtime.start_turn() {
            Ok(turn) => turn,
            Err(error) => {
                return TurnOutcome {
                    end: TurnEnd::Failed {
                        why: error.to_string(),
                    },
                    answer: String::new(),
                    usage: TurnUsage::default(),
                };
            }
        };
        let number = turn.number();
        self.frontend.notify(&Notification::TurnStarted {
            session: session.clone(),
            turn: number,
        });
        let mut work = Working {
            turn: Some(turn),
            usage: TurnUsage::default(),
            items: 0,
            answer: String::new(),
        };
        let end = match self.work(&mut work, text).await {
            Ok(end) => end,
            Err(why) => TurnEnd::Failed { why },
        };
        let answer = if end == TurnEnd::Finished {
            std::mem::take(&mut work.answer)
        } else {
            String::new()
        };
        if let Some(turn) = work.turn.take()
            && let Err(error) = turn.end(end.clone(), work.usage, &answer)
        {
            tracing::info!(error = %error, "could not record the end of the turn");
        }
        self.frontend.notify(&Notification::TurnCompleted {
            session,
            turn: number,
            end: end.clone(),
            usage: work.usage,
            answer: answer.clone(),
        });
        TurnOutcome {
            end,
            answer,
            usage: work.usage,
        }
    }

    async fn work(&mut self, work: &mut Working, text: &str) -> Result<TurnEnd, String> {
        let text = match self.on_turn(work, text).await? {
            Some(rewritten) => {
                self.add(
                    work,
                    Item::Notice {
                        text: format!(
                            "the repository's strategy (on-turn) changed the person's message, which was: {text}"
                        ),
                    },
                )?;
                rewritten
            }
            None => text.to_owned(),
        };
        self.add(work, Item::UserMessage { text })?;
        let (system, agents, plan) = self.compose(None).await?;
        self.agents = agents;
        self.plan = plan::pending(plan);
        if !self.plan.is_empty() {
            self.tell_plan();
        }
        let (end, answer) = self.converse(work, system).await?;
        work.answer = answer;
        Ok(end)
    }

    /// The conversation in `self.items` (the session's agent's, or a sub-agent's) worked until
    /// the model answers without a tool call, a limit, or an interrupt; with the final text.
    async fn converse(
        &mut self,
        work: &mut Working,
        mut system: String,
    ) -> Result<(TurnEnd, String), String> {
        let interrupted = || Ok((TurnEnd::Interrupted, String::new()));
        loop {
            if self.interrupted() {
                return interrupted();
            }
            if let Some(limit) = self.limit_reached() {
                return Ok((TurnEnd::Limit { why: limit }, String::new()));
            }
            let in_worktree = self
                .runtime
                .session()
                .map_err(|e| e.to_string())?
                .active_worktree()
                .is_some();
            let request = Request {
                messages: fitted(&messages(&self.items), &system, self.options.context_tokens),
                system: system.clone(),
                tools: {
                    let mut tools = offered(self.runtime.registry(), in_worktree);
                    tools.retain(|tool| self.offers(&tool.name));
                    if self.may_call_agents() {
                        let names: Vec<String> =
                            self.agents.iter().map(|agent| agent.name.clone()).collect();
                        tools.push(agent_tool(&names));
                    }
                    if self.marks_plan() {
                        tools.push(plan::plan_tool(&self.plan));
                    }
                    tools
                },
            };
            let item = work.next_item();
            self.frontend.notify(&Notification::ItemStarted {
                item: item.clone(),
                kind: "assistant_message".to_owned(),
                tool: None,
            });
            let frontend = Arc::clone(&self.frontend);
            let delta_item = item.clone();
            // The text's bytes as they arrive, for a token limit the server's report cannot pass.
            let streamed = Arc::new(AtomicU64::new(0));
            let counting = Arc::clone(&streamed);
            let mut sink = move |event: StreamEvent| match event {
                StreamEvent::TextDelta(text) => {
                    counting.fetch_add(text.len() as u64, Ordering::Relaxed);
                    frontend.notify(&Notification::ItemDelta {
                        item: delta_item.clone(),
                        text,
                    });
                }
                StreamEvent::ReasoningDelta(text) => {
                    counting.fetch_add(text.len() as u64, Ordering::Relaxed);
                    frontend.notify(&Notification::ItemReasoning {
                        item: delta_item.clone(),
                        text,
                    });
                }
                StreamEvent::ToolCall { .. } => {}
            };
            let interrupt = self.runtime.settings().interrupt.clone();
            let allowance = self
                .options
                .max_tokens
                .map(|most| most.saturating_sub(self.run_tokens));
            let answer = tokio::select! {
                answer = self.model.complete(&request, &mut sink) => answer,
                () = raised(&interrupt) => return interrupted(),
                () = passes(&streamed, allowance) => {
                    // Dropping the call closed its stream.
                    self.run_tokens += tokens_in(streamed.load(Ordering::Relaxed));
                    let why = self.limit_reached().unwrap_or_default();
                    return Ok((TurnEnd::Limit { why }, String::new()));
                }
            };
            let answer = answer.map_err(|e| e.to_string())?;
            let call = ModelCall {
                model: self.model.describe(),
                input_tokens: answer.usage.input_tokens,
                output_tokens: answer.usage.output_tokens,
                stop: serde_json::to_value(&answer.stop)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| format!("{:?}", answer.stop)),
                first_output_ms: answer.first_output.map(|d| d.as_millis() as u64),
                tries: answer.tries,
            };
            for usage in [&mut work.usage, &mut self.run_usage] {
                usage.model_calls += 1;
                usage.input_tokens += call.input_tokens;
                usage.output_tokens += call.output_tokens;
            }
            self.run_tokens +=
                call.input_tokens + call.output_tokens.max(tokens_in(answer.received));
            work.turn()
                .record_model_call(call.clone())
                .map_err(|e| e.to_string())?;
            self.frontend.notify(&Notification::ModelCalled(call));
            let assistant = Item::AssistantMessage {
                text: answer.text.clone(),
                tool_calls: answer
                    .tool_calls
                    .iter()
                    .map(|c| ToolCallItem {
                        call_id: c.id.clone(),
                        tool: c.name.clone(),
                        arguments: c.arguments.clone(),
                    })
                    .collect(),
            };
            self.record(work, &item, assistant)?;
            if answer.stop == StopReason::Refusal {
                return Ok((TurnEnd::Refused, answer.text));
            }
            if answer.tool_calls.is_empty() {
                return Ok((TurnEnd::Finished, answer.text));
            }
            let too_many = (answer.tool_calls.len() > MAX_TOOL_CALLS_PER_ANSWER).then(|| {
                format!(
                    "the model's answer made {} tool calls, more than the {MAX_TOOL_CALLS_PER_ANSWER} one answer may make",
                    answer.tool_calls.len()
                )
            });
            let mut calls = answer.tool_calls.iter();
            while let Some(call) = calls.next() {
                let item = work.next_item();
                self.frontend.notify(&Notification::ItemStarted {
                    item: item.clone(),
                    kind: "tool_call".to_owned(),
                    tool: Some(call.name.clone()),
                });
                // Each call runs only within the run's limits: a call before it may have spent
                // them (a sub-agent's model calls, tokens), or its own answer did.
                if let Some(why) = too_many.clone().or_else(|| self.limit_reached()) {
                    let not_run = || failure(format!("not run: {why}"));
                    self.record(work, &item, not_run().answering(call))?;
                    for call in calls.by_ref() {
                        let item = work.next_item();
                        self.record(work, &item, not_run().answering(call))?;
                    }
                    return Ok((TurnEnd::Limit { why }, String::new()));
                }
                let outcome = if self.interrupted() {
                    failure(INTERRUPTED.to_owned())
                } else {
                    let (outcome, moved) = self.run_tool(work, call).await;
                    if moved {
                        let speaker = self.speaker().map(|agent| agent.name.clone());
                        system = self.compose(speaker.as_deref()).await?.0;
                    }
                    outcome
                };
                self.record(work, &item, outcome.answering(call))?;
                if self.interrupted() {
                    for call in calls.by_ref() {
                        let item = work.next_item();
                        self.record(work, &item, failure(INTERRUPTED.to_owned()).answering(call))?;
                    }
                    return interrupted();
                }
            }
        }
    }

    /// Runs one tool call; in `auto` mode a call that would change anything first moves the
    /// session into its own worktree (then `true`: the prompt must be composed again).
    async fn run_tool(&mut self, work: &mut Working, call: &ToolCall) -> (ToolOutcome, bool) {
        let mut notice = None;
        if self.needs_worktree(&call.name) {
            let runtime = Arc::clone(&self.runtime);
            let request = self.options.new_worktree.clone();
            let moved =
                tokio::task::spawn_blocking(move || runtime.move_to_worktree(&request)).await;
            match moved {
                Ok(Ok(created)) => {
                    let text = format!(
                        "{MOVED_NOTICE} {} on branch {} before this call; every relative path now resolves there",
                        created.worktree.path.display(),
                        created.worktree.branch
                    );
                    self.frontend.notify(&Notification::SessionWorktree {
                        session: self.runtime.id(),
                        root: created.worktree.path.clone(),
                        branch: created.worktree.branch.clone(),
                        uncommitted: created.uncommitted,
                    });
                    let item = work.next_item();
                    if let Err(why) = self.record(work, &item, Item::Notice { text: text.clone() })
                    {
                        return (failure(why), false);
                    }
                    notice = Some(text);
                }
                Ok(Err(error)) => {
                    return (
                        failure(format!(
                            "{}: the session could not move into its own worktree before this call, so it did not run: {error}",
                            error.code()
                        )),
                        false,
                    );
                }
                Err(join) => return (failure(format!("the call failed: {join}")), false),
            }
        }
        let mut outcome = if !self.offers(&call.name) {
            failure(match self.speaker() {
                Some(agent) if call.name == AGENT_TOOL => format!(
                    "refused: the sub-agent {} may not hand tasks to other sub-agents",
                    agent.name
                ),
                Some(agent) => format!(
                    "refused: {} is not one of the sub-agent {}'s tools",
                    call.name, agent.name
                ),
                None => format!("refused: {} is not offered", call.name),
            })
        } else if call.name == AGENT_TOOL {
            Box::pin(self.run_subagent(work, call)).await
        } else if call.name == plan::PLAN_TOOL {
            self.mark_plan(call)
        } else if call.name == SCHEME_TOOL {
            self.run_scheme(work, call).await
        } else {
            self.run_primitive(work, call).await
        };
        outcome.content = cut(outcome.content, self.options.tool_result_chars);
        let moved = notice.is_some();
        if let Some(notice) = notice {
            outcome.content = format!("{notice}\n{}", outcome.content);
        }
        (outcome, moved)
    }

    /// Whether `tool` must first move the session into a worktree: `auto` mode, in a git
    /// checkout with no worktree yet, and a tool that may change something.
    fn needs_worktree(&self, tool: &str) -> bool {
        if self.options.worktree != WorktreeMode::Auto || !self.in_git {
            return false;
        }
        let changes = tool == SCHEME_TOOL
            || self
                .runtime
                .registry()
                .get(tool)
                .is_ok_and(|primitive| !primitive.read_only());
        changes
            && self
                .runtime
                .session()
                .is_ok_and(|session| session.worktree.is_none())
    }

    async fn run_primitive(&self, work: &mut Working, call: &ToolCall) -> ToolOutcome {
        let Some(mut turn) = work.turn.take() else {
            return failure("the turn has ended".to_owned());
        };
        let name = call.name.clone();
        let args = call.arguments.clone();
        let frontend = Arc::clone(&self.frontend);
        let ran = tokio::task::spawn_blocking(move || {
            let mut person = FrontendPerson(frontend);
            let result = turn.call(&name, &args, &mut person as &mut dyn Person);
            (turn, result)
        })
        .await;
        match ran {
            Ok((turn, result)) => {
                work.turn = Some(turn);
                match result {
                    Ok(called) => ToolOutcome {
                        ok: true,
                        content: result_text(&called.result),
                        decision: (called.decision.by != nodwyn_core::guard::DecidedBy::Rule)
                            .then(|| called.decision.why.clone()),
                    },
                    Err(error) => ToolOutcome {
                        ok: false,
                        content: format!("{}: {error}", error.code()),
                        decision: None,
                    },
                }
            }
            Err(join) => failure(format!("the call failed: {join}")),
        }
    }

    async fn run_scheme(&self, work: &Working, call: &ToolCall) -> ToolOutcome {
        let Some(program) = call.arguments["program"].as_str().map(str::to_owned) else {
            return failure(
                "bad_arguments: scheme takes {\"program\": \"...\"}, a Scheme program as a string"
                    .to_owned(),
            );
        };
        let runtime = Arc::clone(&self.runtime);
        let scripts = self.options.scripts.clone();
        let frontend = Arc::clone(&self.frontend);
        // The program's calls spend the turn's budget of irreversible actions.
        let spent = work.turn().spending();
        // A sub-agent's program calls only the tools its definition gives it.
        let only = self.speaker().and_then(|agent| agent.tools.clone());
        let ran = tokio::task::spawn_blocking(move || {
            let scripting = runtime
                .scripting(&scripts, Some(&spent))
                .limited_to(only.as_deref());
            // The session as the runtime follows it: its log is read only as far as it grew.
            let session = runtime.session()?;
            eval(
                &scripting,
                Target::Loaded(&session),
                &mut FrontendPerson(frontend),
                Source::expression(program),
            )
        })
        .await;
        match ran {
            Ok(Ok(ran)) => ToolOutcome {
                ok: true,
                content: ran
                    .value
                    .json
                    .as_ref()
                    .map(result_text)
                    .unwrap_or(ran.value.text),
                decision: None,
            },
            Ok(Err(error)) => failure(format!("{}: {error}", error.code())),
            Err(join) => failure(format!("the program failed: {join}")),
        }
    }

    /// The message the repository's approved strategy sends instead of `text` (its
    /// `(on-turn task)`), if it changes it; its calls spend the turn's budget.
    async fn on_turn(&self, work: &Working, text: &str) -> Result<Option<String>, String> {
        let runtime = Arc::clone(&self.runtime);
        let scripts = self.options.scripts.clone();
        let frontend = Arc::clone(&self.frontend);
        let spent = work.turn().spending();
        let text = text.to_owned();
        tokio::task::spawn_blocking(move || {
            let scripting = runtime.scripting(&scripts, Some(&spent));
            let session = runtime
                .session()
                .map_err(|e| format!("the strategy's (on-turn) failed: {e}"))?;
            on_turn(&scripting, &session, &mut FrontendPerson(frontend), &text)
                .map(|(rewritten, _)| rewritten)
                .map_err(|e| format!("the strategy's (on-turn) failed: {e}"))
        })
        .await
        .map_err(|e| format!("the strategy's (on-turn) failed: {e}"))?
    }

    /// The system prompt (of sub-agent `agent`, or the session's agent's), composed in Scheme
    /// for the session as it is now, and the names of the sub-agents declared.
    /// Whether the agent speaking now marks a plan: the session's own agent, when the strategy
    /// declared one.
    fn marks_plan(&self) -> bool {
        self.speaking.is_empty() && !self.plan.is_empty()
    }

    async fn compose(
        &self,
        agent: Option<&str>,
    ) -> Result<(String, Vec<Declared>, Vec<String>), String> {
        let agent = agent.map(str::to_owned);
        let runtime = Arc::clone(&self.runtime);
        let scripts = self.options.scripts.clone();
        let frontend = Arc::clone(&self.frontend);
        tokio::task::spawn_blocking(move || {
            let scripting = runtime.scripting(&scripts, None);
            let session = runtime
                .session()
                .map_err(|e| format!("the system prompt could not be composed: {e}"))?;
            compose(
                &scripting,
                Target::Loaded(&session),
                &mut FrontendPerson(frontend),
                agent.as_deref(),
            )
            .map(|composed| (composed.prompt, composed.agents, composed.plan))
            .map_err(|e| format!("the system prompt could not be composed: {e}"))
        })
        .await
        .map_err(|e| format!("the system prompt could not be composed: {e}"))?
    }

    /// Keeps `item` in the conversation, the log and the front-end.
    fn add(&mut self, work: &mut Working, item: Item) -> Result<(), String> {
        let id = work.next_item();
        self.record(work, &id, item)
    }

    fn record(&mut self, work: &mut Working, id: &str, item: Item) -> Result<(), String> {
        work.turn()
            .record_for(item.clone(), self.speaker_path().as_deref(), Some(id))
            .map_err(|e| e.to_string())?;
        self.frontend.notify(&Notification::ItemCompleted {
            item: id.to_owned(),
            agent: self.speaker_path(),
            value: item.clone(),
        });
        self.items.push(item);
        Ok(())
    }

    fn interrupted(&self) -> bool {
        self.runtime.settings().interrupt.is_raised()
    }

    /// The limit this run has reached, in words, if any.
    fn limit_reached(&self) -> Option<String> {
        if let Some(most) = self.options.max_model_calls
            && self.run_usage.model_calls >= most
        {
            return Some(format!(
                "the run reached its limit of {most} model call(s) (--max-model-calls)"
            ));
        }
        if let Some(most) = self.options.max_tokens
            && self.run_tokens >= most
        {
            let reported = self.run_usage.input_tokens + self.run_usage.output_tokens;
            let counted = if self.run_tokens > reported {
                format!(
                    " (counting what arrived, about one token in {BYTES_PER_TOKEN} bytes; the server reported {reported})"
                )
            } else {
                String::new()
            };
            return Some(format!(
                "the run reached its limit of {most} tokens (--max-tokens): it used {}{counted}",
                self.run_tokens
            ));
        }
        None
    }
}

/// A turn in progress.
struct Working {
    /// Lent to a blocking thread while a call runs.
    turn: Option<Turn>,
    usage: TurnUsage,
    items: u32,
    answer: String,
}

impl Working {
    fn next_item(&mut self) -> String {
        self.items += 1;
        let turn = self.turn.as_ref().map_or(0, Turn::number);
        format!("{turn}.{}", self.items)
    }

    fn turn(&self) -> &Turn {
        self.turn
            .as_ref()
            .expect("the turn is back from its blocking call")
    }
}

impl ToolOutcome {
    /// The conversation's item for `call`'s result.
    fn answering(self, call: &ToolCall) -> Item {
        Item::ToolResult {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            ok: self.ok,
            content: self.content,
            decision: self.decision,
        }
    }
}

fn failure(content: String) -> ToolOutcome {
    ToolOutcome {
        ok: false,
        content,
        decision: None,
    }
}

/// The tokens `bytes` of output are counted as, rounded up.
fn tokens_in(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// Resolves once the text `streamed` so far passes `allowance` tokens; never without one.
async fn passes(streamed: &AtomicU64, allowance: Option<u64>) {
    let Some(allowance) = allowance else {
        return std::future::pending().await;
    };
    while tokens_in(streamed.load(Ordering::Relaxed)) <= allowance {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Resolves once the interrupt flag is raised.
async fn raised(interrupt: &nodwyn_core::prim::Interrupt) {
    while !interrupt.is_raised() {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
