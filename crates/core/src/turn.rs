//! The session runtime and its turns: what a front-end holds while an agent works.
//!
//! A [`SessionRuntime`] holds, for the life of a session, what every call needs (the store, the
//! session, the primitives, the settings taken from the person's environment). Calls go through
//! a [`Turn`]: one message from the person to the model's final answer. The guard's budget of
//! irreversible actions spans the turn's calls; each call still passes the one call path
//! ([`crate::call`]): the guard, the person, the log. A turn also records the conversation
//! (`turn.start`, `conversation.item`, `model.call`, `turn.end`), so a session can be read
//! back ([`conversation`]) and resumed. `nodwyn call` is a turn of one call.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use nodwyn_prim::Registry;
use nodwyn_protocol::{Item, ModelCall, TurnEnd, TurnUsage};
use serde_json::Value;

use crate::Error;
use crate::call::{CallPath, Called, Calling, Learned, abbreviated, append, call_in_turn};
use crate::event::Event;
use crate::host::HostSettings;
use crate::person::Person;
use crate::services::Services;
use crate::session::{Followed, Session};
use crate::store::{Store, StoredSession};
use crate::worktree::{Created, NewWorktree};

/// One session, held open for an agent.
pub struct SessionRuntime {
    store: Store,
    stored: StoredSession,
    registry: Arc<Registry>,
    settings: HostSettings,
    /// The judge model and the strategy engines its calls are judged by.
    services: Services,
    /// The session as its log tells it, read again only as far as the log grew.
    followed: std::sync::Mutex<Followed>,
}

impl SessionRuntime {
    /// The runtime of session `id` (either form of its id, or its name), its calls judged by
    /// `services` after the guard's rules; refused when the session is closed.
    pub fn open(
        store: Store,
        id: &str,
        registry: Arc<Registry>,
        settings: HostSettings,
        services: Services,
    ) -> Result<Arc<Self>, Error> {
        let stored = store.find(id)?;
        let followed = Followed::load(&stored)?;
        let session = followed.session();
        if !session.open {
            return Err(Error::session_closed(&session.id));
        }
        Ok(Arc::new(Self {
            store,
            stored,
            registry,
            settings,
            services,
            followed: std::sync::Mutex::new(followed),
        }))
    }

    /// The session's full id.
    pub fn id(&self) -> String {
        self.stored.id.to_string()
    }

    /// The session as its log tells it now.
    pub fn session(&self) -> Result<Session, Error> {
        let mut followed = self
            .followed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        followed.refresh().cloned()
    }

    /// The primitives.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// What primitives take from the person's environment.
    pub fn settings(&self) -> &HostSettings {
        &self.settings
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// What Scheme needs to run in this session: its store, primitives and settings, with
    /// `options`; `spent` is a turn's spending when the script runs inside one.
    pub fn scripting<'a>(
        &'a self,
        options: &'a crate::scripts::ScriptOptions,
        spent: Option<&'a AtomicU32>,
    ) -> crate::scripts::Scripting<'a> {
        crate::scripts::Scripting {
            store: &self.store,
            registry: &self.registry,
            settings: &self.settings,
            judges: &self.services,
            options,
            spent,
            only: None,
        }
    }

    /// Records that question `request` about `action` waited `waited_seconds` for an answer
    /// nobody gave, and was declined.
    pub fn record_unanswered(
        &self,
        request: &str,
        action: &str,
        waited_seconds: u64,
    ) -> Result<(), Error> {
        append(
            &self.stored.log,
            Event::ApprovalTimedOut {
                request: request.to_owned(),
                action: action.to_owned(),
                waited_seconds,
            },
        )
    }

    /// Whether a turn is running in this session now, in any process (its lock is held).
    pub fn turn_running(&self) -> Result<bool, Error> {
        Ok(turn_lock(&self.stored)?.is_none())
    }

    /// Ends, as interrupted, a turn an earlier run left open (a killed process): `true` when
    /// there was one. Nothing is done while a turn runs (its lock is held).
    pub fn end_open_turn(&self) -> Result<bool, Error> {
        let Some(_held) = turn_lock(&self.stored)? else {
            return Ok(false);
        };
        self.end_left_open(&self.session()?)
    }

    /// Records the end, as interrupted, of the turn `session` shows open (one an earlier run
    /// left open): `true` when there was one. The caller holds the turn lock.
    fn end_left_open(&self, session: &Session) -> Result<bool, Error> {
        let Some(open) = session.open_turn else {
            return Ok(false);
        };
        append(
            &self.stored.log,
            Event::TurnEnd {
                turn: open,
                end: TurnEnd::Interrupted,
                usage: TurnUsage::default(),
                answer: String::new(),
            },
        )?;
        Ok(true)
    }

    /// Begins the session's next turn (recorded as `turn.start`); refused while another turn
    /// of the session runs (in this process or another). A turn an earlier run left open
    /// (interrupted hard, or crashed) is ended first, as interrupted.
    pub fn start_turn(self: &Arc<Self>) -> Result<Turn, Error> {
        self.start_turn_spending(Arc::new(AtomicU32::new(0)))
    }

    /// [`SessionRuntime::start_turn`], spending the budget of irreversible actions in `spent`,
    /// which a caller shares between turns (an MCP connection's one budget, whatever it resumes).
    pub fn start_turn_spending(self: &Arc<Self>, spent: Arc<AtomicU32>) -> Result<Turn, Error> {
        let Some(held) = turn_lock(&self.stored)? else {
            return Err(Error::declined_busy(&self.id()));
        };
        let session = self.session()?;
        self.end_left_open(&session)?;
        let number = session.turns + 1;
        // The worktree's files as the turn begins, for a review of what it changed; a worktree
        // that cannot be read now leaves the turn to begin without it (the review says so).
        let tree = crate::worktree::diff::turn_start_tree(
            &self.stored,
            &session,
            &self.settings.limits,
        )
        .unwrap_or_else(|error| {
            tracing::warn!(session = %session.id, %error, "the worktree's files as the turn began were not kept");
            None
        });
        append(&self.stored.log, Event::TurnStart { turn: number, tree })?;
        // The turn follows the log from where the runtime has read it, not from its start.
        let session = {
            let mut followed = self
                .followed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            followed.refresh()?;
            followed.clone()
        };
        Ok(Turn {
            runtime: Arc::clone(self),
            number,
            spent,
            session,
            learned: Learned::default(),
            _running: held,
        })
    }

    /// Makes a worktree for this session, which began in its checkout, and moves the session
    /// into it (worktree mode `auto`, at the first call that would change anything). `request`
    /// says where it goes and what it starts from; its folder is the session's checkout.
    pub fn move_to_worktree(&self, request: &NewWorktree) -> Result<Created, Error> {
        let session = self.session()?;
        if session.active_worktree().is_some() {
            return Err(Error::declined(
                "has_worktree",
                format!("session {} has a worktree already", session.id),
            ));
        }
        let _lock = self.stored.log.lock()?;
        let request = NewWorktree {
            dir: session.root.clone(),
            ..request.clone()
        };
        crate::worktree::attach(&self.store, &self.stored, &request)
    }
}

/// One turn of a session: the person's message to the model's final answer.
pub struct Turn {
    runtime: Arc<SessionRuntime>,
    number: u32,
    /// Irreversible actions allowed in this turn so far, shared with a Scheme program the turn
    /// runs ([`Turn::spending`]).
    spent: Arc<AtomicU32>,
    /// The session, read again only as far as its log grew between calls.
    session: Followed,
    /// What the guard learned from the person's files at the turn's first call.
    learned: Learned,
    /// Held while the turn lasts, so no other turn of the session starts meanwhile.
    _running: std::fs::File,
}

impl Turn {
    /// The turn's number in its session, from 1.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The runtime it belongs to.
    pub fn runtime(&self) -> &Arc<SessionRuntime> {
        &self.runtime
    }

    /// Runs primitive `name` with `args` through the guard and the log; the person is asked
    /// through `person` when the guard asks.
    pub fn call(
        &mut self,
        name: &str,
        args: &Value,
        person: &mut dyn Person,
    ) -> Result<Called, Error> {
        self.go(Calling::Run, name, args, person)
    }

    /// Judges primitive `name` with `args` as the guard judges a call (the person asked through
    /// `person` when it asks, everything logged), without running it: for an action another
    /// program takes, such as an agent host's own tool, judged as unconfined (`unconfined` says
    /// why nodwyn's sandbox does not hold it). Allowed when it returns `Ok`; a refusal is the
    /// same error a call gets.
    pub fn judge(
        &mut self,
        name: &str,
        args: &Value,
        person: &mut dyn Person,
        unconfined: &str,
    ) -> Result<Called, Error> {
        self.go(Calling::JudgeOnly(unconfined), name, args, person)
    }

    /// One call through the call path, spending this turn's budget.
    fn go(
        &mut self,
        calling: Calling<'_>,
        name: &str,
        args: &Value,
        person: &mut dyn Person,
    ) -> Result<Called, Error> {
        let runtime = &self.runtime;
        let mut spent = self.spent.load(Ordering::SeqCst);
        let path = CallPath {
            store: &runtime.store,
            registry: &runtime.registry,
            settings: &runtime.settings,
            judges: &runtime.services,
            learned: &self.learned,
        };
        let called = call_in_turn(
            &path,
            &mut self.session,
            calling,
            name,
            args,
            person,
            &mut spent,
        );
        self.spent.store(spent, Ordering::SeqCst);
        called
    }

    /// The turn's spending of irreversible actions, for a Scheme program it runs
    /// ([`crate::scripts::Scripting::spent`]): the program's calls spend the same budget.
    pub fn spending(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.spent)
    }

    /// Records an item of the conversation, as the log keeps it (`for_the_log`).
    pub fn record(&self, item: Item) -> Result<(), Error> {
        self.record_for(item, None, None)
    }

    /// Records item `id` of sub-agent `agent`'s conversation (`None`: the session's agent's).
    pub fn record_for(
        &self,
        item: Item,
        agent: Option<&str>,
        id: Option<&str>,
    ) -> Result<(), Error> {
        append(
            &self.runtime.stored.log,
            Event::ConversationItem {
                turn: self.number,
                item_id: id.map(str::to_owned),
                agent: agent.map(str::to_owned),
                item: for_the_log(item),
            },
        )
    }

    /// Records a call to the model.
    pub fn record_model_call(&self, call: ModelCall) -> Result<(), Error> {
        append(
            &self.runtime.stored.log,
            Event::ModelCall {
                turn: self.number,
                call,
            },
        )
    }

    /// Ends the turn (recorded as `turn.end`, with the model's `answer` when it finished).
    pub fn end(self, end: TurnEnd, usage: TurnUsage, answer: &str) -> Result<(), Error> {
        append(
            &self.runtime.stored.log,
            Event::TurnEnd {
                turn: self.number,
                end,
                usage,
                answer: answer.to_owned(),
            },
        )
    }
}

/// The session's turn lock (`<log>.turn`), taken; `None` when another turn holds it.
pub(crate) fn turn_lock(stored: &StoredSession) -> Result<Option<std::fs::File>, Error> {
    let mut path = stored.log.path().as_os_str().to_owned();
    path.push(".turn");
    let path = std::path::PathBuf::from(path);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(Error::io(&path))?;
    // A process started by another thread of this program holds every open file until it
    // executes its program, the lock's too: a lock that was just let go can look held for a
    // moment. A running turn holds it for far longer than this grace.
    for _ in 0..TURN_LOCK_TRIES {
        match file.try_lock() {
            Ok(()) => return Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path)(e)),
        }
    }
    Ok(None)
}

/// How many times a turn's lock is tried, 10 ms apart, before the session counts as busy.
const TURN_LOCK_TRIES: usize = 20;

/// An item as the log keeps it, which never holds a secret: every credential in a message or a
/// result replaced by the scanner's marker, and a tool call's arguments abbreviated as
/// `primitive.call` abbreviates them (long strings by their length, a string holding a
/// credential shape by a note).
pub(crate) fn for_the_log(item: Item) -> Item {
    let redact = |text: String| nodwyn_guard::Scanner::global().redact(&text);
    match item {
        Item::UserMessage { text } => Item::UserMessage { text: redact(text) },
        Item::AssistantMessage { text, tool_calls } => Item::AssistantMessage {
            text: redact(text),
            tool_calls: tool_calls
                .into_iter()
                .map(|call| nodwyn_protocol::ToolCallItem {
                    arguments: abbreviated(&call.arguments),
                    ..call
                })
                .collect(),
        },
        Item::ToolResult {
            call_id,
            tool,
            ok,
            content,
            decision,
        } => Item::ToolResult {
            call_id,
            tool,
            ok,
            content: redact(content),
            decision,
        },
        Item::Notice { text } => Item::Notice { text: redact(text) },
    }
}

/// A session's conversation as its log keeps it, in order, each item with its turn.
pub fn conversation(store: &Store, id: &str) -> Result<Vec<(u32, Item)>, Error> {
    let stored = store.find(id)?;
    let mut items = Vec::new();
    stored.log.each_record_from(0, |record| {
        // A sub-agent's conversation was its own; the session's goes on without it.
        if let Event::ConversationItem {
            turn,
            agent: None,
            item,
            ..
        } = record.event
        {
            items.push((turn, item));
        }
    })?;
    Ok(items)
}
