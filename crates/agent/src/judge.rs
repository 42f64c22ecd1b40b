//! A judge backed by a model (`[judge] model = "PROFILE"`): before an ordinary question reaches
//! the person, the judge model reads the action (composed by `(judge-prompt effect)` from
//! nodwyn's prompts and the person's own, never a repository's) and answers `ALLOW: reason` or
//! `REFUSE: reason`. The guard lets a judge refuse anything and allow only ordinary questions.
//! It fails closed: an error, a timeout or an answer it cannot read leaves the question to the
//! person (or refused where there is none), never allowed.

use std::sync::Arc;
use std::time::Duration;

use nodwyn_core::guard::{DecidedBy, Decision, Effect, Judge, Verdict};
use nodwyn_model::{Message, Model, Request};

/// How the judge's prompt is composed for an action and why the guard asks.
pub type Composer = dyn Fn(&Effect, &str) -> Result<String, String> + Send + Sync;

/// A judge that asks a model.
pub struct ModelJudge {
    model: Arc<dyn Model>,
    compose: Box<Composer>,
    handle: tokio::runtime::Handle,
    timeout: Duration,
}

impl ModelJudge {
    /// A judge asking `model` with prompts from `compose`, waiting at most `timeout` for an
    /// answer; its calls run on `handle`'s runtime (the judge is asked from blocking threads).
    pub fn new(
        model: Arc<dyn Model>,
        compose: Box<Composer>,
        handle: tokio::runtime::Handle,
        timeout: Duration,
    ) -> Self {
        Self {
            model,
            compose,
            handle,
            timeout,
        }
    }
}

impl Judge for ModelJudge {
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict> {
        // The model is asked about questions only: what the rules allow runs without it.
        if !matches!(proposed.decision, Decision::Ask(_)) {
            return None;
        }
        let system = match (self.compose)(effect, &proposed.why) {
            Ok(prompt) => prompt,
            Err(why) => {
                tracing::info!(why = %why, "the judge's prompt could not be composed; the person is asked");
                return None;
            }
        };
        let request = Request {
            system,
            messages: vec![Message::User {
                text: "Answer now, in one line: ALLOW: <reason> or REFUSE: <reason>.".to_owned(),
            }],
            tools: Vec::new(),
        };
        let mut ignore = |_| {};
        let answered = self.handle.block_on(tokio::time::timeout(
            self.timeout,
            self.model.complete(&request, &mut ignore),
        ));
        let text = match answered {
            Ok(Ok(answer)) => answer.text,
            Ok(Err(error)) => {
                tracing::info!(error = %error, "the judge model failed; the person is asked");
                return None;
            }
            Err(_) => {
                tracing::info!("the judge model did not answer in time; the person is asked");
                return None;
            }
        };
        read_answer(&text)
    }
}

/// `ALLOW: reason` or `REFUSE: reason` on the answer's first line that has either; anything
/// else is no answer.
fn read_answer(text: &str) -> Option<Verdict> {
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['*', '`', '#', ' ']);
        let upper = line.to_ascii_uppercase();
        let (decision, rest) = if upper.starts_with("ALLOW") {
            (Decision::Allow, &line["ALLOW".len()..])
        } else if upper.starts_with("REFUSE") {
            (Decision::Refuse, &line["REFUSE".len()..])
        } else {
            continue;
        };
        let reason = rest.trim_start_matches([':', ' ', '-']).trim();
        let reason: String = reason.chars().take(300).collect();
        return Some(Verdict {
            decision,
            by: DecidedBy::Judge,
            why: format!(
                "the judge model: {}",
                if reason.is_empty() {
                    "no reason given"
                } else {
                    &reason
                }
            ),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_allow_or_refuse_is_an_answer() {
        let allow = read_answer("ALLOW: an ordinary test run").unwrap();
        assert_eq!(allow.decision, Decision::Allow);
        assert_eq!(allow.why, "the judge model: an ordinary test run");
        let refuse = read_answer("Thinking...\n**REFUSE** - reaches outside the task").unwrap();
        assert_eq!(refuse.decision, Decision::Refuse);
        assert!(read_answer("sure, go ahead").is_none());
        assert!(read_answer("").is_none());
    }
}
