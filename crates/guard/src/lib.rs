//! `nodwyn-guard`: what stands around every action an agent takes.
//!
//! - [`scan`]: L1, credential shapes in text and in the added lines of diffs.
//! - [`denylist`]: paths that hold credentials, which an agent may neither read, write nor
//!   commit.
//! - [`Guard`]: the answer to an [`Effect`] (allow, ask a person, or refuse), from the rules,
//!   the person's standing answers ([`StandingAnswers`]), the per-turn budget of irreversible
//!   actions, a [`Judge`], and "Don't ask" ([`DontAsk`]); the narrowest standing answer a
//!   person may give "always" instead of once ([`Offer`]); each answer can be kept as a
//!   `guard.decision` record.
//!
//! The crate depends on no other nodwyn crate and never prints.

mod decision;
pub mod denylist;
mod effect;
mod error;
mod guard;
mod judge;
pub mod offer;
mod permit;
pub mod scan;
mod standing;

pub use decision::{AskKind, DecidedBy, Decision, DecisionRecord, Verdict};
pub use denylist::{
    CredentialInodes, Denylist, Judged, PathVerdict, credential_files, credential_files_beneath,
    git_config_without_credentials,
};
pub use effect::{CommandLine, Effect, Egress, EgressKind};
pub use error::Error;
pub use guard::{DEFAULT_BUDGET, DontAsk, Guard};
pub use judge::{Judge, Judges, RulesJudge};
pub use offer::Offer;
pub use permit::Permit;
pub use scan::{Finding, Scanner};
pub use standing::{StandingAnswer, StandingAnswers};
