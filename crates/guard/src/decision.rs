//! The guard's answers, who gave them, and the `guard.decision` record that keeps them.

use serde::{Deserialize, Serialize};

/// What kind of question a person is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AskKind {
    /// An ordinary confirm: "Don't ask" and standing answers may answer it.
    Ordinary,
    /// A security confirm: only a person, each time, answers it.
    Security,
}

/// The guard's answer to an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "answer", content = "kind")]
pub enum Decision {
    /// It runs.
    Allow,
    /// A person must be asked first.
    Ask(AskKind),
    /// It does not run.
    Refuse,
}

impl Decision {
    /// How strong an answer is: a refusal beats a security ask beats an ordinary ask beats an
    /// allow.
    fn strength(&self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Ask(AskKind::Ordinary) => 1,
            Decision::Ask(AskKind::Security) => 2,
            Decision::Refuse => 3,
        }
    }
}

/// Who or what gave an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "who")]
pub enum DecidedBy {
    /// The guard's own rules.
    Rule,
    /// A standing answer in `.nodwyn/allow.toml`.
    StandingAnswer,
    /// "Don't ask", turned on by the person named.
    DontAsk(String),
    /// The judge.
    Judge,
    /// A person, asked.
    Person,
}

/// An answer, who gave it, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The answer.
    #[serde(flatten)]
    pub decision: Decision,
    /// Who gave it.
    #[serde(flatten)]
    pub by: DecidedBy,
    /// Why, in words a person acts on.
    pub why: String,
}

impl Verdict {
    /// An answer of the guard's rules.
    pub fn by_rule(decision: Decision, why: impl Into<String>) -> Self {
        Self {
            decision,
            by: DecidedBy::Rule,
            why: why.into(),
        }
    }

    /// The stronger of two answers; on a tie, the first, with the reasons joined.
    pub(crate) fn strongest(self, other: Verdict) -> Verdict {
        use std::cmp::Ordering;
        match self.decision.strength().cmp(&other.decision.strength()) {
            Ordering::Less => other,
            Ordering::Greater => self,
            Ordering::Equal if other.why.is_empty() || self.why == other.why => self,
            Ordering::Equal if self.why.is_empty() => other,
            Ordering::Equal => Verdict {
                why: format!("{}; {}", self.why, other.why),
                ..self
            },
        }
    }

    /// The `guard.decision` record of this answer to `action`.
    pub fn record<'a>(&'a self, action: &'a str) -> DecisionRecord<'a> {
        DecisionRecord {
            kind: "guard.decision",
            action,
            verdict: self,
        }
    }
}

/// A `guard.decision` log record: the action, the answer, who gave it, and why.
#[derive(Debug, Serialize)]
pub struct DecisionRecord<'a> {
    /// Always `guard.decision`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The action, in words.
    pub action: &'a str,
    /// The answer.
    #[serde(flatten)]
    pub verdict: &'a Verdict,
}
