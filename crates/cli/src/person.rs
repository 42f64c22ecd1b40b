//! The person at this terminal: asked on stderr, answering on stdin; nobody when either is not a
//! terminal (then every question is refused with a sentence saying how to approve).

use nodwyn_core::guard::{AskKind, Decision};
use nodwyn_core::person::{HooksQuestion, Person, Question, Reply, StrategyQuestion};

use crate::asking::Asked;

use crate::output::{self, printable};

/// How many lines of a strategy file the question shows.
const SHOWN_LINES: usize = 60;

/// The person at this terminal.
pub(crate) struct Terminal;

impl Person for Terminal {
    fn ask(&mut self, question: &Question) -> Option<Reply> {
        if !output::person_at_terminal() {
            return None;
        }
        let kind = match question.verdict.decision {
            Decision::Ask(AskKind::Security) => "security confirm",
            _ => "confirm",
        };
        let always = question.offer.as_ref().map(|offer| offer.allows.as_str());
        let prompt = question_prompt(
            kind,
            &question.session,
            &question.effect.action,
            &question.verdict.why,
            always,
        );
        match crate::asking::ask_while(
            &nodwyn_text::escape_lines(&prompt),
            always.is_some(),
            || true,
        ) {
            Asked::Answered(allowed) => Some(Reply::from(allowed)),
            Asked::Always => Some(Reply::Always),
            Asked::Ended | Asked::Settled => None,
        }
    }

    fn approve_strategy(&mut self, question: &StrategyQuestion<'_>) -> Option<bool> {
        if !output::person_at_terminal() {
            return None;
        }
        let files: Vec<(String, &str)> = question
            .files
            .iter()
            .map(|file| (file.path.display().to_string(), file.text.as_str()))
            .collect();
        yes_or_no(&strategy_prompt(question.session, question.sha256, &files))
    }

    fn approve_hooks(&mut self, question: &HooksQuestion<'_>) -> Option<bool> {
        if !output::person_at_terminal() {
            return None;
        }
        yes_or_no(&hooks_prompt(question))
    }
}

/// The question whether a repository's hooks may run: the file shown, each line escaped.
pub(crate) fn hooks_prompt(question: &HooksQuestion<'_>) -> String {
    let file = question.file;
    let shown = shown_file(&file.path.display().to_string(), &file.text);
    let whose = question.session.map_or_else(String::new, |session| {
        format!(" (session {})", printable(session))
    });
    format!(
        "nodwyn: the repository has worktree hooks{whose} (sha256 {}). They run commands in the \
         worktree, confined as an agent's commands are (the worktree writable; credentials, other \
         worktrees and the main checkout out of reach).\n\
         {shown}let them run? (asked again whenever this file changes) [y/N] ",
        printable(question.sha256.get(..12).unwrap_or(question.sha256)),
    )
}

/// A file for a question: its path, its line count and its first lines, each escaped.
fn shown_file(path: &str, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = format!("{} ({} lines):\n", printable(path), lines.len());
    for line in lines.iter().take(SHOWN_LINES) {
        shown.push_str(&format!("  | {}\n", printable(line)));
    }
    if lines.len() > SHOWN_LINES {
        shown.push_str(&format!(
            "  | ... {} more lines: read the whole file before you answer\n",
            lines.len() - SHOWN_LINES
        ));
    }
    shown
}

/// The question whether a repository's strategy may run: its files (path and text) shown, each
/// line escaped.
pub(crate) fn strategy_prompt(session: &str, sha256: &str, files: &[(String, &str)]) -> String {
    let shown: String = files
        .iter()
        .map(|(path, text)| shown_file(path, text))
        .collect();
    format!(
        "nodwyn: session {} has a strategy from the repository (sha256 {}). It runs as Scheme \
         in the session; each primitive it calls is still judged by the guard.\n\
         {shown}run it? (asked again whenever these files change) [y/N] ",
        printable(session),
        printable(sha256.get(..12).unwrap_or(sha256)),
    )
}

/// The question put to the person: what the call does comes from the agent (a command line, a
/// path), so it is shown escaped, not obeyed. With `always` (what a standing answer for the
/// session would allow), `a` answers it so.
pub(crate) fn question_prompt(
    kind: &str,
    session: &str,
    action: &str,
    why: &str,
    always: Option<&str>,
) -> String {
    let (offered, keys) = match always {
        Some(allows) => (
            format!("\n  a: allow it, and {}", printable(allows)),
            "[y/N/a]",
        ),
        None => (String::new(), "[y/N]"),
    };
    format!(
        "nodwyn {kind}, session {}: {}\n  because: {}{offered}\nallow it? {keys} ",
        printable(session),
        printable(action),
        printable(why)
    )
}

/// Asks the person at this terminal `prompt`; `None` when nobody is at a terminal.
pub(crate) fn confirm(prompt: &str) -> Option<bool> {
    if !output::person_at_terminal() {
        return None;
    }
    yes_or_no(prompt)
}

/// Asks on stderr and reads one line from stdin (see [`crate::asking`]).
fn yes_or_no(prompt: &str) -> Option<bool> {
    crate::asking::yes_or_no(&nodwyn_text::escape_lines(prompt))
}
