//! Who the guard's questions go to. A [`Question`] is an owned value, so it can cross a thread,
//! a channel, a socket or an MCP elicitation: the person at a terminal is one [`Person`],
//! [`Answerer`] hands questions over a channel to whoever answers them (a front-end's client),
//! and [`NoTerminal`] is nobody (every question refused with how to approve).

use std::sync::mpsc;

use nodwyn_guard::{Effect, Verdict};

/// A question for the person: may this call run?
#[derive(Debug, Clone)]
pub struct Question {
    /// The session.
    pub session: String,
    /// What the call would do.
    pub effect: Effect,
    /// Why the guard asks, and what kind of question it is.
    pub verdict: Verdict,
}

/// The person the guard's questions go to.
pub trait Person {
    /// The person's answer (`true` to allow), or `None` when nobody can be asked (no terminal).
    fn ask(&mut self, question: &Question) -> Option<bool>;

    /// How the answers reach nodwyn, for the record when it is not the terminal (`the MCP
    /// client`).
    fn answered_through(&self) -> Option<&str> {
        None
    }

    /// Whether answers through this channel may settle a security confirm. `false` for the
    /// channel of the very agent the question is about (an MCP client, which may answer its own
    /// questions): such a confirm is refused there, with how a person can approve it.
    fn answers_security_confirms(&self) -> bool {
        true
    }

    /// Whether the person lets a repository's `.nodwyn/init.scm` run (`true` to allow), or
    /// `None` when nobody can be asked. Nobody, unless the person can be reached.
    fn approve_strategy(&mut self, question: &StrategyQuestion<'_>) -> Option<bool> {
        let _ = question;
        None
    }
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
    fn ask(&mut self, _question: &Question) -> Option<bool> {
        None
    }
}

/// A question handed over a channel, with the channel its answer goes back on.
#[derive(Debug)]
pub struct Asked {
    /// The question.
    pub question: Question,
    /// Where the answer goes: `Some(true)` allows, `Some(false)` declines, `None` means nobody
    /// could be asked.
    pub reply: mpsc::Sender<Option<bool>>,
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
    fn ask(&mut self, question: &Question) -> Option<bool> {
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
