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
use crate::permit::Permit;
use crate::standing::StandingAnswers;

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
        let denylist = Denylist::standard();
        let mut verdict = Verdict::by_rule(Decision::Allow, "");
        let mut standing_used = false;
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
            } else if self.standing.approves_write(
                judged
                    .normalised
                    .strip_prefix(&self.root)
                    .unwrap_or(&judged.normalised),
            ) {
                standing_used = true;
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
            if self.standing.approving_prefix(command).is_some() {
                standing_used = true;
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
                    standing_used = true;
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
        if verdict.decision == Decision::Allow && standing_used {
            verdict.by = DecidedBy::StandingAnswer;
            verdict.why = "a standing answer in .nodwyn/allow.toml covers it".to_owned();
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

#[cfg(test)]
mod tests;
