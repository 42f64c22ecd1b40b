//! The guard: one answer for every action an agent wants to take.
//!
//! In order: the rules (credential files are refused; writes under `.git/` or `.nodwyn/` and
//! writes outside the session's folder are security confirms; other writes and commands are
//! ordinary asks unless a standing answer covers them; a push to a URL the standing answers do
//! not list is a security confirm; anything irreversible asks), then the per-turn budget of
//! irreversible actions, then the judge, then "Don't ask". What is still an ask after that goes to
//! the person. The judge sees every action the rules did not refuse: it may refuse any of them,
//! and allow only an ordinary question.

use std::path::{Path, PathBuf};

use crate::decision::{AskKind, DecidedBy, Decision, Verdict};
use crate::denylist::{CredentialInodes, Denylist, normalise};
use crate::effect::{Effect, EgressKind};
use crate::judge::{Judge, RulesJudge};
use crate::offer::{self, Offer};
use crate::permit::Permit;
use crate::standing::{StandingAnswer, StandingAnswers};

/// The default number of irreversible actions a turn may take without asking.
pub const DEFAULT_BUDGET: u32 = 3;

/// "Don't ask", as a person turned it on for a session. Only the host constructs it, from a
/// person's own action; nothing a model or a Scheme strategy says can make one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DontAsk {
    /// Who turned it on.
    pub turned_on_by: String,
}

/// The guard of one session; `'j` is how long its judge lives.
pub struct Guard<'j> {
    root: PathBuf,
    repository: PathBuf,
    standing: StandingAnswers,
    /// The standing answers the person gave for this session alone ("allow always").
    session: StandingAnswers,
    dont_ask: Option<DontAsk>,
    judge: Box<dyn Judge + 'j>,
    budget: u32,
    spent: u32,
    credentials: CredentialInodes,
    /// The last action decided and its decision, which a permit is made from.
    last: Option<(String, Decision)>,
}

impl<'j> Guard<'j> {
    /// The guard of a session pinned to `root`, in `repository`, with these standing answers.
    pub fn new(root: &Path, repository: &Path, standing: StandingAnswers) -> Self {
        Self {
            root: normalise(root),
            repository: normalise(repository),
            standing,
            session: StandingAnswers::none(),
            dont_ask: None,
            judge: Box::new(RulesJudge),
            budget: DEFAULT_BUDGET,
            spent: 0,
            credentials: CredentialInodes::default(),
            last: None,
        }
    }

    /// Lets the guard know the person's credential files by what they are (see
    /// [`CredentialInodes`]), so a hard link to one under another name is refused like it.
    pub fn set_credential_files(&mut self, credentials: CredentialInodes) {
        self.credentials = credentials;
    }

    /// Adds the standing answers the person gave for this session alone, each one an "allow
    /// always" answered to one of its questions. One that is not valid (nodwyn made each from
    /// an [`Offer`], so none should be) is left out: it answers nothing.
    pub fn with_session_answers<'a>(
        mut self,
        answers: impl IntoIterator<Item = &'a StandingAnswer>,
    ) -> Self {
        for answer in answers {
            let _ = self.session.add(answer);
        }
        self
    }

    /// The standing answer a person may give instead of allowing `effect` once: the narrowest
    /// one that would answer this very question, when the rules ask only an ordinary question
    /// about one command or one write. Never for a security confirm, for what cannot be undone
    /// or for what sends anything off the machine (see [`offer`](crate::offer)).
    pub fn offer(&self, effect: &Effect) -> Option<Offer> {
        if effect.irreversible || effect.egress.is_some() || effect.unconfined.is_some() {
            return None;
        }
        if self.rules(effect).decision != Decision::Ask(AskKind::Ordinary) {
            return None;
        }
        let offer = match (&effect.command, effect.writes.as_slice()) {
            (Some(command), []) => offer::for_command(command)?,
            (None, [path]) => {
                let judged = Denylist::standard().judge(path, &self.root);
                offer::for_write(judged.normalised.strip_prefix(&self.root).ok()?)?
            }
            _ => return None,
        };
        // Offered only if it would answer the question: nothing else in it still asks.
        let mut trial = self.session.clone();
        trial.add(&offer.answer).ok()?;
        (self.rules_with(effect, &trial).decision == Decision::Allow).then_some(offer)
    }

    /// Consults `judge` before asking a person.
    pub fn with_judge(mut self, judge: Box<dyn Judge + 'j>) -> Self {
        self.judge = judge;
        self
    }

    /// Allows `budget` irreversible actions per turn before asking.
    pub fn with_budget(mut self, budget: u32) -> Self {
        self.budget = budget;
        self
    }

    /// Turns "Don't ask" on (`Some`) or off (`None`).
    pub fn set_dont_ask(&mut self, dont_ask: Option<DontAsk>) {
        self.dont_ask = dont_ask;
    }

    /// Carries a turn's spending over from the guard of its previous call: `spent` irreversible
    /// actions were allowed in this turn already.
    pub fn with_spent(mut self, spent: u32) -> Self {
        self.spent = spent;
        self
    }

    /// How many irreversible actions this turn has been allowed so far.
    pub fn spent(&self) -> u32 {
        self.spent
    }

    /// Starts a new turn: the budget of irreversible actions is full again.
    pub fn start_turn(&mut self) {
        self.spent = 0;
    }

    /// Records that a person approved an irreversible action the guard asked about.
    pub fn approved_by_person(&mut self, effect: &Effect) {
        if effect.irreversible {
            self.spent += 1;
        }
    }

    /// The answer to `effect`.
    pub fn decide(&mut self, effect: &Effect) -> Verdict {
        let mut verdict = self.rules(effect);
        if effect.irreversible && verdict.decision != Decision::Refuse && self.spent >= self.budget
        {
            verdict = verdict.strongest(Verdict::by_rule(
                Decision::Ask(AskKind::Security),
                format!(
                    "this turn has taken its {} irreversible action(s) already",
                    self.budget
                ),
            ));
        }
        if verdict.decision != Decision::Refuse
            && let Some(judged) = self.judge.judge(effect, &verdict)
        {
            let judge_may_answer = judged.decision == Decision::Refuse
                || (judged.decision == Decision::Allow
                    && verdict.decision == Decision::Ask(AskKind::Ordinary));
            if judge_may_answer {
                verdict = Verdict {
                    by: DecidedBy::Judge,
                    ..judged
                };
            }
        }
        if verdict.decision == Decision::Ask(AskKind::Ordinary)
            && let Some(dont_ask) = &self.dont_ask
        {
            verdict = Verdict {
                decision: Decision::Allow,
                by: DecidedBy::DontAsk(dont_ask.turned_on_by.clone()),
                why: format!("Don't ask is on ({})", verdict.why),
            };
        }
        if verdict.decision == Decision::Allow && effect.irreversible {
            self.spent += 1;
        }
        self.last = Some((effect.action.clone(), verdict.decision.clone()));
        verdict
    }

    /// Leave to run `effect`, when the guard's last decision was to allow it.
    pub fn permit(&mut self, effect: &Effect) -> Option<Permit> {
        match self.last.take() {
            Some((action, Decision::Allow)) if action == effect.action => Some(Permit::new(action)),
            other => {
                self.last = other;
                None
            }
        }
    }

    /// Leave to run `effect` after a person approved what the guard last asked about it; the
    /// approval counts against the turn's budget when the action cannot be undone.
    pub fn permit_approved(&mut self, effect: &Effect) -> Option<Permit> {
        match self.last.take() {
            Some((action, Decision::Ask(_))) if action == effect.action => {
                self.approved_by_person(effect);
                Some(Permit::new(action))
            }
            other => {
                self.last = other;
                None
            }
        }
    }

    /// The rules' answer, before budget, judge and "Don't ask".
    fn rules(&self, effect: &Effect) -> Verdict {
        self.rules_with(effect, &self.session)
    }

    /// The rules' answer with `session` as the session's own standing answers.
    fn rules_with(&self, effect: &Effect, session: &StandingAnswers) -> Verdict {
        let denylist = Denylist::standard();
        let mut verdict = Verdict::by_rule(Decision::Allow, "");
        // Which standing answers answered part of it: the file's, the session's, or both.
        let mut from_file = false;
        let mut from_session = false;
        for path in &effect.reads {
            let judged = denylist.judge(path, &self.root);
            if self.credentials.holds(&judged.normalised) {
                verdict = verdict.strongest(Verdict::by_rule(
                    Decision::Refuse,
                    format!(
                        "{} is one of your credential files under another name (a hard link); an agent may not read it",
                        path.display()
                    ),
                ));
            }
            if let Some(rule) = &judged.rule {
                verdict = verdict.strongest(Verdict::by_rule(
                    Decision::Refuse,
                    format!(
                        "{} is a credential file ({rule}); an agent may not read it",
                        path.display()
                    ),
                ));
            }
        }
        for path in &effect.writes {
            let judged = denylist.judge(path, &self.root);
            if self.credentials.holds(&judged.normalised) {
                verdict = verdict.strongest(Verdict::by_rule(
                    Decision::Refuse,
                    format!(
                        "{} is one of your credential files under another name (a hard link); an agent may not write it",
                        path.display()
                    ),
                ));
                continue;
            }
            let written = judged
                .target
                .clone()
                .unwrap_or_else(|| judged.normalised.clone());
            let next = if let Some(rule) = &judged.rule {
                Verdict::by_rule(
                    Decision::Refuse,
                    format!(
                        "{} is a credential file ({rule}); an agent may not write it",
                        path.display()
                    ),
                )
            } else if let Some(why) = self
                .protected(&judged.normalised)
                .or_else(|| self.protected(&written))
            {
                Verdict::by_rule(Decision::Ask(AskKind::Security), why)
            } else if !written.starts_with(&self.root) || !judged.normalised.starts_with(&self.root)
            {
                Verdict::by_rule(
                    Decision::Ask(AskKind::Security),
                    format!(
                        "{} is outside the session's folder {}",
                        path.display(),
                        self.root.display()
                    ),
                )
            } else if let Some(in_file) = covers(
                |answers| {
                    answers.approves_write(
                        judged
                            .normalised
                            .strip_prefix(&self.root)
                            .unwrap_or(&judged.normalised),
                    )
                },
                &self.standing,
                session,
            ) {
                from_file |= in_file;
                from_session |= !in_file;
                continue;
            } else {
                Verdict::by_rule(
                    Decision::Ask(AskKind::Ordinary),
                    format!("writes {}", path.display()),
                )
            };
            verdict = verdict.strongest(next);
        }
        if let Some(command) = &effect.command
            && let Some(why) = &effect.unconfined
        {
            verdict = verdict.strongest(Verdict::by_rule(
                Decision::Ask(AskKind::Security),
                format!("runs `{}` unconfined: {why}", command.text()),
            ));
        }
        if let Some(command) = &effect.command {
            if let Some(in_file) = covers(
                |answers| answers.approving_prefix(command).is_some(),
                &self.standing,
                session,
            ) {
                from_file |= in_file;
                from_session |= !in_file;
            } else {
                verdict = verdict.strongest(Verdict::by_rule(
                    Decision::Ask(AskKind::Ordinary),
                    format!("runs `{}`", command.text()),
                ));
            }
        }
        if let Some(egress) = &effect.egress {
            match egress.kind {
                EgressKind::Push if self.standing.approves_push(&egress.destinations) => {
                    from_file = true;
                }
                EgressKind::Push => {
                    verdict = verdict.strongest(Verdict::by_rule(
                        Decision::Ask(AskKind::Security),
                        format!(
                            "pushes to {}, which allow.toml's push list does not name",
                            egress.destinations.join(", ")
                        ),
                    ));
                }
                EgressKind::Upload => {
                    verdict = verdict.strongest(Verdict::by_rule(
                        Decision::Ask(AskKind::Security),
                        format!("sends data to {}", egress.destinations.join(", ")),
                    ));
                }
            }
        }
        if effect.irreversible {
            verdict = verdict.strongest(Verdict::by_rule(
                Decision::Ask(AskKind::Ordinary),
                format!("{} cannot be undone", effect.action),
            ));
        }
        if verdict.decision == Decision::Allow && (from_file || from_session) {
            verdict.by = DecidedBy::StandingAnswer;
            verdict.why = match (from_file, from_session) {
                (true, false) => "a standing answer in .nodwyn/allow.toml covers it",
                (false, _) => "a standing answer the person gave for this session covers it",
                (true, true) => {
                    "standing answers in .nodwyn/allow.toml and of this session cover it"
                }
            }
            .to_owned();
        }
        verdict
    }

    /// Why writing `path` is a security confirm, if it is: it is under `.git/` or `.nodwyn/` of
    /// the session's folder or of its repository (compared without case).
    /// A worktree lives inside its repository's `.nodwyn/worktrees/`, so a path inside the
    /// session's own folder is judged against that folder's `.git` and `.nodwyn` only.
    fn protected(&self, path: &Path) -> Option<String> {
        let lower = |p: &Path| PathBuf::from(p.to_string_lossy().to_lowercase());
        let inside_root = lower(path).starts_with(lower(&self.root));
        let path = lower(path);
        let bases: &[&PathBuf] = if inside_root {
            &[&self.root]
        } else {
            &[&self.root, &self.repository]
        };
        for base in bases {
            for folder in [".git", ".nodwyn"] {
                let protected = lower(&base.join(folder));
                if path.starts_with(&protected) {
                    let allow_file = lower(&base.join(".nodwyn").join("allow.toml"));
                    return Some(if path == allow_file {
                        format!(
                            "{} holds the standing answers; only a person changes it, each time",
                            path.display()
                        )
                    } else {
                        format!(
                            "{} is under {folder}/, which only a person may change",
                            path.display()
                        )
                    });
                }
            }
        }
        None
    }
}

/// Whether `approves` holds for the file's standing answers (`Some(true)`) or, failing that,
/// the session's (`Some(false)`).
fn covers(
    approves: impl Fn(&StandingAnswers) -> bool,
    file: &StandingAnswers,
    session: &StandingAnswers,
) -> Option<bool> {
    if approves(file) {
        Some(true)
    } else if approves(session) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
