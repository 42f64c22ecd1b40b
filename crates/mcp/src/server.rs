//! The server of one connection: its active session, and each tool call run on a blocking
//! thread through the session's turn (the guard, the person through elicitation, the log).

use std::sync::{Arc, Mutex, PoisonError};

use nodwyn_core::call::result_text;
use nodwyn_core::guard::{AskKind, Decision, Effect, Verdict};
use nodwyn_core::person::{Person, Question, Reply};
use nodwyn_core::scheme::Source;
use nodwyn_core::scripts::{Target as SchemeTarget, eval};
use nodwyn_core::turn::{SessionRuntime, Turn};
use nodwyn_core::worktree::NewWorktree;
use nodwyn_protocol::TurnEnd;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::Options;
use crate::permission;
use crate::person::Eliciting;
use crate::tools::{self, Step, Target};

/// One connection's server.
#[derive(Clone)]
pub struct NodwynServer {
    options: Arc<Options>,
    active: Arc<Mutex<Option<Active>>>,
    /// The connection's spending of irreversible actions: one budget for every turn it runs,
    /// whatever it closes and resumes.
    spent: Arc<std::sync::atomic::AtomicU32>,
}

/// The connection's active session and its turn.
struct Active {
    runtime: Arc<SessionRuntime>,
    turn: Turn,
}

/// A tool call that did not give a result: its stable code and its sentence.
struct Failure {
    code: String,
    sentence: String,
}

impl Failure {
    fn new(code: &str, sentence: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            sentence: sentence.into(),
        }
    }
}

impl From<nodwyn_core::Error> for Failure {
    fn from(error: nodwyn_core::Error) -> Self {
        Self::new(error.code(), error.to_string())
    }
}

type Outcome = Result<Value, Failure>;

impl NodwynServer {
    /// A server for one connection.
    pub fn new(options: Options) -> Self {
        Self {
            options: Arc::new(options),
            active: Arc::new(Mutex::new(None)),
            spent: Arc::new(std::sync::atomic::AtomicU32::new(0)),
        }
    }

    /// Runs one tool call to its end (on a blocking thread).
    fn run(&self, target: Target, args: Value, person: &mut dyn Person) -> Outcome {
        let mut active = self.active.lock().unwrap_or_else(PoisonError::into_inner);
        match target {
            Target::Worktree(Step::Create) => {
                refuse_second(active.as_ref())?;
                let text = |key: &str| args[key].as_str().map(str::to_owned);
                let created = nodwyn_core::worktree::create(
                    &self.options.store,
                    &NewWorktree {
                        dir: self.options.repo.clone(),
                        base: text("base"),
                        pull_request: text("pr"),
                        name: text("name"),
                        location: self.options.location,
                        ports: self.options.ports,
                        ..NewWorktree::default()
                    },
                )?;
                let id = created.session.to_string();
                nodwyn_core::hand_to(&self.options.store, &id, MCP, MCP)?;
                *active = Some(self.activate(&id)?);
                Ok(json!(created))
            }
            Target::Worktree(Step::Resume) => {
                refuse_second(active.as_ref())?;
                let Some(session) = args["session"].as_str() else {
                    return Err(Failure::new(
                        "bad_arguments",
                        "worktree_resume takes {\"session\": ID}",
                    ));
                };
                self.refuse_another_repository(session)?;
                self.refuse_unhanded(session)?;
                let resumed = nodwyn_core::worktree::resume(&self.options.store, session)?;
                let dont_ask_ended = self.end_dont_ask(&resumed.session)?;
                let always_ended =
                    nodwyn_core::end_always(&self.options.store, &resumed.session, "mcp resume")?;
                *active = Some(self.activate(&resumed.session)?);
                let mut answer = json!(resumed);
                let mut notes = Vec::new();
                if dont_ask_ended {
                    notes.push(
                        "Don't ask was on for this session and is off for this connection: a person turns it on again with `nodwyn session dont-ask`",
                    );
                }
                if always_ended {
                    notes.push(
                        "what the person allowed for the rest of the session (\"always\") was for the client they answered through, and is asked again here",
                    );
                }
                if !notes.is_empty() {
                    answer["note"] = json!(notes.join("; "));
                }
                Ok(answer)
            }
            Target::Worktree(Step::List) => {
                let repository = nodwyn_core::repository_of(&self.options.repo)?;
                let (listed, _) = nodwyn_core::worktree::list(&self.options.store, &repository)?;
                Ok(json!(listed))
            }
            Target::Worktree(step) => {
                let session = current(active.as_mut())?;
                let id = session.runtime.id();
                let store = &self.options.store;
                match step {
                    Step::Status => {
                        let repository = session.runtime.session()?.repository;
                        let (listed, _) = nodwyn_core::worktree::list(store, &repository)?;
                        let mine = listed.into_iter().find(|w| w.session == id);
                        Ok(json!(mine))
                    }
                    Step::Diff => Ok(json!(nodwyn_core::worktree::diff(
                        store,
                        &id,
                        &self.options.settings.limits
                    )?)),
                    Step::Land => {
                        let called = session.turn.call("git-land", &args, person)?;
                        Ok(called.result)
                    }
                    Step::Discard => {
                        let force = args["force"].as_bool().unwrap_or(false);
                        if force {
                            approve_discard(&id, person)?;
                        }
                        let removed = nodwyn_core::worktree::remove(store, &id, force, false)?;
                        end(active.take());
                        Ok(json!(removed))
                    }
                    Step::Keep => {
                        let kept = nodwyn_core::worktree::keep(store, &id)?;
                        end(active.take());
                        Ok(json!(kept))
                    }
                    Step::Close => {
                        let closed = nodwyn_core::worktree::close(store, &id)?;
                        end(active.take());
                        Ok(json!(closed))
                    }
                    Step::Create | Step::Resume | Step::List => unreachable!("handled above"),
                }
            }
            Target::Primitive(name) => {
                let session = current(active.as_mut())?;
                Ok(session.turn.call(&name, &args, person)?.result)
            }
            Target::PermissionPrompt => {
                let input = &args["input"];
                let tool = args["tool_name"].as_str().unwrap_or_default();
                let answer = match (
                    current(active.as_mut()),
                    permission::as_primitive(tool, input),
                ) {
                    (Err(failure), _) => {
                        permission::deny(format!("{}: {}", failure.code, failure.sentence))
                    }
                    (_, Err(why)) => permission::deny(why),
                    (Ok(session), Ok((primitive, judged))) => {
                        match session
                            .turn
                            .judge(primitive, &judged, person, permission::UNCONFINED)
                        {
                            Ok(_) => permission::allow(input),
                            Err(error) => permission::deny(format!("{}: {error}", error.code())),
                        }
                    }
                };
                Ok(Value::String(answer.to_string()))
            }
            Target::Scheme => {
                let session = current(active.as_mut())?;
                let Some(program) = args["program"].as_str() else {
                    return Err(Failure::new(
                        "bad_arguments",
                        "scheme takes {\"program\": \"...\"}, a Scheme program as a string",
                    ));
                };
                let spent = session.turn.spending();
                let scripting = session
                    .runtime
                    .scripting(&self.options.scripts, Some(&spent));
                let id = session.runtime.id();
                let ran = eval(
                    &scripting,
                    SchemeTarget::Session(&id),
                    person,
                    Source::expression(program),
                )?;
                Ok(ran.value.json.unwrap_or(Value::String(ran.value.text)))
            }
        }
    }

    /// A connection works on its own repository: a session of another is refused, so an agent
    /// cannot reach into a repository it was not started in.
    fn refuse_another_repository(&self, session: &str) -> Result<(), Failure> {
        let repository = nodwyn_core::repository_of(&self.options.repo)?;
        let stored = self.options.store.find(session)?;
        let theirs = nodwyn_core::Session::load(&stored)?.repository;
        if theirs == repository {
            return Ok(());
        }
        Err(Failure::new(
            "other_repository",
            format!(
                "session {} belongs to {}, not to {}, the repository this server works on",
                stored.id,
                theirs.display(),
                repository.display()
            ),
        ))
    }

    /// A connection resumes only sessions an MCP client opened, or that the person handed to MCP
    /// clients: not the person's own session, with its files and its switches.
    fn refuse_unhanded(&self, session: &str) -> Result<(), Failure> {
        let stored = self.options.store.find(session)?;
        if nodwyn_core::Session::load(&stored)?
            .handed_to
            .iter()
            .any(|to| to == MCP)
        {
            return Ok(());
        }
        Err(Failure::new(
            "not_handed_over",
            format!(
                "session {} was not opened through MCP, and an MCP client resumes only sessions opened through MCP or handed to MCP clients by the person (`nodwyn session hand {}` on a terminal)",
                stored.id,
                stored.id.short()
            ),
        ))
    }

    /// Turns Don't ask off for a session this connection resumes: a person's Don't ask is for
    /// the client it was turned on for. Returns whether it was on.
    fn end_dont_ask(&self, session: &str) -> Result<bool, Failure> {
        let stored = self.options.store.find(session)?;
        if nodwyn_core::Session::load(&stored)?.dont_ask.is_none() {
            return Ok(false);
        }
        nodwyn_core::set_dont_ask(&self.options.store, session, false, "mcp resume")?;
        Ok(true)
    }

    /// The runtime and a turn of session `id`, for the connection to work in.
    fn activate(&self, id: &str) -> Result<Active, Failure> {
        let runtime = SessionRuntime::open(
            self.options.store.clone(),
            id,
            Arc::clone(&self.options.registry),
            self.options.settings.clone(),
            self.options.services.clone(),
        )?;
        let turn = runtime.start_turn_spending(Arc::clone(&self.spent))?;
        Ok(Active { runtime, turn })
    }
}

/// The kind of client an MCP connection is, in `session.handed` records.
const MCP: &str = "mcp";

/// A second active session on one connection is refused.
fn refuse_second(active: Option<&Active>) -> Result<(), Failure> {
    match active {
        Some(active) => Err(Failure::new(
            "already_active",
            format!(
                "session {} is active on this connection; close it (worktree_close) or discard it (worktree_discard) before opening another",
                active.runtime.id()
            ),
        )),
        None => Ok(()),
    }
}

/// The active session, or the refusal that says how to get one.
fn current(active: Option<&mut Active>) -> Result<&mut Active, Failure> {
    active.ok_or_else(|| {
        Failure::new(
            "no_active_session",
            "no session is active on this connection: call worktree_create to open one in a new worktree, or worktree_resume with a session made earlier",
        )
    })
}

/// Ends the connection's turn in a session it leaves.
fn end(active: Option<Active>) {
    if let Some(active) = active
        && let Err(error) =
            active
                .turn
                .end(TurnEnd::Finished, nodwyn_protocol::TurnUsage::default(), "")
    {
        tracing::info!(error = %error, "could not record the end of the turn");
    }
}

/// Discarding what would be lost is the person's decision, each time: a security confirm, which
/// the agent's own client cannot give.
fn approve_discard(id: &str, person: &mut dyn Person) -> Result<(), Failure> {
    if !person.answers_security_confirms() {
        return Err(Failure::new(
            "needs_person",
            format!(
                "discarding what would be lost is a person's decision, which the client of the agent asking for it cannot give; nothing was removed (`nodwyn worktree remove --force {id}` from a terminal discards it)"
            ),
        ));
    }
    let question = Question {
        session: id.to_owned(),
        effect: Effect::named(format!(
            "discard session {id}'s worktree with the changes and commits that would be lost"
        )),
        verdict: Verdict {
            decision: Decision::Ask(AskKind::Security),
            by: nodwyn_core::guard::DecidedBy::Rule,
            why: "what is discarded cannot be had back".to_owned(),
        },
        offer: None,
    };
    match person.ask(&question) {
        Some(Reply::Allow | Reply::Always) => Ok(()),
        Some(Reply::Decline) => Err(Failure::new(
            "declined",
            "the person declined discarding the worktree; nothing was removed",
        )),
        None => Err(Failure::new(
            "needs_person",
            "discarding what would be lost needs a person's approval, and this client cannot ask; nothing was removed (`nodwyn worktree remove --force ID` from a terminal discards it)",
        )),
    }
}

impl ServerHandler for NodwynServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("nodwyn", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Work in a nodwyn session: call worktree_create first (your own git worktree and branch), then the fs_*, shell_exec and git_* tools; land your work with worktree_land. Every call is judged by nodwyn's guard; a refusal starts with its code and says why.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::all(
            &self.options.registry,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(target) = tools::target(&self.options.registry, &request.name) else {
            return Err(McpError::invalid_params(
                format!("no tool is named `{}`", request.name),
                None,
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let server = self.clone();
        let mut person = Eliciting {
            peer: context.peer.clone(),
            handle: tokio::runtime::Handle::current(),
        };
        let mut task = tokio::task::spawn_blocking(move || server.run(target, args, &mut person));
        // The client cancelling the request, or going away, interrupts the call: a command and
        // everything it started end, a landing stops where it can say what state it left.
        let interrupt = self.options.settings.interrupt.clone();
        let joined = tokio::select! {
            joined = &mut task => joined,
            () = context.ct.cancelled() => {
                interrupt.raise();
                task.await
            }
        };
        interrupt.lower();
        let outcome = joined
            .unwrap_or_else(|join| Err(Failure::new("failed", format!("the call failed: {join}"))));
        Ok(match outcome {
            Ok(value) => CallToolResult::success(vec![ContentBlock::text(result_text(&value))]),
            Err(failure) => CallToolResult::error(vec![ContentBlock::text(format!(
                "{}: {}",
                failure.code, failure.sentence
            ))]),
        }
        .into())
    }
}
