//! `nodwyn session import`: a session that ran elsewhere (an export, see [`super::export`])
//! made a local one, to be read, reviewed, resumed and landed here.
//!
//! An export is evidence, not authority. Before anything is written it is checked: its log
//! begins with its own session's start, on the branch the export names; its record of where it
//! ran is the export's; it holds no record only a person could have made (Don't ask turned on, a
//! question answered by a person, an approval), since nobody could be asked where it ran; and the
//! branch fetched from the remote is at exactly the commit the export says, grown from the commit
//! it says it started from. A file that fails any of these was altered after it was written, and
//! is refused in one sentence. What passes is kept as it came, then a `session.import` record
//! re-homes the session here (its seals, made by the other installation's key, never verify
//! here), and its worktree is made on the fetched branch.

use std::path::{Path, PathBuf};
use std::time::Duration;

use nodwyn_git::graph::{is_ancestor, update_ref};
use nodwyn_git::refs::{delete_ref, fetch_into, is_valid_branch_name};
use nodwyn_git::repo::branch_tip;
use serde::Serialize;

use super::export::{Export, FORMAT};
use crate::Error;
use crate::clock::Timestamp;
use crate::event::{Answer, DecidedBy, Event, RanOn, Record, WorktreeFacts};
use crate::id::SessionId;
use crate::store::Store;
use crate::worktree::location::{WorktreeLocation, prepare_root};

/// What an import made.
#[derive(Debug, Clone, Serialize)]
pub struct Imported {
    /// The session's full id.
    pub session: String,
    /// Its short id.
    pub id: String,
    /// Its branch, fetched.
    pub branch: String,
    /// The branch it started from, where `nodwyn land` puts its work.
    pub base: String,
    /// The branch's tip.
    pub head: String,
    /// The worktree made for it here.
    pub path: PathBuf,
    /// Where it ran.
    pub ran_on: RanOn,
    /// Commits on its branch since the commit it started from.
    pub commits: usize,
}

/// Where an import goes and how it fetches.
#[derive(Debug, Clone)]
pub struct ImportTo<'a> {
    /// The repository (its main worktree) the session belongs to here.
    pub repository: &'a Path,
    /// The remote its branch is fetched from; `None`: the local base branch's upstream remote,
    /// else `origin`.
    pub remote: Option<&'a str>,
    /// Where its worktree goes.
    pub location: WorktreeLocation,
    /// The branch the person expects the work to land on: an export naming another is refused
    /// (an altered export must not choose where `nodwyn land` pushes).
    pub base: &'a str,
    /// What it is imported from, in words (the file, or the GitHub Actions run).
    pub source: String,
    /// How long the fetch may take.
    pub deadline: Duration,
}

/// Reads the export at `path`, or says in one sentence why it is not one.
pub fn read(path: &Path) -> Result<Export, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let text = between_markers(&text).unwrap_or(&text);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::declined(
            "export_unreadable",
            format!("{} is not a nodwyn export ({e})", path.display()),
        )
    })?;
    let format = value["nodwyn_export"].as_u64();
    if format != Some(u64::from(FORMAT)) {
        return Err(Error::declined(
            "export_unreadable",
            match format {
                Some(other) => format!(
                    "{} is an export of format {other}, and this nodwyn reads format {FORMAT}",
                    path.display()
                ),
                None => format!(
                    "{} is not a nodwyn export (it has no `nodwyn_export` format number)",
                    path.display()
                ),
            },
        ));
    }
    serde_json::from_value(value).map_err(|e| {
        Error::declined(
            "export_unreadable",
            format!("{} is not a nodwyn export ({e})", path.display()),
        )
    })
}

/// The export a pod printed to its log, between the marker lines of a Kubernetes dispatch (a
/// saved `kubectl logs`); `None` when `text` has no such lines.
fn between_markers(text: &str) -> Option<&str> {
    use super::dispatch::kubernetes::{EXPORT_BEGINS, EXPORT_ENDS};
    // The last pair: the pod's script prints them after nodwyn ended, so anything the agent
    // printed before (a fake export) comes first.
    let begins = text.rfind(EXPORT_BEGINS)? + EXPORT_BEGINS.len();
    let ends = text[begins..].find(EXPORT_ENDS)? + begins;
    Some(&text[begins..ends])
}

/// Checks `export` and makes its session a local one of `to.repository`.
pub fn import(store: &Store, export: &Export, to: &ImportTo<'_>) -> Result<Imported, Error> {
    let (id, started) = checked(export)?;
    if export.base != to.base {
        return Err(Error::declined(
            "base_elsewhere",
            format!(
                "session {} would land on {}, not on {}; if that is where it belongs, import it with --base {}",
                id.short(),
                if export.base.is_empty() {
                    "no branch"
                } else {
                    &export.base
                },
                to.base,
                export.base
            ),
        ));
    }
    if store.find(id.as_str()).is_ok() {
        return Err(Error::declined(
            "already_imported",
            format!(
                "session {id} is here already (`nodwyn session events {}` shows it); nothing was imported again",
                id.short()
            ),
        ));
    }
    let repository = to.repository;
    let remote = remote_of(repository, export, to);
    let head = fetched_head(repository, export, &id, &remote, to.deadline)?;
    match branch_tip(repository, &export.branch)? {
        Some(tip) if tip == head => {}
        Some(tip) => {
            return Err(Error::declined(
                "branch_exists",
                format!(
                    "{} exists here at {}, not at the export's {}; nothing was imported (rename or delete the branch here first if it is not the session's)",
                    export.branch,
                    short(&tip),
                    short(&head)
                ),
            ));
        }
        None => update_ref(
            repository,
            &format!("refs/heads/{}", export.branch),
            &head,
            "",
            &format!("nodwyn: import session {}", id.short()),
        )?,
    }
    let root = prepare_root(store, repository, to.location, &[&head])?;
    let facts = WorktreeFacts {
        repository: repository.to_path_buf(),
        path: root.join(id.short()),
        base_remote: started.base_remote.as_ref().map(|_| remote.clone()),
        port: None,
        pull_request: None,
        ..started
    };
    let stored = store.import_session(repository, &id, &export.records)?;
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::SessionImport {
            source: to.source.clone(),
            ran_on: Box::new(export.ran_on.clone()),
            repository: repository.to_path_buf(),
            worktree: Box::new(facts.clone()),
        },
    ))?;
    let (restored, reused, included) = crate::worktree::resume::restore(store, &facts)?;
    stored.log.append(&Record::new(
        Timestamp::now(),
        Event::WorktreeRestore {
            worktree: restored.clone(),
            branch_reused: reused,
            included: included.copied,
            include_failed: included.failed,
            snapshot: None,
        },
    ))?;
    // The git configuration this machine's checkout has now, as a new worktree records it: a
    // landing refuses one changed since.
    crate::worktree::config::record(&stored.log, id.as_str(), &restored.path, None)?;
    Ok(Imported {
        session: id.to_string(),
        id: id.short().to_owned(),
        branch: export.branch.clone(),
        base: export.base.clone(),
        commits: nodwyn_git::graph::commits_between(repository, &export.base_commit, &head)?.len(),
        head,
        path: restored.path,
        ran_on: export.ran_on.clone(),
    })
}

/// The session's id and its worktree's facts as its log's first record gives them, once the
/// export was found whole: its log begins with its own start on its branch, its record of where
/// it ran is the export's, and nothing in it claims a person's authority.
fn checked(export: &Export) -> Result<(SessionId, WorktreeFacts), Error> {
    let id = SessionId::parse(&export.session)
        .ok_or_else(|| altered(format!("its session id `{}` is not one", export.session)))?;
    let mut records = Vec::with_capacity(export.records.len());
    for (place, value) in export.records.iter().enumerate() {
        let record: Record = serde_json::from_value(value.clone())
            .map_err(|e| altered(format!("record {place} of its log cannot be read ({e})")))?;
        records.push(record);
    }
    let started = match records.first().map(|r| &r.event) {
        Some(Event::SessionStart {
            worktree: Some(facts),
            ..
        }) if facts.branch == export.branch
            && facts.base == export.base
            && facts.base_commit == export.base_commit =>
        {
            facts.clone()
        }
        _ => {
            return Err(altered(format!(
                "its log does not begin with session {} starting on {} at {}",
                id.short(),
                export.branch,
                short(&export.base_commit)
            )));
        }
    };
    let own_branch = export.branch.starts_with("nodwyn/")
        && (export.branch.ends_with(&format!("/{}", id.short()))
            || export.branch.ends_with(&format!("-{}", id.short())));
    if !own_branch || export.branch.contains("..") || export.branch.starts_with('-') {
        return Err(altered(format!(
            "its branch {} is not session {}'s own",
            export.branch,
            id.short()
        )));
    }
    let mut ran = 0;
    for (place, record) in records.iter().enumerate() {
        let claims = match &record.event {
            Event::RunHeadless { ran_on } => {
                if *ran_on != export.ran_on {
                    return Err(altered(format!(
                        "its log says it ran on {} (record {place}), and the export says {}",
                        described(ran_on),
                        described(&export.ran_on)
                    )));
                }
                ran += 1;
                None
            }
            Event::SessionDontAsk { on: true, .. } => Some("Don't ask turned on"),
            Event::SessionAllowAlways { .. } => Some("a question answered \"allow always\""),
            Event::SessionHanded { .. } => Some("the session handed over"),
            Event::SessionConfig {
                accepted_by: Some(_),
                ..
            } => Some("a change of git's configuration accepted"),
            Event::StrategyApprove { .. } => Some("a strategy approved"),
            Event::GuardDecision { verdict, .. }
                if verdict.answer == Answer::Allow
                    && matches!(verdict.by, DecidedBy::Person | DecidedBy::DontAsk(_)) =>
            {
                Some("a call allowed by a person")
            }
            Event::SessionImport { .. } => Some("an import"),
            _ => None,
        };
        if let Some(claim) = claims {
            return Err(Error::declined(
                "export_forged",
                format!(
                    "the export's log holds {claim} (record {place}, {}) from a run where nobody could be asked: it was altered after it was written, so nothing was imported",
                    record_type(&export.records[place])
                ),
            ));
        }
    }
    if ran == 0 {
        return Err(altered(
            "its log has no record of a headless run (`run.headless`)".to_owned(),
        ));
    }
    Ok((id, started))
}

/// Fetches the session's branch from the remote, and gives its tip once it is the export's head,
/// grown from the export's base commit.
fn fetched_head(
    repository: &Path,
    export: &Export,
    id: &SessionId,
    remote: &str,
    deadline: Duration,
) -> Result<String, Error> {
    let head = export
        .head
        .clone()
        .ok_or_else(|| altered("it names no commit its branch ended at".to_owned()))?;
    if !is_valid_branch_name(repository, &export.branch)? {
        return Err(altered(format!(
            "its branch `{}` is not a branch name",
            export.branch
        )));
    }
    let fetched = remote_tip(
        repository,
        remote,
        &export.branch,
        &format!("refs/nodwyn/import/{}", id.short()),
        deadline,
    );
    let fetched = fetched.map_err(|e| {
        Error::declined(
            "branch_not_fetched",
            format!(
                "{} could not be fetched from {remote} ({e}); was it pushed (`nodwyn run --headless --push-branch`)? Nothing was imported",
                export.branch
            ),
        )
    })?;
    if fetched != head {
        return Err(altered(format!(
            "{remote}'s {} is at {}, and the export says {}",
            export.branch,
            short(&fetched),
            short(&head)
        )));
    }
    if !is_ancestor(repository, &export.base_commit, &head)? {
        return Err(altered(format!(
            "its branch does not grow from {}, the commit it says it started from",
            short(&export.base_commit)
        )));
    }
    // The base it names is where `nodwyn land` will put the work: its commit must be on that
    // branch of the remote, so an export cannot send the work to another branch than the one
    // its run started from.
    let base_tip = if export.base.is_empty() || export.base.starts_with('-') {
        None
    } else {
        let fetched = remote_tip(
            repository,
            remote,
            &export.base,
            &format!("refs/nodwyn/import/{}-base", id.short()),
            deadline,
        );
        Some(fetched.map_err(|e| {
            Error::declined(
                "base_not_fetched",
                format!(
                    "{} could not be fetched from {remote} ({e}), so where the session started could not be checked; nothing was imported",
                    export.base
                ),
            )
        })?)
    };
    let on_base = match &base_tip {
        Some(tip) => is_ancestor(repository, &export.base_commit, tip)?,
        None => false,
    };
    if !on_base {
        return Err(altered(format!(
            "the commit it started from, {}, is not on {remote}'s {}",
            short(&export.base_commit),
            if export.base.is_empty() {
                "base (it names none)"
            } else {
                &export.base
            }
        )));
    }
    Ok(head)
}

/// The tip of `branch` on `remote`, fetched into nodwyn's `scratch` ref, which goes again.
fn remote_tip(
    repository: &Path,
    remote: &str,
    branch: &str,
    scratch: &str,
    deadline: Duration,
) -> Result<String, nodwyn_git::Error> {
    let fetched = fetch_into(
        repository,
        remote,
        &format!("refs/heads/{branch}"),
        scratch,
        nodwyn_git::Network {
            ssh_command: None,
            deadline,
            cancel: None,
        },
    );
    let _ = delete_ref(repository, scratch);
    fetched
}

/// The remote the branch comes from: the one named, else the local base branch's upstream's,
/// else `origin`.
fn remote_of(repository: &Path, export: &Export, to: &ImportTo<'_>) -> String {
    if let Some(remote) = to.remote {
        return remote.to_owned();
    }
    nodwyn_git::repo::upstream_remote(repository, &export.base)
        .ok()
        .flatten()
        .unwrap_or_else(|| "origin".to_owned())
}

fn altered(why: String) -> Error {
    Error::declined(
        "export_altered",
        format!(
            "the export does not hold together ({why}): it was altered or damaged after it was written, so nothing was imported"
        ),
    )
}

/// Where a run ran, in words.
fn described(ran_on: &RanOn) -> String {
    let mut words = format!("{} {}", ran_on.runner, ran_on.machine);
    if let Some(run) = &ran_on.run_id {
        words.push_str(&format!(" (run {run})"));
    }
    words
}

fn record_type(record: &serde_json::Value) -> String {
    record["type"].as_str().unwrap_or("?").to_owned()
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

/// The name every export artifact of a dispatched GitHub Actions run begins with.
pub const ARTIFACT_PREFIX: &str = "nodwyn-export-";

/// Downloads into `into` the exports GitHub Actions run `run` uploaded (`gh run download`, its
/// artifacts named [`ARTIFACT_PREFIX`]...), and gives their files, in order of name.
pub fn download_github(repository: &Path, run: &str, into: &Path) -> Result<Vec<PathBuf>, Error> {
    if run.is_empty() || !run.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::declined(
            "bad_run",
            format!("`{run}` is not a GitHub Actions run id (a number, as `gh run list` shows)"),
        ));
    }
    let folder = into.to_string_lossy();
    let pattern = format!("{ARTIFACT_PREFIX}*");
    crate::gh::gh(
        repository,
        &["run", "download", run, "--dir", &folder, "--pattern", &pattern],
    )
    .map_err(|failure| match failure {
        crate::gh::GhFailure::Missing => Error::declined(
            "no_gh",
            "--github needs the GitHub CLI, and no `gh` program is on PATH; install it (https://cli.github.com) and run `gh auth login`, or download the run's artifacts and import each file",
        ),
        crate::gh::GhFailure::Failed(said) => Error::declined(
            "download_failed",
            format!("gh could not download the artifacts of run {run} ({said})"),
        ),
    })?;
    let mut files = Vec::new();
    let artifacts = std::fs::read_dir(into).map_err(Error::io(into))?;
    for artifact in artifacts.flatten() {
        let inside = artifact.path();
        let Ok(entries) = std::fs::read_dir(&inside) else {
            continue;
        };
        files.extend(
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "json")),
        );
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::declined(
            "no_exports",
            format!("run {run} uploaded no nodwyn export (artifacts named {pattern})"),
        ));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::between_markers;
    use crate::remote::dispatch::kubernetes::{EXPORT_BEGINS, EXPORT_ENDS};

    #[test]
    fn a_pods_log_gives_the_export_between_its_markers() {
        let log = format!(
            "nodwyn: session ...\nnodwyn: pushed ...\n{EXPORT_BEGINS}\n{{\"nodwyn_export\": 1}}\n{EXPORT_ENDS}\n"
        );
        assert_eq!(
            between_markers(&log).map(str::trim),
            Some("{\"nodwyn_export\": 1}")
        );
        // What the agent printed before (a fake export) is not what the script printed last.
        let spoofed = format!(
            "{EXPORT_BEGINS}\n{{\"fake\": true}}\n{EXPORT_ENDS}\nnodwyn: ...\n{EXPORT_BEGINS}\n{{\"real\": true}}\n{EXPORT_ENDS}\n"
        );
        assert_eq!(
            between_markers(&spoofed).map(str::trim),
            Some("{\"real\": true}")
        );
        assert_eq!(between_markers("{\"nodwyn_export\": 1}"), None);
        assert_eq!(between_markers(&format!("{EXPORT_BEGINS}\nno end")), None);
    }
}
