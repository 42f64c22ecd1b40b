//! `worktree`: the session's worktree facts, or `null` outside a worktree session.

use nodwyn_guard::Effect;
use serde::Deserialize;

use crate::Error;
use crate::context::{Context, WorktreeInfo};
use crate::primitive::{Param, Primitive};

/// `worktree`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Worktree;

/// `worktree` takes no argument.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl Primitive for Worktree {
    type Args = NoArgs;
    type Output = Option<WorktreeInfo>;

    fn name(&self) -> &str {
        "worktree"
    }
    fn description(&self) -> &str {
        "The session's worktree (repository, branch, base, base commit, folder), or null."
    }
    fn params(&self) -> &[Param] {
        &[]
    }
    fn read_only(&self) -> bool {
        true
    }
    fn effect(&self, _args: &NoArgs, _ctx: &Context) -> Result<Effect, Error> {
        Ok(Effect::named("worktree"))
    }
    fn run(
        &self,
        _args: NoArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Option<WorktreeInfo>, Error> {
        Ok(ctx.worktree.clone())
    }
}
