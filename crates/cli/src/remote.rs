//! The command line as a client of the engine: of a running `nodwyn serve` (`run --daemon`,
//! `chat --daemon`), or of the engine in this process (`nodwyn run`), through the same protocol.
//! A session's events are shown by the [`RunView`], and the engine's questions are asked on
//! this terminal; another client of a daemon may answer first, and then the question here is
//! withdrawn.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use nodwyn_protocol::{Decision, Notification, TurnEnd};
use nodwyn_server::client::Client;
use serde_json::{Value, json};

use crate::asking::{Asked, ask_while};
use crate::frontend::RunView;
use crate::{environment, output};

/// A session followed through the daemon.
pub(crate) struct Remote {
    client: Client,
    view: RunView,
    json: bool,
    /// The session followed.
    pub session: String,
    interrupt: Arc<AtomicBool>,
    /// Whether this is its engine's only client (in-process): a question this terminal cannot
    /// ask is answered `no_person` (refused with how to approve it) instead of left to others.
    alone: bool,
    /// Whether nobody can be asked whatever the terminal (`run --headless`).
    nobody_to_ask: bool,
    /// How many questions were declined because nobody could be asked.
    unasked: usize,
}

/// What a turn came to: how it ended, and the model's answer.
pub(crate) struct Ended {
    /// How it ended.
    pub end: TurnEnd,
    /// The model's last text.
    pub answer: String,
}

/// The client of the daemon at its socket, or a sentence saying none listens.
pub(crate) fn connect() -> anyhow::Result<Client> {
    let socket = environment::daemon_socket()?;
    let mut client = Client::connect(&socket).map_err(|e| {
        crate::error::coded(
            "no_daemon",
            format!(
                "no nodwyn serve listens on {} ({e}); start one with `nodwyn serve`",
                socket.display()
            ),
        )
    })?;
    hello(&mut client)?;
    Ok(client)
}

/// The client of a `nodwyn serve` of this very version keeping the sessions of the data
/// directory `data`, if one listens and says hello within a second; `None` otherwise.
pub(crate) fn same_daemon(data: &std::path::Path) -> Option<Client> {
    let socket = environment::daemon_socket().ok()?;
    let mut client = Client::connect(&socket).ok()?;
    let ours = format!("nodwyn {}", env!("CARGO_PKG_VERSION"));
    let hello = client
        .request_within(
            "hello",
            json!({"client": ours}),
            Some(Duration::from_secs(1)),
        )
        .ok()?;
    let hello: nodwyn_protocol::Hello = serde_json::from_value(hello).ok()?;
    let same_data = hello
        .data
        .and_then(|theirs| theirs.canonicalize().ok())
        .is_some_and(|theirs| Some(theirs) == data.canonicalize().ok());
    (hello.engine == ours && same_data).then_some(client)
}

/// Session `session`'s full id (however it was named) and the `seq` of its last event, where
/// following it from now starts.
pub(crate) fn last_event(client: &mut Client, session: &str) -> anyhow::Result<(String, u64)> {
    client.last_event(session).map_err(refused)
}

/// Says who this client is to its engine: the command line, whose questions a person answers
/// at the terminal (the name the log gives a Don't ask or an "always" answered here).
pub(crate) fn hello(client: &mut Client) -> anyhow::Result<()> {
    call(
        client,
        "hello",
        json!({"client": format!("nodwyn {} at the terminal", env!("CARGO_PKG_VERSION"))}),
    )
    .map(drop)
}

/// The error of a daemon that went away.
fn gone(error: nodwyn_protocol::rpc::RpcError) -> anyhow::Error {
    crate::error::coded(
        "daemon_gone",
        format!(
            "{} (the daemon stopped); the session's log keeps everything, and `nodwyn session events ID` shows it",
            error.message
        ),
    )
}

/// Calls `method`; a refusal becomes an error with its code.
pub(crate) fn call(client: &mut Client, method: &str, params: Value) -> anyhow::Result<Value> {
    client.request(method, params).map_err(refused)
}

/// The engine's refusal as an error with its code.
fn refused(error: nodwyn_protocol::rpc::RpcError) -> anyhow::Error {
    let code = error
        .data
        .map_or_else(|| "daemon_error".to_owned(), |d| d.code);
    crate::error::coded_owned(code, output::printable(&error.message))
}

impl Remote {
    /// Follows `session` through `client`, from after event `after`; `alone` when `client` is
    /// its engine's only client. Ctrl-C, SIGTERM and SIGHUP interrupt the turn; a second one ends
    /// nodwyn at once.
    pub(crate) fn follow(
        mut client: Client,
        session: String,
        after: u64,
        json: bool,
        alone: bool,
    ) -> anyhow::Result<Self> {
        let subscribed = call(
            &mut client,
            "session.subscribe",
            json!({"session": session, "after": after}),
        )?;
        // Notifications name the session by its full id, whichever form was given.
        let session = subscribed["session"]
            .as_str()
            .map_or(session, str::to_owned);
        let interrupt = Arc::new(AtomicBool::new(false));
        environment::catch_interrupts(&interrupt).context("could not catch Ctrl-C")?;
        Ok(Self {
            client,
            view: RunView::new(json).knowing(&nodwyn_core::prim::Registry::builtin()),
            json,
            session,
            interrupt,
            alone,
            nobody_to_ask: false,
            unasked: 0,
        })
    }

    /// Shows `notification` as a run shows it (a session's start, which the client tells from
    /// the answer that opened it). Nothing with `--json`: the protocol's own messages are shown.
    pub(crate) fn tell(&self, notification: &Notification) {
        if !self.json {
            self.view.notify(notification);
        }
    }

    /// The flag Ctrl-C raises; it stays raised until the turn ends (or the caller lowers it).
    pub(crate) fn interrupt(&self) -> &Arc<AtomicBool> {
        &self.interrupt
    }

    /// The client, for requests of its own.
    /// With nobody to ask (`run --headless`), terminal or not: every question is declined.
    pub(crate) fn with_nobody_to_ask(mut self, nobody: bool) -> Self {
        self.nobody_to_ask = nobody;
        self
    }

    /// How many questions were declined because nobody could be asked.
    pub(crate) fn unasked(&self) -> usize {
        self.unasked
    }

    pub(crate) fn client(&mut self) -> &mut Client {
        &mut self.client
    }

    /// Shows the session's events, asks its questions, until its turn ends: how it ended. Ctrl-C
    /// interrupts the turn (the daemon ends it).
    pub(crate) fn until_turn_ends(&mut self) -> anyhow::Result<Ended> {
        let mut asked_to_stop = false;
        loop {
            // The flag stays raised until the turn ends, so a second Ctrl-C ends nodwyn at once.
            if self.interrupt.load(Ordering::SeqCst) && !asked_to_stop {
                asked_to_stop = true;
                let session = self.session.clone();
                call(
                    &mut self.client,
                    "turn.interrupt",
                    json!({"session": session}),
                )?;
            }
            let Some(message) = self.client.next(Duration::from_millis(100)).map_err(gone)? else {
                continue;
            };
            if let Some(end) = self.show(message)? {
                self.interrupt.store(false, Ordering::SeqCst);
                return Ok(end);
            }
        }
    }

    /// Shows what arrived while the person was idle (questions of turns other clients run).
    pub(crate) fn while_idle(&mut self) -> anyhow::Result<()> {
        while let Some(message) = self.client.next(Duration::ZERO).map_err(gone)? {
            self.show(message)?;
        }
        Ok(())
    }

    /// Shows one message; the end of the followed session's turn, when it is that.
    fn show(&mut self, message: Value) -> anyhow::Result<Option<Ended>> {
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        if self.json {
            // A program reading the stream sees every message, a question included.
            let mut stdout = std::io::stdout().lock();
            use std::io::Write;
            let _ = writeln!(stdout, "{message}");
            let _ = stdout.flush();
        }
        if method == "approval.request" {
            self.ask(&message)?;
            return Ok(None);
        }
        let params = message.get("params").cloned().unwrap_or_default();
        let Ok(notification) =
            serde_json::from_value::<Notification>(json!({"method": method, "params": params}))
        else {
            return Ok(None);
        };
        if !self.json {
            self.view.notify(&notification);
        }
        Ok(match notification {
            Notification::TurnCompleted {
                session,
                end,
                answer,
                ..
            } if session == self.session => Some(Ended { end, answer }),
            _ => None,
        })
    }

    /// Asks the daemon's question on the terminal, unless another client settles it first.
    fn ask(&mut self, message: &Value) -> anyhow::Result<()> {
        let request = message["id"].as_str().unwrap_or_default().to_owned();
        let params = &message["params"];
        if self.nobody_to_ask || !output::person_at_terminal() {
            // Another client of a daemon may answer; this one cannot.
            if self.alone {
                self.client.answer(&request, Decision::NoPerson)?;
                self.unasked += 1;
            }
            return Ok(());
        }
        let session = params["session"].as_str().unwrap_or_default();
        // What answering `a` would allow for the rest of the session, when the engine offers it.
        let always = params["always"]
            .as_str()
            .filter(|_| params["kind"] == "ordinary");
        let prompt = match params["kind"].as_str() {
            Some("strategy") => {
                let files: Vec<(String, &str)> = params["effect"]["files"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|file| {
                        let path = file["path"].as_str().unwrap_or_default().to_owned();
                        (path, file["text"].as_str().unwrap_or_default())
                    })
                    .collect();
                let sha256 = params["effect"]["sha256"].as_str().unwrap_or_default();
                nodwyn_text::escape_lines(&crate::person::strategy_prompt(session, sha256, &files))
            }
            kind => nodwyn_text::escape_lines(&crate::person::question_prompt(
                if kind == Some("security") {
                    "security confirm"
                } else {
                    "confirm"
                },
                session,
                params["action"].as_str().unwrap_or_default(),
                params["why"].as_str().unwrap_or_default(),
                always,
            )),
        };
        self.view.before_question();
        let mut held = Vec::new();
        let client = &mut self.client;
        let mut lost = None;
        let asked = ask_while(&prompt, always.is_some(), || {
            loop {
                match client.next(Duration::ZERO) {
                    Ok(Some(next)) => {
                        let settled = next["method"] == "approval.resolved"
                            && next["params"]["request"] == request.as_str();
                        held.push(next);
                        if settled {
                            return false;
                        }
                    }
                    Ok(None) => return true,
                    // A daemon that went away settles nothing more: the question is withdrawn.
                    Err(error) => {
                        lost = Some(error);
                        return false;
                    }
                }
            }
        });
        if let Some(error) = lost {
            return Err(gone(error));
        }
        match asked {
            Asked::Answered(allow) => {
                let decision = if allow {
                    Decision::Allow
                } else {
                    Decision::Decline
                };
                self.client.answer(&request, decision)?;
            }
            Asked::Always => self.client.answer(&request, Decision::AllowAlways)?,
            Asked::Settled => output::note(settled_how(held.last())),
            // Nobody else can answer: as with no terminal at all.
            Asked::Ended if self.alone => self.client.answer(&request, Decision::NoPerson)?,
            Asked::Ended => {
                // This terminal cannot answer (its input ended): the question is another
                // client's to answer, or the daemon declines it at its timeout.
                output::note("nodwyn: no answer can be read here; waiting for another client");
                'waiting: loop {
                    let Some(next) = self.client.next(Duration::from_millis(100)).map_err(gone)?
                    else {
                        continue;
                    };
                    let settled = next["method"] == "approval.resolved"
                        && next["params"]["request"] == request.as_str();
                    held.push(next);
                    if settled {
                        break 'waiting;
                    }
                }
                output::note(settled_how(held.last()));
            }
        }
        for message in held {
            self.show(message)?;
        }
        Ok(())
    }
}

/// What other clients' turns send arrives while the person types a message.
impl crate::line_editor::Meanwhile for Remote {
    fn waiting(&mut self) -> anyhow::Result<bool> {
        self.client.has_next().map_err(gone)
    }

    fn show(&mut self) -> anyhow::Result<()> {
        self.while_idle()
    }
}

/// What the person is told when a question was settled elsewhere, from its `approval.resolved`.
fn settled_how(resolved: Option<&Value>) -> String {
    let params = resolved.map(|r| &r["params"]);
    let decision = params
        .and_then(|p| p["decision"].as_str())
        .unwrap_or("settled");
    match params.and_then(|p| p["reason"].as_str()) {
        Some("timed_out") => {
            "nodwyn: nobody answered that question in time, so it was declined".to_owned()
        }
        Some(reason) => format!("nodwyn: that question was cancelled ({reason})"),
        None => format!("nodwyn: another client answered that question: {decision}"),
    }
}
