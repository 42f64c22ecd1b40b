//! `nodwyn run --headless --push-branch`: the session's branch sent to its base's remote after the
//! run, by [`nodwyn_prim::land::push_branch`], with the person's allow list as the judge of where.

use nodwyn_prim::land::BranchPushed;

use crate::Error;
use crate::call::record_as_it_happens;
use crate::host::{HostSettings, context_of, standing_answers};
use crate::store::Store;
use crate::worktree::{finished_worktree, locked_session};

/// Commits session `id`'s changes with `message` and pushes its branch, when the push list of the
/// repository's (untracked) `allow.toml` names every push URL of the base's remote. The commit
/// and the push are recorded in the session's log as they happen.
pub fn push_branch(
    store: &Store,
    id: &str,
    message: &str,
    settings: &HostSettings,
) -> Result<BranchPushed, Error> {
    let Some(_no_turn) = crate::turn::turn_lock(&store.find(id)?)? else {
        return Err(Error::declined_busy(id));
    };
    let locked = locked_session(store, id)?;
    let facts = finished_worktree(&locked.session)?;
    let (standing, _) = standing_answers(&facts.repository)?;
    let mut ctx = context_of(&locked.session, settings);
    record_as_it_happens(
        &mut ctx,
        &locked.stored.log,
        "nodwyn run --headless --push-branch",
    );
    Ok(nodwyn_prim::land::push_branch(&ctx, message, |urls| {
        standing.approves_push(urls)
    })?)
}
