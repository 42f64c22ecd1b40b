//! `git-diff`: the checkout's changes since HEAD (or, in a worktree session, since the session's
//! base commit), file by file, credential files left out and named (see `review`).

use nodwyn_guard::Effect;
use serde::Deserialize;

use crate::Error;
use crate::context::Context;
use crate::primitive::{Param, ParamKind, Primitive};
use crate::review::{Caps, Review, review};

/// `git-diff [since]`.
#[derive(Debug, Clone, Copy, Default)]
pub struct GitDiff;

/// The arguments of `git-diff`.
#[derive(Debug, Deserialize)]
pub struct GitDiffArgs {
    /// `head` (the default) or `base` (the worktree session's base commit).
    #[serde(default)]
    pub since: Option<String>,
}

const PARAMS: &[Param] = &[Param::optional(
    "since",
    ParamKind::String,
    "`head` (uncommitted changes, the default) or `base` (everything the session has not landed yet)",
)];

impl Primitive for GitDiff {
    type Args = GitDiffArgs;
    type Output = Review;

    fn name(&self) -> &str {
        "git-diff"
    }
    fn description(&self) -> &str {
        "Shows the checkout's changes since HEAD or since the session's base commit."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn read_only(&self) -> bool {
        true
    }
    fn effect(&self, _args: &GitDiffArgs, ctx: &Context) -> Result<Effect, Error> {
        let mut effect = Effect::named("git-diff");
        effect.reads.push(ctx.root.clone());
        Ok(effect)
    }
    fn run(
        &self,
        args: GitDiffArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Review, Error> {
        if let Some(worktree) = &ctx.worktree {
            crate::checkout::verified(worktree)?;
        }
        let since = match args.since.as_deref().unwrap_or("head") {
            "head" => nodwyn_git::repo::resolve_commit(&ctx.root, "HEAD")?.ok_or_else(|| {
                Error::declined("no_commit", "git-diff: the checkout has no commit yet")
            })?,
            "base" => ctx.require_worktree("git-diff since base")?.work_starts()?,
            other => {
                return Err(Error::declined(
                    "bad_since",
                    format!("git-diff: `since` is `head` or `base`, not `{other}`"),
                ));
            }
        };
        review(&ctx.root, &since, &Caps::of(&ctx.limits))
    }
}
