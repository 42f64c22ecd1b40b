//! The interface's life: the chooser (unless told what to open), then one session followed
//! through the protocol: its events into the scrollback, its questions answered with a key, the
//! person's messages and slash commands sent as requests, the turn interrupted with Ctrl-C, and
//! the session closed on the way out (as `worktree close` would). Through the daemon, a lost
//! connection is made again and the session followed from the last event shown, the draft kept.

use std::time::{Duration, Instant};

use crossterm::event;
use nodwyn_protocol::Decision;
use nodwyn_server::client::Client;
use serde_json::{Value, json};

use crate::chooser::{Choice, Chooser};
use crate::composer::Composer;
use crate::keys::{Key, key};
use crate::pane::{PaneView, Question};
use crate::terminal::Screen;
use crate::transcript::Transcript;
use crate::{Options, Reconnect};

/// What the person left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Left {
    /// Nothing was opened (the chooser was left).
    Nothing,
    /// The session, closed: why its worktree stays, if it does.
    Closed {
        /// The session.
        session: String,
        /// Why its worktree stays (empty: it went, or there was none).
        kept: Vec<String>,
    },
    /// The session, left open (joined through the daemon: it belongs to whoever runs it).
    LeftOpen {
        /// The session.
        session: String,
    },
}

/// The commands a message starting with `/` may be.
const HELP: &str = "/worktree (where the session works), /worktree off (stay in the checkout), /diff (the session's changes), /land MESSAGE (land them), /dont-ask, /dont-ask off, /help, /exit (or Ctrl-D); Ctrl-C interrupts a turn";

/// What the pane says when the terminal did not answer where its cursor is.
const DRAW_FAILED: &str = "the terminal did not answer in time";

/// How long the interface waits for a key before it looks at the engine's messages again.
const TICK: Duration = Duration::from_millis(30);

/// The session followed, and what the pane shows of it.
pub(crate) struct Interface<'a> {
    options: &'a Options,
    client: Client,
    reconnect: Option<Reconnect>,
    transcript: Transcript,
    composer: Composer,
    session: String,
    /// Where it works: its branch, or its folder.
    place: String,
    /// Whether it was joined through the daemon (it stays open when the person leaves).
    joined: bool,
    turn_running: bool,
    question: Option<Question>,
    said: String,
    /// The `seq` of the last event shown: where following goes on after a lost connection.
    last_seq: u64,
    /// When the connection was lost, if it is.
    lost: Option<Instant>,
    title: String,
}

impl<'a> Interface<'a> {
    pub(crate) fn new(options: &'a Options, client: Client, reconnect: Option<Reconnect>) -> Self {
        Self {
            options,
            client,
            reconnect,
            transcript: Transcript::new(options.color),
            composer: Composer::default(),
            session: String::new(),
            place: String::new(),
            joined: false,
            turn_running: false,
            question: None,
            said: String::new(),
            last_seq: 0,
            lost: None,
            title: String::new(),
        }
    }

    fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.client.request(method, params).map_err(refusal)
    }

    /// Says who this client is to its engine (again, after a reconnect).
    fn hello(&mut self) -> anyhow::Result<Value> {
        self.call(
            "hello",
            json!({"client": format!("nodwyn {} tui", env!("CARGO_PKG_VERSION"))}),
        )
    }

    /// Runs the chooser and the session until the person leaves.
    pub(crate) fn run(mut self, screen: &mut Screen) -> anyhow::Result<Left> {
        self.hello()?;
        let choice = if let Some(id) = &self.options.resume {
            Choice::Resume(id.clone())
        } else if self.options.worktree {
            Choice::NewWorktree
        } else {
            match self.choose(screen)? {
                Some(choice) => choice,
                None => return Ok(Left::Nothing),
            }
        };
        self.open(&choice, screen)?;
        self.follow(screen)
    }

    /// The chooser: what to open, or `None` when the person left it.
    fn choose(&mut self, screen: &mut Screen) -> anyhow::Result<Option<Choice>> {
        let folder = self.options.folder.clone();
        let mut sessions: Vec<Value> = self
            .call("session.list", json!({"repo": folder}))
            .ok()
            .and_then(|listed| listed["sessions"].as_array().cloned())
            .unwrap_or_default();
        let worktrees = self
            .call("worktree.list", json!({"repo": folder}))
            .ok()
            .and_then(|listed| listed["worktrees"].as_array().cloned())
            .unwrap_or_default();
        // The questions waiting now, to mark their sessions (a watcher is told them at once).
        let mut waiting = Vec::new();
        if self.call("approval.watch", json!({})).is_ok() {
            let until = Instant::now() + Duration::from_millis(200);
            while let Some(wait) = until.checked_duration_since(Instant::now()) {
                match self.client.next(wait) {
                    Ok(Some(message)) if message["method"] == "approval.request" => {
                        waiting.push(message["params"]["session"].clone());
                    }
                    Ok(Some(_)) => {}
                    _ => break,
                }
            }
        }
        for session in &mut sessions {
            if let Some(worktree) = worktrees
                .iter()
                .find(|w| w["session"] == session["session"])
            {
                session["dirty"] = worktree["dirty"].clone();
            }
            session["waiting"] = Value::Bool(waiting.contains(&session["session"]));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
        let mut chooser = Chooser::new(&folder, &sessions, now);
        screen.title(&format!(
            "nodwyn · {}",
            nodwyn_text::escape_line(&folder.display().to_string())
        ));
        loop {
            let color = screen.color;
            screen.draw(|frame| {
                let area = frame.area();
                let [top, rows] = ratatui::layout::Layout::vertical([
                    ratatui::layout::Constraint::Length(1),
                    ratatui::layout::Constraint::Min(1),
                ])
                .areas(area);
                frame.render_widget(
                    ratatui::widgets::Paragraph::new(
                        "nodwyn: choose a session (↑ ↓, Enter opens, Esc leaves)",
                    ),
                    top,
                );
                chooser.render(frame, rows, color);
            })?;
            if crate::terminal::hung_up() {
                return Ok(None);
            }
            if !event::poll(Duration::from_millis(200))? {
                continue;
            }
            match key(&event::read()?) {
                Some(Key::Up) => chooser.step(-1),
                Some(Key::Down) => chooser.step(1),
                Some(Key::Send) => return Ok(Some(chooser.choice().clone())),
                Some(Key::Escape | Key::Interrupt | Key::Leave | Key::Char('q')) => {
                    return Ok(None);
                }
                _ => {}
            }
        }
    }

    /// Opens what was chosen and subscribes to it.
    fn open(&mut self, choice: &Choice, screen: &mut Screen) -> anyhow::Result<()> {
        let folder = self.options.folder.clone();
        let after = match choice {
            Choice::NewWorktree | Choice::InFolder => {
                // A new worktree is the engine's to make or to refuse (a folder that only looks
                // like a repository is refused in its sentence).
                let opened = if *choice == Choice::NewWorktree {
                    self.call("worktree.open", json!({"repo": folder}))?
                } else {
                    self.call("session.open", json!({"repo": folder, "worktree": "off"}))?
                };
                self.session = opened["session"].as_str().unwrap_or_default().to_owned();
                self.place = where_it_works(&opened["branch"], &opened["root"]);
                0
            }
            Choice::Resume(id) if self.options.daemon => {
                // Joined as it is (a turn may be running in it, which a second terminal comes
                // to watch and answer); it stays open for whoever runs it.
                self.joined = true;
                self.last_event(id)?
            }
            Choice::Resume(id) => {
                let resumed = self.call("session.resume", json!({"session": id}))?;
                self.session = resumed["session"].as_str().unwrap_or(id).to_owned();
                self.place = where_it_works(&resumed["worktree"]["branch"], &resumed["root"]);
                self.last_event(&self.session.clone())?
            }
        };
        if self.place.is_empty() {
            let listed = self.call(
                "session.events",
                json!({"session": self.session, "after": 0}),
            )?;
            let start = &listed["events"][0]["record"];
            self.place = where_it_works(&start["worktree"]["branch"], &start["root"]);
        }
        self.last_seq = after;
        self.call(
            "session.subscribe",
            json!({"session": self.session, "after": after}),
        )?;
        let opened = format!("session {} · {}", self.session, self.place);
        let note = self.transcript.note(&opened);
        screen.insert(note)?;
        Ok(())
    }

    /// Session `id`'s full id, kept, and the `seq` of its last event.
    fn last_event(&mut self, id: &str) -> anyhow::Result<u64> {
        let (session, last) = self.client.last_event(id).map_err(refusal)?;
        self.session = session;
        Ok(last)
    }

    /// Follows the session until the person leaves.
    fn follow(&mut self, screen: &mut Screen) -> anyhow::Result<Left> {
        loop {
            // A terminal slow to say where its cursor is (as a resize asks) is asked again at the
            // next draw; the session goes on.
            match self.draw(screen) {
                Err(error) => {
                    self.said = format!("{DRAW_FAILED} ({error}); drawing again");
                }
                Ok(()) if self.said.starts_with(DRAW_FAILED) => self.said.clear(),
                Ok(()) => {}
            }
            self.messages(screen)?;
            if self.lost.is_some() {
                self.try_reconnect(screen)?;
            }
            // Nobody is left to answer: the session is left as Ctrl-D leaves it, a running
            // turn interrupted first.
            if crate::terminal::hung_up() {
                if self.turn_running {
                    self.interrupt();
                }
                return self.leave();
            }
            if !event::poll(TICK)? {
                continue;
            }
            let Some(pressed) = key(&event::read()?) else {
                continue;
            };
            if let Some(left) = self.pressed(pressed, screen)? {
                return Ok(left);
            }
        }
    }

    fn state(&self) -> &'static str {
        if self.lost.is_some() {
            "reconnecting…"
        } else if self.question.is_some() {
            "waiting for you"
        } else if self.turn_running {
            "working"
        } else {
            "idle"
        }
    }

    fn draw(&mut self, screen: &mut Screen) -> anyhow::Result<()> {
        let status = format!("nodwyn · {} · {}", self.place, self.state());
        if status != self.title {
            screen.title(&status);
            self.title.clone_from(&status);
        }
        let view = PaneView {
            status: &status,
            partial: self.transcript.partial(),
            question: self.question.as_ref(),
            composer: &self.composer,
            said: &self.said,
            color: screen.color,
        };
        screen.draw(|frame| view.render(frame, frame.area()))
    }

    /// Shows every message the engine sent since the last look.
    fn messages(&mut self, screen: &mut Screen) -> anyhow::Result<()> {
        if self.lost.is_some() {
            return Ok(());
        }
        loop {
            match self.client.next(Duration::ZERO) {
                Ok(Some(message)) => self.message(&message, screen)?,
                Ok(None) => return Ok(()),
                Err(error) if self.reconnect.is_some() => {
                    self.lost = Some(Instant::now());
                    self.said = format!(
                        "the daemon went away ({}); reconnecting, your draft is kept",
                        error.message
                    );
                    return Ok(());
                }
                Err(error) => return Err(anyhow::anyhow!("{}", error.message)),
            }
        }
    }

    fn message(&mut self, message: &Value, screen: &mut Screen) -> anyhow::Result<()> {
        let method = message["method"].as_str().unwrap_or_default();
        let params = &message["params"];
        if params["session"]
            .as_str()
            .is_some_and(|s| s != self.session)
        {
            return Ok(());
        }
        if let Some(seq) = params["seq"].as_u64() {
            // Shown already (a replay after a reconnect overlapping what was shown).
            if seq <= self.last_seq {
                return Ok(());
            }
            self.last_seq = seq;
        }
        match method {
            "approval.request" => {
                let request = message["id"].as_str().unwrap_or_default().to_owned();
                if self.question.as_ref().is_some_and(|q| q.request == request) {
                    return Ok(());
                }
                // Keys typed before the question appeared answer nothing.
                while event::poll(Duration::ZERO)? {
                    let _ = event::read()?;
                }
                self.question = Some(Question {
                    request,
                    security: params["kind"] == "security",
                    action: nodwyn_text::escape_line(params["action"].as_str().unwrap_or_default()),
                    why: nodwyn_text::escape_line(params["why"].as_str().unwrap_or_default()),
                    always: params["always"]
                        .as_str()
                        .filter(|_| params["kind"] == "ordinary")
                        .map(nodwyn_text::escape_line),
                    confirming: false,
                });
            }
            "approval.resolved"
                if self
                    .question
                    .as_ref()
                    .is_some_and(|q| params["request"] == q.request.as_str()) =>
            {
                self.question = None;
                let how = params["decision"].as_str().unwrap_or("settled");
                let note = self
                    .transcript
                    .note(&format!("the question was answered elsewhere: {how}"));
                screen.insert(note)?;
            }
            "turn.started" => self.turn_running = true,
            _ => {}
        }
        if method == "turn.completed" {
            self.turn_running = false;
            self.question = None;
        }
        if method == "session.record" {
            let record = &params["record"];
            if matches!(
                record["type"].as_str(),
                Some("worktree.create" | "worktree.restore")
            ) {
                self.place =
                    nodwyn_text::escape_line(record["branch"].as_str().unwrap_or_default());
            }
        }
        let lines = self.transcript.notified(method, params);
        screen.insert(lines)
    }

    /// Makes the connection again, at most once a second: hello, then the session followed
    /// from the last event shown (its waiting questions asked again).
    fn try_reconnect(&mut self, screen: &mut Screen) -> anyhow::Result<()> {
        let Some(since) = self.lost else {
            return Ok(());
        };
        if since.elapsed() < Duration::from_secs(1) {
            return Ok(());
        }
        let Some(reconnect) = self.reconnect.as_mut() else {
            return Ok(());
        };
        let Ok(client) = reconnect() else {
            self.lost = Some(Instant::now());
            return Ok(());
        };
        self.client = client;
        self.lost = None;
        self.question = None;
        let subscribed = self.hello().and_then(|_| {
            self.call(
                "session.subscribe",
                json!({"session": self.session, "after": self.last_seq}),
            )
        });
        match subscribed {
            Ok(_) => {
                self.said.clear();
                let note = self.transcript.note("connected again");
                screen.insert(note)
            }
            Err(_) => {
                self.lost = Some(Instant::now());
                Ok(())
            }
        }
    }

    /// Does what a key asks; what the person left, when they left.
    fn pressed(&mut self, pressed: Key, screen: &mut Screen) -> anyhow::Result<Option<Left>> {
        if self.question.is_some() {
            self.answer(&pressed)?;
            return Ok(None);
        }
        if self.composer.edit(&pressed) {
            return Ok(None);
        }
        match pressed {
            Key::Send => self.submit(screen),
            Key::Interrupt if self.turn_running => {
                self.interrupt();
                Ok(None)
            }
            Key::Interrupt if self.composer.is_empty() => {
                self.said = "Ctrl-D leaves (closing the session as `nodwyn worktree close` would: a worktree with work stays)".to_owned();
                Ok(None)
            }
            Key::Interrupt => {
                self.composer.take();
                Ok(None)
            }
            Key::Leave => self.leave().map(Some),
            // Esc, Up and Down do nothing here, and a resize is drawn at the next tick (the
            // editing keys were the composer's).
            _ => Ok(None),
        }
    }

    fn interrupt(&mut self) {
        let session = self.session.clone();
        match self.call("turn.interrupt", json!({"session": session})) {
            Ok(_) => self.said = "interrupting the turn…".to_owned(),
            Err(error) => self.said = error.to_string(),
        }
    }

    /// A key while a question waits: `y`, `n`, `a` (when "always" is offered), Esc or Ctrl-C
    /// interrupt the turn; a security confirm takes `y` twice.
    fn answer(&mut self, pressed: &Key) -> anyhow::Result<()> {
        let Some(question) = self.question.as_mut() else {
            return Ok(());
        };
        let decision = match pressed {
            Key::Char('y' | 'Y') if question.security && !question.confirming => {
                question.confirming = true;
                return Ok(());
            }
            Key::Char('y' | 'Y') => Decision::Allow,
            Key::Char('a' | 'A') if question.always.is_some() && !question.security => {
                Decision::AllowAlways
            }
            Key::Char('n' | 'N') => Decision::Decline,
            Key::Escape | Key::Interrupt => {
                self.interrupt();
                return Ok(());
            }
            _ => return Ok(()),
        };
        let request = question.request.clone();
        self.question = None;
        // The guard's record of the answer tells it in the conversation, whoever gave it.
        self.client.answer(&request, decision)?;
        Ok(())
    }

    /// Sends the draft: a slash command, or a message that starts a turn.
    fn submit(&mut self, screen: &mut Screen) -> anyhow::Result<Option<Left>> {
        let text = self.composer.text();
        let said = text.trim();
        if said.is_empty() {
            return Ok(None);
        }
        self.said.clear();
        if said.starts_with('/') {
            let said = said.to_owned();
            self.composer.take();
            return self.command(&said, screen);
        }
        let session = self.session.clone();
        match self.call("turn.start", json!({"session": session, "text": text})) {
            Ok(_) => {
                self.composer.take();
                self.turn_running = true;
                let lines = self.transcript.said(&text);
                screen.insert(lines)?;
            }
            // The draft stays, to send again once the turn ends.
            Err(error) => self.said = error.to_string(),
        }
        Ok(None)
    }

    /// A slash command, the same `nodwyn chat` takes, each a request of the protocol.
    fn command(&mut self, command: &str, screen: &mut Screen) -> anyhow::Result<Option<Left>> {
        let session = self.session.clone();
        let lines = match command {
            "/exit" => return self.leave().map(Some),
            "/help" => self.transcript.note(HELP),
            "/worktree" => self
                .transcript
                .note(&format!("the session works in {}", self.place)),
            "/worktree off" => {
                match self.call("session.stay_in_checkout", json!({"session": session})) {
                    Ok(_) => self
                        .transcript
                        .note("the session stays in the checkout; every write is asked"),
                    Err(error) => self.transcript.note(&error.to_string()),
                }
            }
            "/diff" => match self.call("worktree.diff", json!({"session": session})) {
                Ok(review) => diff_lines(&self.transcript, &review),
                Err(error) => self.transcript.note(&error.to_string()),
            },
            "/dont-ask" | "/dont-ask off" => {
                let on = command == "/dont-ask";
                match self.call("session.dont_ask", json!({"session": session, "on": on})) {
                    Ok(_) => self.transcript.note(if on {
                        "Don't ask is on"
                    } else {
                        "Don't ask is off"
                    }),
                    Err(error) => self.transcript.note(&error.to_string()),
                }
            }
            land if land.starts_with("/land") => {
                let message = land["/land".len()..].trim();
                if message.is_empty() {
                    self.transcript
                        .note("give the commit message: /land MESSAGE")
                } else {
                    match self.call(
                        "session.land",
                        json!({"session": session, "message": message}),
                    ) {
                        Ok(landed) => self
                            .transcript
                            .note(landed["summary"].as_str().unwrap_or("landed")),
                        Err(error) => self.transcript.note(&error.to_string()),
                    }
                }
            }
            other => self
                .transcript
                .note(&format!("unknown command {other}; {HELP}")),
        };
        screen.insert(lines)?;
        Ok(None)
    }

    /// Leaves: the session closed (unless it was joined through the daemon).
    fn leave(&mut self) -> anyhow::Result<Left> {
        let session = self.session.clone();
        if self.joined {
            return Ok(Left::LeftOpen { session });
        }
        let closed = self.call("session.close", json!({"session": session}))?;
        let kept = closed["kept"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        Ok(Left::Closed { session, kept })
    }
}

/// Where a session works, as the title shows it: its branch, or its folder.
fn where_it_works(branch: &Value, root: &Value) -> String {
    let place = branch
        .as_str()
        .or_else(|| root.as_str())
        .unwrap_or_default();
    nodwyn_text::escape_line(place)
}

/// A review's files and hunks as scrollback lines (`/diff`).
fn diff_lines(transcript: &Transcript, review: &Value) -> Vec<ratatui::text::Line<'static>> {
    let mut lines = Vec::new();
    for file in review["files"].as_array().into_iter().flatten() {
        let counts = match (file["added"].as_u64(), file["removed"].as_u64()) {
            (Some(added), Some(removed)) => format!("+{added} -{removed}"),
            _ => "binary".to_owned(),
        };
        lines.extend(transcript.note(&format!(
            "{} {} ({counts})",
            file["status"].as_str().unwrap_or_default(),
            file["path"].as_str().unwrap_or_default()
        )));
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            lines.push(ratatui::text::Line::from(nodwyn_text::escape_line(
                hunk["header"].as_str().unwrap_or_default(),
            )));
            for line in hunk["lines"].as_array().into_iter().flatten() {
                lines.push(ratatui::text::Line::from(nodwyn_text::escape_line(
                    line.as_str().unwrap_or_default(),
                )));
            }
        }
    }
    for left in review["omitted"].as_array().into_iter().flatten() {
        lines.extend(transcript.note(&format!(
            "left out: {} ({})",
            left["path"].as_str().unwrap_or_default(),
            left["why"].as_str().unwrap_or_default()
        )));
    }
    if lines.is_empty() {
        lines.extend(transcript.note("no changes"));
    }
    lines
}

/// An engine's refusal as an error: its code, then its sentence.
fn refusal(error: nodwyn_protocol::rpc::RpcError) -> anyhow::Error {
    let code = error
        .data
        .map_or_else(|| "refused".to_owned(), |data| data.code);
    anyhow::anyhow!("{code}: {}", error.message)
}
