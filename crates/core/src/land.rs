//! `nodwyn land`: a person lands a worktree session's work, or undoes a landing that stopped
//! (`--abort`). It is the person's own decision, so no guard question is asked; every refusal
//! built into the step (credential files left out, an L1 hit, a hooks path inside the worktree, a
//! non-fast-forward) still holds. The landing's journal (`land.*`), `git.push` and `git.land` are
//! written to the session's log as they happen.

use nodwyn_prim::land::{
    Aborted, Landed, Strategy, abort as abort_worktree, land as land_worktree,
};

use crate::Error;
use crate::call::{append, record_as_it_happens};
use crate::event::Event;
use crate::host::{HostSettings, context_of};
use crate::store::Store;
use crate::worktree::create::onto_branch;
use crate::worktree::{finished_worktree, locked_session};

/// Lands session `id` with `message` (needed when there is something to commit, or for a squash
/// or merge commit) and `strategy`; `onto` chooses the branch it lands on first (recorded as
/// `worktree.onto`, and kept for later landings).
pub fn land(
    store: &Store,
    id: &str,
    message: Option<&str>,
    strategy: Strategy,
    onto: Option<&str>,
    delete_missing: bool,
    settings: &HostSettings,
) -> Result<Landed, Error> {
    // No turn may run while the person lands, in this process or another: an agent writing
    // would change what lands mid-landing. The turn's own lock is held until the landing ends,
    // so no turn starts meanwhile either.
    let Some(_no_turn) = crate::turn::turn_lock(&store.find(id)?)? else {
        return Err(Error::declined_busy(id));
    };
    let mut locked = locked_session(store, id)?;
    let facts = finished_worktree(&locked.session)?;
    if let Some(onto) = onto {
        let chosen = onto_branch(&facts.repository, onto)?;
        append(
            &locked.stored.log,
            Event::WorktreeOnto {
                base: chosen.branch.clone(),
                base_remote: chosen.remote.clone(),
            },
        )?;
        if let Some(facts) = &mut locked.session.worktree {
            facts.base = chosen.branch;
            facts.base_remote = chosen.remote;
        }
    }
    let mut ctx = context_of(&locked.session, settings);
    // The person's own landing commits every new file (and names them), and the deletion of
    // files missing from the folder once they confirmed it.
    ctx.written = None;
    ctx.deletions_confirmed = delete_missing;
    record_as_it_happens(&mut ctx, &locked.stored.log, "person");
    Ok(land_worktree(&ctx, message, strategy, &[])?)
}

/// Undoes session `id`'s landing in progress: the branch and the worktree's files go back to how
/// they were before it began. With no landing in progress it changes nothing.
pub fn abort(store: &Store, id: &str, settings: &HostSettings) -> Result<Aborted, Error> {
    let locked = locked_session(store, id)?;
    finished_worktree(&locked.session)?;
    let mut ctx = context_of(&locked.session, settings);
    record_as_it_happens(&mut ctx, &locked.stored.log, "person");
    Ok(abort_worktree(&ctx)?)
}
