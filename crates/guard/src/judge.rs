//! The judge: consulted for every action the guard's rules did not refuse, before a person is
//! asked, so a policy (a strategy's `(on-call)`, a model) can refuse any of them or approve an
//! ordinary question. It can never approve a security confirm: those are a person's alone.

use crate::decision::Verdict;
use crate::effect::Effect;

/// A policy consulted before a person is asked.
pub trait Judge: Send + Sync {
    /// An answer to `effect`, whose answer so far is `proposed` (an allow or an ask), or `None`
    /// to leave it as it is.
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict>;
}

/// Several judges asked in order: the first to answer gives the answer.
pub struct Judges<'j>(pub Vec<Box<dyn Judge + 'j>>);

impl Judge for Judges<'_> {
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict> {
        self.0
            .iter()
            .find_map(|judge| judge.judge(effect, proposed))
    }
}

/// The default judge: the guard's rules have already answered; it adds nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct RulesJudge;

impl Judge for RulesJudge {
    fn judge(&self, _effect: &Effect, _proposed: &Verdict) -> Option<Verdict> {
        None
    }
}
