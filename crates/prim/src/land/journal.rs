//! A landing's journal: what it did, written to the session's log before each step that changes
//! something, so a landing stopped at any point (Ctrl-C, a killed process, a machine that stops)
//! can be finished or undone by the next one, and the backup refs that keep the branch's commits
//! before anything rewrites them.

use std::path::Path;

use nodwyn_git::{GitCommand, graph};

use crate::Error;
use crate::context::{Context, Fact, LandOutcome, PendingLanding};

/// The journal of the landing in progress.
pub(super) struct Journal<'a> {
    ctx: &'a Context,
    /// What the journal holds so far (an earlier process's records included).
    pub state: PendingLanding,
    ended: bool,
    /// What the push published, once it did: from then on a record that cannot be written no
    /// longer stops the landing (the work is out; stopping would only hide that).
    published: Option<String>,
    /// Why a record after the push could not be written, when one could not.
    unrecorded: Option<String>,
}

impl<'a> Journal<'a> {
    /// Begins a landing of a branch whose tip is `head`.
    pub(super) fn begin(ctx: &'a Context, head: &str, strategy: &str) -> Result<Self, Error> {
        tracing::info!(%head, strategy, "landing begins");
        ctx.report(Fact::LandBegin {
            head: head.to_owned(),
            strategy: strategy.to_owned(),
        })?;
        Ok(Self {
            ctx,
            state: PendingLanding {
                head: head.to_owned(),
                ..PendingLanding::default()
            },
            ended: false,
            published: None,
            unrecorded: None,
        })
    }

    /// Goes on with a landing an earlier process began (a rebase it left at a conflict).
    pub(super) fn resume(ctx: &'a Context, state: PendingLanding) -> Self {
        tracing::info!(head = %state.head, "an unfinished landing goes on");
        Self {
            ctx,
            state,
            ended: false,
            published: None,
            unrecorded: None,
        }
    }

    /// Keeps `commit` under a new backup ref of the session and records it, before anything
    /// rewrites the branch. Returns the ref.
    pub(super) fn back_up(&mut self, dir: &Path, commit: &str) -> Result<String, Error> {
        let reference = next_backup_ref(dir, &self.ctx.session)?;
        graph::update_ref(dir, &reference, commit, "", "nodwyn land: backup")?;
        tracing::info!(%reference, commit, "the branch's tip is kept");
        self.report(Fact::LandBackup {
            reference: reference.clone(),
            commit: commit.to_owned(),
        })?;
        if self.state.backup.is_none() {
            self.state.backup = Some((reference.clone(), commit.to_owned()));
        }
        Ok(reference)
    }

    /// Keeps `commit` under a backup ref unless the landing kept one already: the first backup is
    /// what an abort puts the branch back to.
    pub(super) fn back_up_once(&mut self, dir: &Path, commit: &str) -> Result<(), Error> {
        if self.state.backup.is_none() {
            self.back_up(dir, commit)?;
        }
        Ok(())
    }

    /// Records that a `git rebase` of the commits after `upstream` onto `onto` is about to run in
    /// the worktree.
    pub(super) fn rebase(&mut self, onto: &str, upstream: &str) -> Result<(), Error> {
        tracing::info!(
            onto,
            upstream,
            "the commits conflict: git rebase runs in the worktree"
        );
        self.ctx.report(Fact::LandRebase {
            onto: onto.to_owned(),
            upstream: upstream.to_owned(),
        })?;
        self.state.rebase = Some((onto.to_owned(), upstream.to_owned()));
        Ok(())
    }

    /// Records that a push of `commit` to `reference` of `remote` is about to begin.
    pub(super) fn pushing(
        &mut self,
        remote: &str,
        reference: &str,
        commit: &str,
    ) -> Result<(), Error> {
        self.ctx.report(Fact::LandPush {
            remote: remote.to_owned(),
            reference: reference.to_owned(),
            commit: commit.to_owned(),
        })?;
        self.state.push = Some((remote.to_owned(), reference.to_owned(), commit.to_owned()));
        Ok(())
    }

    /// Records that the worktree and branch are about to move from `from` to `to`.
    pub(super) fn moving(&mut self, from: &str, to: &str) -> Result<(), Error> {
        tracing::info!(from, to, "the branch and files move");
        self.report(Fact::LandMove {
            from: from.to_owned(),
            to: to.to_owned(),
        })?;
        self.state.moving = Some((from.to_owned(), to.to_owned()));
        Ok(())
    }

    /// Ends the landing.
    pub(super) fn end(&mut self, outcome: LandOutcome, why: Option<String>) -> Result<(), Error> {
        self.ended = true;
        tracing::info!(?outcome, why = why.as_deref().unwrap_or(""), "landing ends");
        self.report(Fact::LandEnd { outcome, why })
    }

    /// Records `fact`; after the push, a record that cannot be written is remembered instead of
    /// stopping the landing (see [`Journal::unrecorded`]).
    pub(super) fn report(&mut self, fact: Fact) -> Result<(), Error> {
        match self.ctx.report(fact) {
            Err(error) if self.published.is_some() => {
                tracing::warn!(%error, "a landing's record could not be written after its push");
                self.unrecorded.get_or_insert_with(|| error.to_string());
                Ok(())
            }
            reported => reported,
        }
    }

    /// Notes that the push published `what` (`COMMIT to REF of REMOTE`).
    pub(super) fn published(&mut self, what: String) {
        self.published = Some(what);
    }

    /// When a record after the push could not be written: what was published, and why.
    pub(super) fn unrecorded(&self) -> Option<(&str, &str)> {
        Some((self.published.as_deref()?, self.unrecorded.as_deref()?))
    }

    /// Ends the landing with the outcome `error` stands for, and returns the error.
    pub(super) fn fail(&mut self, error: Error) -> Error {
        let outcome = match &error {
            Error::Refused(_) | Error::Declined { .. } => LandOutcome::Refused,
            Error::Interrupted(_) => LandOutcome::Interrupted,
            _ => LandOutcome::Failed,
        };
        if let Err(unrecorded) = self.end(outcome, Some(error.to_string())) {
            tracing::warn!(%unrecorded, "the end of a landing could not be recorded");
        }
        error
    }

    /// Leaves the landing unfinished on purpose (a rebase stopped at a conflict, for the person or
    /// agent to resolve), and returns `error`.
    pub(super) fn leave_open(&mut self, error: Error) -> Error {
        self.ended = true;
        error
    }

    /// Whether the landing has ended (or was left open on purpose).
    pub(super) fn is_settled(&self) -> bool {
        self.ended
    }
}

/// `refs/nodwyn/backup/<short id>/<n>`, with `n` one more than the highest the session has.
fn next_backup_ref(dir: &Path, session: &str) -> Result<String, Error> {
    let prefix = format!("refs/nodwyn/backup/{}/", super::short_id(session));
    let listed = GitCommand::new(dir)
        .read_only()
        .args(["for-each-ref", "--format=%(refname)", &prefix])
        .run_text()?;
    let highest = listed
        .lines()
        .filter_map(|r| r.strip_prefix(&prefix)?.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    Ok(format!("{prefix}{}", highest + 1))
}
