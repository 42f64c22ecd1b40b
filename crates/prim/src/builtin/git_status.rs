//! `git-status`: what the session's checkout has that is not committed, credential files left out
//! and named.

use std::path::Path;

use nodwyn_git::status::{Detail, changes};
use nodwyn_guard::Denylist;
use serde::{Deserialize, Serialize};

use super::worktree::NoArgs;
use crate::Error;
use crate::context::Context;
use crate::primitive::{Param, Primitive};

/// `git-status`.
#[derive(Debug, Clone, Copy, Default)]
pub struct GitStatus;

/// One changed path.
#[derive(Debug, Serialize, Deserialize)]
pub struct StatusEntry {
    /// `git status --porcelain`'s two letters (`" M"`, `"??"`, ...).
    pub code: String,
    /// The path, relative to the checkout's top.
    pub path: String,
}

/// What `git-status` gives back.
#[derive(Debug, Serialize)]
pub struct Status {
    /// The changes shown.
    pub changes: Vec<StatusEntry>,
    /// Changed credential files, named but not shown as changes an agent may act on.
    pub left_out: Vec<String>,
}

impl Primitive for GitStatus {
    type Args = NoArgs;
    type Output = Status;

    fn name(&self) -> &str {
        "git-status"
    }
    fn description(&self) -> &str {
        "Lists the checkout's uncommitted changes (staged, unstaged, untracked)."
    }
    fn params(&self) -> &[Param] {
        &[]
    }
    fn read_only(&self) -> bool {
        true
    }
    fn effect(&self, _args: &NoArgs, ctx: &Context) -> Result<nodwyn_guard::Effect, Error> {
        let mut effect = nodwyn_guard::Effect::named("git-status");
        effect.reads.push(ctx.root.clone());
        Ok(effect)
    }
    fn run(
        &self,
        _args: NoArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Status, Error> {
        if let Some(worktree) = &ctx.worktree {
            crate::checkout::verified(worktree)?;
        }
        let denylist = Denylist::standard();
        let mut status = Status {
            changes: Vec::new(),
            left_out: Vec::new(),
        };
        for change in changes(&ctx.root, Detail::Files)? {
            if change.code == "!!" {
                continue;
            }
            if denylist
                .judge(Path::new(&change.path), &ctx.root)
                .is_denied()
            {
                status.left_out.push(change.path);
            } else {
                status.changes.push(StatusEntry {
                    code: change.code,
                    path: change.path,
                });
            }
        }
        Ok(status)
    }
}
