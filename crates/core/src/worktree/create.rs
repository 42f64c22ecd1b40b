//! `worktree new`: open a session and make its worktree.
//!
//! Every refusal (not a repository, bare, no commit, below the top folder, a link on the way, a
//! bad `--base` or `--pr`) happens before anything is written. Then the session is opened (its
//! log's first record, `session.start`), the worktree made with `git worktree add` so the
//! person's hooks and filters run, `.worktreeinclude` applied, and `worktree.create` recorded.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use nodwyn_git::base::{LandingBranch, default_branch, landing_branch};
use nodwyn_git::repo::{branch_tip, resolve_commit};
use nodwyn_git::status::porcelain_line_count;
use nodwyn_git::worktree::add_with_new_branch;
use serde::Serialize;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Event, IncludeFailure, Record, WorktreeFacts};
use crate::id::SessionId;
use crate::session::{Session, sessions_of};
use crate::store::Store;
use crate::worktree::include::{INCLUDE_FILE, IncludeCounts, Included, copy_included};
use crate::worktree::location::{WorktreeLocation, prepare_root};
use crate::worktree::port::{self, PortRange};
use crate::worktree::pull_request::{fetch_head, parse_reference};
use crate::worktree::verdict::registration;

/// What `worktree new` was asked for.
#[derive(Debug, Clone, Default)]
pub struct NewWorktree {
    /// The checkout to start from (its top folder).
    pub dir: PathBuf,
    /// `--base REF`: start from this revision instead of the checkout's HEAD.
    pub base: Option<String>,
    /// `--pr N`: start from this pull request's head.
    pub pull_request: Option<String>,
    /// `--name NAME`: a name for the session, made a slug and put in the branch's name.
    pub name: Option<String>,
    /// `--onto BRANCH`: the branch the session lands on, when it is not the one it starts from.
    pub onto: Option<String>,
    /// Where the worktree goes.
    pub location: WorktreeLocation,
    /// The ports a session may be given one of.
    pub ports: PortRange,
    /// Where the copy of a large folder `.worktreeinclude` chose tells how it goes.
    pub progress: nodwyn_prim::Notices,
}

/// What `worktree new` made.
#[derive(Debug, Clone, Serialize)]
pub struct Created {
    /// The full session id.
    pub session: SessionId,
    /// The short id.
    pub id: String,
    /// The worktree's facts.
    #[serde(flatten)]
    pub worktree: WorktreeFacts,
    /// Lines of `git status --porcelain` in the checkout it came from, not carried over.
    pub uncommitted: usize,
    /// Paths `.worktreeinclude` copied in.
    pub included: Vec<String>,
    /// Paths it could not copy.
    pub include_failed: Vec<IncludeFailure>,
    /// How much `.worktreeinclude` copied, and how much of it by reflink.
    #[serde(skip_serializing_if = "IncludeCounts::is_empty")]
    pub include_counts: IncludeCounts,
    /// The checkout's strategy files (`.nodwyn/init.scm`, `.nodwyn/prompts.scm`) that git does
    /// not track, so the worktree does not have them: sessions in it run without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub strategy_not_carried: Vec<String>,
    /// Where a landing would go now: the remote branch that would move (`main of origin`) or the
    /// local base; `lands_refused` says why a landing would be refused instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lands_on: Option<String>,
    /// Why a landing would be refused now, before anything runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lands_refused: Option<String>,
}

/// The checkout's strategy files that git does not track (see [`Created::strategy_not_carried`]).
fn strategy_not_carried(repository: &Path) -> Vec<String> {
    [".nodwyn/init.scm", ".nodwyn/prompts.scm"]
        .into_iter()
        .filter(|file| repository.join(file).is_file())
        .filter(|file| !nodwyn_git::untracked::is_tracked(repository, file).unwrap_or(true))
        .map(str::to_owned)
        .collect()
}

/// Where the new branch starts, and what to record as its base.
struct Start {
    commit: String,
    base: String,
    base_remote: Option<String>,
    pull_request: Option<u64>,
}

/// Everything decided before anything is written: where the worktree goes and what it starts
/// from.
struct Plan {
    checkout: nodwyn_git::Checkout,
    repository: PathBuf,
    start: Start,
    root: PathBuf,
    name: Option<String>,
    ports: PortRange,
    progress: nodwyn_prim::Notices,
    /// The ports the repository's other sessions hold.
    held_ports: BTreeSet<u16>,
    /// The port chosen for each branch asked about, so that the facts are the same each time
    /// (a port's being in use can change between two looks).
    chosen_ports: Mutex<BTreeMap<String, Option<u16>>>,
}

impl Plan {
    /// The port of `branch`, chosen the first time it is asked for.
    fn port_of(&self, branch: &str) -> Option<u16> {
        let mut chosen = self
            .chosen_ports
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *chosen
            .entry(branch.to_owned())
            .or_insert_with(|| port::choose(branch, self.ports, &self.held_ports))
    }

    /// The worktree's facts for the session with `id`.
    fn facts_for(&self, id: &SessionId) -> WorktreeFacts {
        let branch = branch_name(id.short(), self.name.as_deref());
        WorktreeFacts {
            port: self.port_of(&branch),
            repository: self.repository.clone(),
            path: self.root.join(id.short()),
            branch,
            name: self.name.clone(),
            base: self.start.base.clone(),
            base_remote: self.start.base_remote.clone(),
            base_commit: self.start.commit.clone(),
            pull_request: self.start.pull_request,
        }
    }

    /// Whether a session with this short id could not have its folder or branch.
    fn taken(&self, short: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(short)).is_ok()
            || branch_tip(&self.repository, &branch_name(short, self.name.as_deref()))
                .is_ok_and(|t| t.is_some())
    }
}

/// Opens a session in a new worktree.
pub fn create(store: &Store, request: &NewWorktree) -> Result<Created, Error> {
    let plan = plan(store, request)?;
    let stored = store.open_session(
        &plan.repository,
        Timestamp::now(),
        |short| plan.taken(short),
        |id| {
            let facts = plan.facts_for(id);
            Record::new(
                Timestamp::now(),
                Event::SessionStart {
                    root: facts.path.clone(),
                    repository: plan.repository.clone(),
                    worktree: Some(facts),
                },
            )
        },
    )?;
    // Held while the worktree is made: a `resume` that finds no `worktree.create` and can take
    // the lock knows the making ended without finishing (see `resume::finish`).
    let _lock = stored.log.lock()?;
    make(&plan, &stored, true)
}

/// Makes a worktree for a session that began in the checkout `request.dir` and moves the
/// session into it (its `worktree.create` record moves the session's root): the session keeps
/// its id, log and conversation.
pub fn attach(
    store: &Store,
    stored: &crate::store::StoredSession,
    request: &NewWorktree,
) -> Result<Created, Error> {
    let plan = plan(store, request)?;
    if plan.taken(stored.id.short()) {
        return Err(Error::FolderInTheWay(plan.facts_for(&stored.id).path));
    }
    make(&plan, stored, false)
}

/// Decides what to make, refusing before anything is written.
fn plan(store: &Store, request: &NewWorktree) -> Result<Plan, Error> {
    let given = std::fs::canonicalize(&request.dir).map_err(Error::io(&request.dir))?;
    let checkout = nodwyn_git::discover(&given)?;
    // From any folder of a checkout, as git works: the checkout's top is where it starts.
    let dir = checkout.toplevel.clone();
    let name = request.name.as_deref().map(slug).transpose()?;
    // The repository's sessions, read once: the names, pull requests and ports they hold.
    let (sessions, _unreadable) = sessions_of(store, &checkout.repository)?;
    if let Some(name) = &name {
        refuse_a_name_in_use(&sessions, name)?;
    }
    let Some(head_commit) = checkout.head.commit.clone() else {
        return Err(Error::NoCommit(checkout.toplevel));
    };
    let repository = checkout.repository.clone();
    let head_branch = checkout.head.branch.clone().map(|branch| LandingBranch {
        branch,
        remote: None,
    });
    let (commit, started_on, pull_request) = if let Some(text) = &request.pull_request {
        let number = parse_reference(text)?;
        refuse_second_worktree_for(&sessions, number)?;
        let head = fetch_head(&repository, number)?;
        (head.commit, head_branch, Some(number))
    } else if let Some(base) = &request.base {
        let commit = resolve_commit(&dir, base)?.ok_or_else(|| Error::UnknownBase {
            base: base.clone(),
            repository: dir.clone(),
        })?;
        (commit, landing_branch(&dir, base)?, None)
    } else {
        (head_commit.clone(), head_branch, None)
    };
    let landing = match &request.onto {
        Some(onto) => Some(onto_branch(&dir, onto)?),
        None => match started_on {
            Some(branch) => Some(branch),
            None => default_branch(&repository)?,
        },
    };
    let start = Start {
        commit,
        base: landing
            .as_ref()
            .map(|l| l.branch.clone())
            .unwrap_or_default(),
        base_remote: landing.and_then(|l| l.remote),
        pull_request,
    };
    let root = prepare_root(
        store,
        &repository,
        request.location,
        &[head_commit.as_str(), start.commit.as_str()],
    )?;
    let held_ports = port::held_ports(&sessions);
    Ok(Plan {
        checkout,
        repository,
        start,
        root,
        name,
        ports: request.ports,
        progress: request.progress.clone(),
        held_ports,
        chosen_ports: Mutex::new(BTreeMap::new()),
    })
}

/// Makes the worktree of `stored` as `plan` says, and records it. A `fresh` session's log goes
/// again when git made nothing.
fn make(plan: &Plan, stored: &crate::store::StoredSession, fresh: bool) -> Result<Created, Error> {
    let facts = plan.facts_for(&stored.id);
    let checkout = &plan.checkout;
    let repository = &plan.repository;
    // The checkout's uncommitted changes are counted on another core while git checks the new
    // worktree out: the two read and write different folders.
    let (added, counted) = std::thread::scope(|scope| {
        let count = scope.spawn(|| porcelain_line_count(&checkout.toplevel));
        let added = add_with_new_branch(
            &checkout.toplevel,
            &facts.path,
            &facts.branch,
            &plan.start.commit,
        );
        (added, count.join())
    });
    if let Err(failure) = added {
        let error = handle_failed_add(&stored.log, &stored.id, &facts, failure, fresh);
        // git's own words for a full disk seldom say so ("Could not reset index file").
        return Err(match crate::error::full_disk_at(&facts.path) {
            Some(disk) => Error::DiskFull {
                disk,
                source: Box::new(error),
            },
            None => error,
        });
    }
    // The worktree exists now: what follows is bookkeeping, and a failure in it is reported in
    // the result rather than leaving a worktree the log does not know.
    let uncommitted = match counted {
        Ok(Ok(count)) => count,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "could not count the uncommitted changes");
            0
        }
        Err(_) => {
            tracing::warn!("counting the uncommitted changes panicked");
            0
        }
    };
    let mut included =
        copy_included(repository, &facts.path, &plan.progress).unwrap_or_else(|e| Included {
            failed: vec![IncludeFailure {
                path: INCLUDE_FILE.to_owned(),
                error: e.to_string(),
            }],
            ..Included::default()
        });
    copy_override(repository, &facts.path, &mut included);
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::WorktreeCreate {
            worktree: facts.clone(),
            uncommitted,
            included: included.copied.clone(),
            include_failed: included.failed.clone(),
        },
    ))?;
    super::config::record(&stored.log, &stored.id.to_string(), &facts.path, None)?;
    let destination = if facts.base.is_empty() {
        Err(String::new())
    } else {
        nodwyn_prim::land::destination(&crate::host::worktree_info_of(&facts))
    };
    Ok(Created {
        id: stored.id.short().to_owned(),
        session: stored.id.clone(),
        worktree: facts,
        uncommitted,
        included: included.copied,
        include_failed: included.failed,
        include_counts: included.counts,
        strategy_not_carried: strategy_not_carried(repository),
        lands_on: destination.as_ref().ok().cloned(),
        lands_refused: destination.err(),
    })
}

/// The person's own instructions for agents (`AGENTS.override.md`, kept out of git) go into
/// every new worktree, listed in `.worktreeinclude` or not; a link is not followed.
fn copy_override(checkout: &Path, worktree: &Path, included: &mut Included) {
    use crate::scripts::instructions::OVERRIDE;
    let target = worktree.join(OVERRIDE);
    if std::fs::symlink_metadata(&target).is_ok() || included.copied.iter().any(|c| c == OVERRIDE) {
        return;
    }
    match crate::scripts::strategy::read_plain(&checkout.join(OVERRIDE)) {
        Ok(None) => {}
        Ok(Some(text)) => match std::fs::write(&target, text) {
            Ok(()) => included.copied.push(OVERRIDE.to_owned()),
            Err(e) => included.failed.push(IncludeFailure {
                path: OVERRIDE.to_owned(),
                error: e.to_string(),
            }),
        },
        Err(why) => included.failed.push(IncludeFailure {
            path: OVERRIDE.to_owned(),
            error: why,
        }),
    }
}

/// The branch of the session with this short id and name.
pub fn branch_name(short: &str, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("nodwyn/{name}-{short}"),
        None => format!("nodwyn/{short}"),
    }
}

/// The branch `--onto` names, or the refusal of a name that is no branch.
pub(crate) fn onto_branch(dir: &Path, onto: &str) -> Result<LandingBranch, Error> {
    landing_branch(dir, onto)?.ok_or_else(|| {
        Error::declined("onto_not_a_branch", format!(
            "`{onto}` is not a branch (a local one, or a remote-tracking one such as origin/main), so nothing can land on it"
        ))
    })
}

/// The longest slug a session's name becomes.
const LONGEST_NAME: usize = 40;

/// A session's name as it goes into a branch: lowercase ASCII letters and digits, every other run
/// of characters one `-`, no `-` at either end, at most 40 characters.
pub(crate) fn slug(name: &str) -> Result<String, Error> {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.truncate(LONGEST_NAME);
    let slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() {
        return Err(Error::declined(
            "bad_name",
            format!("`{name}` gives no name a branch can carry: use letters or digits"),
        ));
    }
    Ok(slug)
}

/// `git worktree add` failed. If git made nothing, the session never existed and its log goes;
/// if the worktree exists all the same (a failing `post-checkout` hook, say), it is recorded and
/// kept, and the session closed.
fn handle_failed_add(
    log: &crate::log::EventLog,
    id: &SessionId,
    facts: &WorktreeFacts,
    failure: nodwyn_git::Error,
    fresh: bool,
) -> Error {
    match registration(&facts.repository, &facts.path) {
        Ok(Some(_)) => {
            let recorded = log
                .append(&Record::new(
                    Timestamp::now(),
                    Event::WorktreeCreate {
                        worktree: facts.clone(),
                        uncommitted: 0,
                        included: Vec::new(),
                        include_failed: Vec::new(),
                    },
                ))
                .and_then(|()| {
                    log.append(&Record::new(
                        Timestamp::now(),
                        Event::SessionClose {
                            kept: vec![format!("making the worktree failed: {failure}")],
                        },
                    ))
                });
            if let Err(e) = recorded {
                tracing::warn!(error = %e, "could not record the half-made worktree");
            }
            Error::MadeButFailed {
                path: facts.path.clone(),
                short: id.short().to_owned(),
                source: Box::new(failure),
            }
        }
        _ => {
            if fresh {
                let _ = std::fs::remove_file(log.path());
            }
            Error::Git(failure)
        }
    }
}

/// A name is a session's within its repository, so a name finds one session: a second session
/// with the name of one whose worktree is still there is refused, naming it.
fn refuse_a_name_in_use(sessions: &[Session], name: &str) -> Result<(), Error> {
    for session in sessions {
        if let Some(facts) = session.active_worktree()
            && facts.name.as_deref() == Some(name)
        {
            return Err(Error::declined(
                "name_taken",
                format!(
                    "session {} ({}) is named {name} already; give another name, or remove that one first",
                    session.id.short(),
                    facts.path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// A second open worktree for the same pull request is refused, naming the first.
fn refuse_second_worktree_for(sessions: &[Session], number: u64) -> Result<(), Error> {
    for session in sessions {
        if let Some(facts) = session.active_worktree()
            && facts.pull_request == Some(number)
        {
            return Err(Error::PullRequestTaken(format!(
                "pull request #{number} already has a worktree: session {} at {}; resume that one, or remove it first",
                session.id,
                facts.path.display()
            )));
        }
    }
    Ok(())
}
