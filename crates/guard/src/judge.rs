//! The judge: consulted before a person is asked, so a policy (and later a model) can approve or
//! refuse an ordinary question. It may refuse anything, but it can never approve a security
//! confirm: those are a person's alone.

use crate::decision::Verdict;
use crate::effect::Effect;

/// A policy consulted before a person is asked.
pub trait Judge: Send + Sync {
    /// An answer to `effect`, whose answer so far is `proposed` (an ask), or `None` to leave it
    /// to the person.
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict>;
}

/// The default judge: the guard's rules have already answered; it adds nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct RulesJudge;

impl Judge for RulesJudge {
    fn judge(&self, _effect: &Effect, _proposed: &Verdict) -> Option<Verdict> {
        None
    }
}
