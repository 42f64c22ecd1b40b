//! What a session's runtime owns beside its plain settings: the judge model the person
//! configured and the strategy engines kept from one call to the next.
//!
//! The call path knows neither: it asks whoever calls it for the judges of each call
//! ([`CallJudges`]), and [`Services`] answers with the repository's approved strategy (unless
//! the strategy made the call) and then the judge model.

use std::sync::Arc;

use nodwyn_guard::{Effect, Judge, Verdict};

use crate::call::{CallJudges, CallToJudge};
use crate::scripts::{StrategyEngines, StrategyJudge};

/// A judge several calls share.
#[derive(Clone)]
pub struct SharedJudge(pub Arc<dyn Judge>);

impl std::fmt::Debug for SharedJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedJudge(..)")
    }
}

impl Judge for SharedJudge {
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict> {
        self.0.judge(effect, proposed)
    }
}

/// The services of a session's runtime. Clones share the kept engines, so the sessions of one
/// process keep at most four between them.
#[derive(Debug, Clone, Default)]
pub struct Services {
    /// The judge consulted before a person is asked (a model, with `[judge] model`); none: the
    /// guard's rules alone.
    judge: Option<SharedJudge>,
    /// The engines of the strategy's `(on-call)`, kept from one call to the next.
    strategy_engines: StrategyEngines,
}

impl Services {
    /// The services of a runtime whose ordinary questions `judge` answers first, if any.
    pub fn new(judge: Option<SharedJudge>) -> Self {
        Self {
            judge,
            strategy_engines: StrategyEngines::default(),
        }
    }

    /// The same services with `judge` as the judge model: for another session of the process,
    /// sharing the kept engines.
    pub fn with_judge(&self, judge: Option<SharedJudge>) -> Self {
        Self {
            judge,
            strategy_engines: self.strategy_engines.clone(),
        }
    }
}

impl CallJudges for Services {
    fn judges<'a>(&'a self, call: &CallToJudge<'a>) -> Vec<Box<dyn Judge + 'a>> {
        let mut judges: Vec<Box<dyn Judge + 'a>> = Vec::new();
        // The strategy's (on-call) first (it may only refuse, and not its own calls), then the
        // person's judge model.
        if !call.by_strategy {
            judges.push(Box::new(StrategyJudge {
                call: *call,
                engines: &self.strategy_engines,
                judges: self,
            }));
        }
        if let Some(judge) = &self.judge {
            judges.push(Box::new(judge.clone()));
        }
        judges
    }
}
