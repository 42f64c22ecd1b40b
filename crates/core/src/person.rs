//! Who the guard's questions go to. A [`Question`] is an owned value, so it can cross a thread,
//! a channel, a socket or an MCP elicitation: the person at a terminal is one [`Person`],
//! [`Answerer`] hands questions over a channel to whoever answers them (a front-end's client),
//! and [`NoTerminal`] is nobody (every question refused with how to approve).

use std::sync::mpsc;

use nodwyn_guard::{Effect, Offer, Verdict};

/// A question for the person: may this call run?
#[derive(Debug, Clone)]
pub struct Question {
    /// The session.
    pub session: String,
    /// What the call would do.
    pub effect: Effect,
    /// Why the guard asks, and what kind of question it is.
    pub verdict: Verdict,
    /// The standing answer the person may give instead of allowing once ("allow always"),
    /// when the guard offers a narrow one and the channel may give it.
    pub offer: Option<Offer>,
}

/// A person's answer to a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The call may run, this once.
    Allow,
    /// The call may run, and what the question's offer names is allowed for the rest of the
    /// session. Without an offer it allows this call only.
    Always,
    /// The call may not run.
    Decline,
}

impl From<bool> for Reply {
    fn from(allowed: bool) -> Self {
        if allowed { Self::Allow } else { Self::Decline }
    }
}

/// The person the guard's questions go to.
pub trait Person {
    /// The person's answer, or `None` when nobody can be asked (no terminal).
    fn ask(&mut self, question: &Question) -> Option<Reply>;

    /// How the last answer reached nodwyn, for the record when it was not the terminal (`the
    /// MCP client`, or the name a protocol client gave).
    fn answered_through(&self) -> Option<String> {
        None
    }

    /// Whether answers through this channel may settle a security confirm. `false` for the
    /// channel of the very agent the question is about (an MCP client, which may answer its own
    /// questions): such a confirm is refused there, with how a person can approve it.
    fn answers_security_confirms(&self) -> bool {
        true
    }

    /// Whether answers through this channel may give a standing answer for the session
    /// ("allow always"). Not where a security confirm cannot be answered either: the channel
    /// of the agent the question is about would widen its own reach.
    fn gives_standing_answers(&self) -> bool {
        self.answers_security_confirms()
    }

    /// Whether the person lets a repository's `.nodwyn/init.scm` run (`true` to allow), or
    /// `None` when nobody can be asked. Nobody, unless the person can be reached.
    fn approve_strategy(&mut self, question: &StrategyQuestion<'_>) -> Option<bool> {
        let _ = question;
        None
    }

    /// Whether the person lets a repository's `.nodwyn/hooks.toml` run (`true` to allow), or
    /// `None` when nobody can be asked. Nobody, unless the person can be reached.
    fn approve_hooks(&mut self, question: &HooksQuestion<'_>) -> Option<bool> {
        let _ = question;
        None
    }
}

/// What a person is shown before a repository's `.nodwyn/hooks.toml` first runs, and again
/// whenever it changes.
#[derive(Debug)]
pub struct HooksQuestion<'a> {
    /// The session whose worktree the hooks would run in, if any (`nodwyn hooks approve` asks
    /// outside a session).
    pub session: Option<&'a str>,
    /// The file, with its content.
    pub file: &'a crate::scripts::strategy::SchemeFile,
    /// The SHA-256 of its content, in hex.
    pub sha256: &'a str,
}

/// What a person is shown before a repository's `.nodwyn/init.scm` first runs, and again
/// whenever it or the repository's `.nodwyn/prompts.scm` changes.
#[derive(Debug)]
pub struct StrategyQuestion<'a> {
    /// The session.
    pub session: &'a str,
    /// The files, init.scm first, with their content.
    pub files: &'a [crate::scripts::strategy::SchemeFile],
    /// The SHA-256 over them, in hex.
    pub sha256: &'a str,
}

/// Nobody to ask: every question is refused with a sentence saying how to approve the call.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTerminal;

impl Person for NoTerminal {
    fn ask(&mut self, _question: &Question) -> Option<Reply> {
        None
    }
}

/// A question handed over a channel, with the channel its answer goes back on.
#[derive(Debug)]
pub struct Asked {
    /// The question.
    pub question: Question,
    /// Where the answer goes; `None` means nobody could be asked.
    pub reply: mpsc::Sender<Option<Reply>>,
}

/// Hands each question to whoever holds the other end of a channel, and waits for the answer.
/// If the other end is gone, or drops the reply unanswered, nobody could be asked.
#[derive(Debug, Clone)]
pub struct Answerer {
    questions: mpsc::Sender<Asked>,
}

impl Answerer {
    /// An answerer and the end its questions arrive at.
    pub fn new() -> (Self, mpsc::Receiver<Asked>) {
        let (questions, arriving) = mpsc::channel();
        (Self { questions }, arriving)
    }
}

impl Person for Answerer {
    fn ask(&mut self, question: &Question) -> Option<Reply> {
        let (reply, answer) = mpsc::channel();
        self.questions
            .send(Asked {
                question: question.clone(),
                reply,
            })
            .ok()?;
        answer.recv().ok().flatten()
    }
}
