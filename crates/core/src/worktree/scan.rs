//! What a landing's credential scan would refuse in a session's work now, without landing: each
//! commit since the work began as the landing scans it, and the changes not committed yet as
//! its commit would take them (credential files left out, the added lines of the rest scanned).
//! A preview for a person deciding whether to land; the landing scans again whatever it lands.

use std::path::Path;
use std::time::Duration;

use nodwyn_git::diff::Snapshot;
use nodwyn_guard::scan::diff::scan_diff;
use nodwyn_guard::{Denylist, Scanner};
use nodwyn_prim::Limits;
use serde::Serialize;

use crate::Error;
use crate::session::Session;
use crate::store::Store;

use super::verified_worktree;

/// What a landing would do with the session's credentials now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leaving {
    /// What the landing's scan would refuse, one sentence each (a commit, or the uncommitted
    /// changes, and what it holds); empty when it would refuse nothing.
    pub findings: Vec<String>,
    /// Uncommitted credential files the landing's commit would leave out.
    pub left_out: Vec<String>,
}

/// [`Leaving`] for session `id`'s worktree.
pub fn leaving(store: &Store, id: &str, limits: &Limits) -> Result<Leaving, Error> {
    let session = Session::load(&store.find(id)?)?;
    let (facts, info) = verified_worktree(&session)?;
    let dir = &facts.path;
    let from = info.work_starts()?;
    let head = nodwyn_git::repo::resolve_commit(dir, "HEAD")?.unwrap_or_else(|| from.clone());
    let mut findings = nodwyn_prim::land::credentials_leaving(dir, &from, &head)?;
    let snapshot = Snapshot::take(dir, limits.diff_time.max(Duration::from_secs(1)))?;
    let denylist = Denylist::standard();
    let scanner = Scanner::global();
    let mut left_out = Vec::new();
    let mut uncommitted = Vec::new();
    for changed in snapshot.changed(&head)? {
        if changed.status == 'D' {
            continue;
        }
        let name = nodwyn_git::quote::os_name(&changed.path);
        if denylist.judge(Path::new(&name), dir).is_denied() {
            left_out.push(changed.path);
            continue;
        }
        let patch = snapshot.file_diff(&head, &changed.path)?;
        for finding in scan_diff(scanner, &patch) {
            uncommitted.push(format!(
                "what looks like a credential at {}:{} ({})",
                finding.path, finding.line, finding.rule
            ));
        }
    }
    if !uncommitted.is_empty() {
        findings.push(format!(
            "the uncommitted changes hold {}",
            uncommitted.join(", ")
        ));
    }
    Ok(Leaving { findings, left_out })
}
