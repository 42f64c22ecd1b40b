//! `nodwyn land`: a person lands a worktree session's work. It is the person's own decision, so
//! no guard question is asked; every refusal built into the step (credential files left out, an
//! L1 hit, a hooks path inside the worktree, a non-fast-forward) still holds. Records `git.push`
//! and `git.land`.

use nodwyn_prim::land::{Landed, Strategy, land as land_worktree};

use crate::Error;
use crate::call::{append, fact_event};
use crate::host::{HostSettings, context_of};
use crate::store::Store;
use crate::worktree::{active_worktree, locked_session};

/// Lands session `id` with `message` and `strategy`.
pub fn land(
    store: &Store,
    id: &str,
    message: &str,
    strategy: Strategy,
    settings: &HostSettings,
) -> Result<Landed, Error> {
    let locked = locked_session(store, id)?;
    active_worktree(&locked.session)?;
    let ctx = context_of(&locked.session, settings);
    let log = &locked.stored.log;
    let outcome = land_worktree(&ctx, message, strategy);
    for fact in ctx.take_facts() {
        append(log, fact_event(fact, "person"))?;
    }
    Ok(outcome?)
}
