//! The steps of a landing after its commit, in order: fetch the newest base, make the session's
//! commits again on it (or, for a conflict, rebase in the worktree), apply the strategy, scan, check
//! that the worktree can move, push (or move the local base), then move the branch and files.

use nodwyn_git::{graph, landed, rebase, replay, switch};

use super::journal::Journal;
use super::local_base::{self, LocalBase};
use super::stop::checkpoint;
use super::{
    Strategy, Target, apply_strategy, commit, conflict, fork_point, head_of, named, newest_base,
    publish, recover, short,
};
use crate::Error;
use crate::context::{Context, Fact, Push, WorktreeInfo};

/// What the steps after the commit did.
pub(super) struct Published {
    pub(super) onto: String,
    pub(super) landed: String,
    pub(super) commits: usize,
    pub(super) pushed: Option<Push>,
    pub(super) local_base: LocalBase,
    pub(super) branch_left: Option<String>,
}

/// What every step after the commit works with.
#[derive(Clone, Copy)]
pub(super) struct Landing<'a> {
    pub(super) ctx: &'a Context,
    pub(super) worktree: &'a WorktreeInfo,
    pub(super) target: &'a Target,
    pub(super) message: Option<&'a str>,
    pub(super) strategy: Strategy,
    pub(super) sign: bool,
}

impl Landing<'_> {
    /// The steps after the commit (see the module documentation). If a `git rebase` in the worktree
    /// rewrote the branch and a later step refuses, the branch and files are put back first.
    pub(super) fn publish_committed(self, journal: &mut Journal<'_>) -> Result<Published, Error> {
        let Landing {
            ctx,
            worktree,
            target,
            sign,
            ..
        } = self;
        let dir = worktree.path.as_path();
        checkpoint(ctx, "before it fetched the base")?;
        let onto = newest_base(ctx, worktree, target)?;
        checkpoint(ctx, "after it fetched the base")?;
        let head = head_of(dir)?;
        let fork = fork_point(dir, worktree, &head, &onto)?;
        let own = graph::commits_between(dir, &fork, &head)?;
        let resumed = journal.state.backup.is_some() || journal.state.moving.is_some();
        if own.is_empty() && !resumed {
            return Err(Error::declined(
                "nothing_to_land",
                format!(
                    "nothing to land: {} has no commit and no change that {} lacks",
                    worktree.branch, target.base
                ),
            ));
        }
        // Commits already on the base replay to nothing and are dropped; only when the replay
        // conflicts is the landed-by-content judgement asked (work squash-landed before would
        // conflict with itself), before a rebase in the worktree.
        let (tip, commits) = if own.is_empty() {
            (onto.clone(), 0)
        } else {
            match replay::replay(dir, &fork, &head, &onto, sign, sign)
                .map_err(|e| commit::signing_failure(sign, e))?
            {
                replay::Replayed::Done { tip, kept } => (tip, kept),
                replay::Replayed::Conflict { .. } if landed::is_landed(dir, &head, &onto)? => {
                    (onto.clone(), 0)
                }
                replay::Replayed::Conflict { .. } => {
                    self.rebase_in_worktree(journal, &head, &fork, &onto)?
                }
            }
        };
        let current = head_of(dir)?;
        let after = self.publish_tip(journal, &onto, &tip, &current);
        match after {
            Ok(published) => Ok(Published {
                commits,
                ..published
            }),
            Err(error) => Err(recover::put_back_rewritten(
                journal, worktree, &current, error,
            )),
        }
    }

    /// Runs the real `git rebase` in the worktree, for commits that conflict with the base: a
    /// conflict stops it there, left in progress for the person or agent to resolve. Returns the
    /// rebased tip and its commit count when it went through after all.
    fn rebase_in_worktree(
        self,
        journal: &mut Journal<'_>,
        head: &str,
        fork: &str,
        onto: &str,
    ) -> Result<(String, usize), Error> {
        let Landing {
            ctx,
            worktree,
            target,
            sign,
            ..
        } = self;
        let dir = worktree.path.as_path();
        refuse_in_the_way(dir, head, onto, "rebase the branch onto the new base")?;
        checkpoint(ctx, "before its rebase")?;
        journal.back_up_once(dir, head)?;
        journal.rebase(onto, fork)?;
        match rebase::rebase_onto(dir, onto, fork, sign) {
            Ok(rebase::Rebased::Done) => {
                let rebased = head_of(dir)?;
                Ok((
                    rebased.clone(),
                    graph::commits_between(dir, onto, &rebased)?.len(),
                ))
            }
            Ok(rebase::Rebased::Conflict(files)) => {
                Err(journal.leave_open(conflict(ctx, &target.base, &files)))
            }
            Err(error) => {
                let error = commit::signing_failure(sign, error);
                Err(recover::undo_stopped_rebase(ctx, journal, worktree, error))
            }
        }
    }

    /// After the new tip is made: the strategy, the scan, the check of the worktree, the push (or
    /// the local base), and the move of the branch and files.
    fn publish_tip(
        self,
        journal: &mut Journal<'_>,
        onto: &str,
        tip: &str,
        current: &str,
    ) -> Result<Published, Error> {
        let Landing {
            ctx,
            worktree,
            target,
            message,
            strategy,
            sign,
        } = self;
        let dir = worktree.path.as_path();
        let landed = if tip == onto {
            onto.to_owned()
        } else {
            apply_strategy(dir, strategy, message.unwrap_or_default(), onto, tip, sign)?
        };
        if landed != onto {
            publish::refuse_credentials(dir, onto, &landed)?;
        }
        if landed != current {
            refuse_in_the_way(
                dir,
                current,
                &landed,
                "move the worktree to the landed commit",
            )?;
        }
        checkpoint(ctx, "before it pushed")?;
        let pushed = match &target.remote {
            Some(remote) if landed != onto => {
                let ssh = publish::ssh_command(&target.config, ctx.ssh_command_inherited);
                // From the main checkout, so a remote with a relative URL (`../origin.git`) means
                // what it means there, as git resolves it.
                let network = nodwyn_git::Network {
                    ssh_command: ssh,
                    deadline: ctx.limits.git_network,
                    cancel: Some(ctx.interrupt.flag()),
                };
                journal.pushing(
                    &remote.remote,
                    &format!("refs/heads/{}", remote.branch),
                    &landed,
                )?;
                let push = publish::push_to(&worktree.repository, remote, onto, &landed, network)?;
                journal.published(format!(
                    "pushed {} to {} of {}",
                    short(&push.new),
                    push.reference,
                    push.remote
                ));
                crate::fault::point("land-pushed");
                journal.report(Fact::Pushed(push.clone()))?;
                Some(push)
            }
            _ => None,
        };
        let mut local_base = None;
        if target.remote.is_none() {
            let moved = local_base::move_local_base(&worktree.repository, &target.base, &landed)?;
            if let LocalBase::Left { why } = &moved {
                return Err(Error::declined(
                    "local_base_left",
                    format!(
                        "nothing landed: {why}; {} holds the work, so land again once that is settled",
                        worktree.branch
                    ),
                ));
            }
            local_base = Some(moved);
        }
        let mut branch_left = None;
        if landed != current {
            journal.back_up_once(dir, current)?;
            journal.moving(current, &landed)?;
            let reason = format!("nodwyn land: onto {}", target.base);
            if let Err(error) = switch::switch(dir, &worktree.branch, current, &landed, &reason) {
                branch_left = Some(format!(
                    "the branch and files stay at {} ({error}); its work is landed all the same",
                    short(current)
                ));
            }
        }
        // After a push, failing to move the local base must not make the landing look failed.
        let local_base = match local_base {
            Some(moved) => moved,
            None => local_base::move_local_base(&worktree.repository, &target.base, &landed)
                .unwrap_or_else(|e| LocalBase::Left {
                    why: format!("it could not be moved: {e}"),
                }),
        };
        Ok(Published {
            onto: onto.to_owned(),
            landed,
            commits: 0,
            pushed,
            local_base,
            branch_left,
        })
    }
}

/// Refuses when moving the worktree from `from` to `to` (to `doing`) would overwrite or delete
/// something git does not track, or a change not committed.
fn refuse_in_the_way(
    dir: &std::path::Path,
    from: &str,
    to: &str,
    doing: &str,
) -> Result<(), Error> {
    refuse_if_in_the_way(dir, from, to, |found| {
        format!(
            "the landing would have to overwrite or delete {found} in the worktree to {doing}, and git does not have their content (untracked or ignored files, or changes left out of the commit); it stopped before rewriting or pushing anything. Move them out of the way, then land again"
        )
    })
}

/// Refuses with `sentence` (given the paths, named) when moving the worktree at `dir` from
/// `from` to `to` would overwrite what git does not have (see [`switch::in_the_way`]).
pub(super) fn refuse_if_in_the_way(
    dir: &std::path::Path,
    from: &str,
    to: &str,
    sentence: impl FnOnce(&str) -> String,
) -> Result<(), Error> {
    let found = switch::in_the_way(dir, from, to)?;
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::declined(
        "files_in_the_way",
        sentence(&named(&found)),
    ))
}
