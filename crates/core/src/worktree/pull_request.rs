//! `--pr N`: a worktree on a pull request's head, found through the `gh` program.
//!
//! `gh pr view` says where the head lives: a pull request from a branch of the same repository is
//! fetched by that branch, one from a fork by GitHub's `pull/N/head` ref; both from `origin`. No
//! `gh`, or a `gh` that is not logged in, is an error, never a quiet fallback to HEAD. What `gh`
//! answers comes from the forge, so the head branch's name is checked by git before it is used in
//! a refspec.

use crate::gh::{GhFailure, gh};
use std::path::Path;

use nodwyn_git::refs::{delete_ref, fetch_into, is_valid_branch_name};
use serde::Deserialize;

use crate::Error;

/// The remote pull requests are fetched from.
const REMOTE: &str = "origin";

/// Reads `N`, `#N` or a pull request URL (`https://github.com/OWNER/REPO/pull/N[/...]`).
pub(crate) fn parse_reference(text: &str) -> Result<u64, Error> {
    let trimmed = text.trim();
    let digits = if let Some(rest) = trimmed.strip_prefix('#') {
        rest
    } else if trimmed.contains("://") {
        let mut parts = trimmed.split('/').skip_while(|p| *p != "pull");
        parts.next();
        parts.next().unwrap_or_default()
    } else {
        trimmed
    };
    match digits.parse::<u64>() {
        Ok(number) if number > 0 && digits.bytes().all(|b| b.is_ascii_digit()) => Ok(number),
        _ => Err(Error::PullRequest(format!(
            "--pr {text}: give a pull request as a number, as #N, or as its URL (https://github.com/OWNER/REPO/pull/N)"
        ))),
    }
}

/// A pull request's head, fetched into the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FetchedHead {
    /// The pull request's number.
    pub number: u64,
    /// The head commit.
    pub commit: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullRequestView {
    head_ref_name: String,
    is_cross_repository: bool,
}

/// Asks `gh` about pull request `number` and fetches its head from `origin`.
pub(crate) fn fetch_head(repository: &Path, number: u64) -> Result<FetchedHead, Error> {
    gh(repository, &["auth", "status"]).map_err(|failure| match failure {
        GhFailure::Missing => missing(),
        GhFailure::Failed(_) => Error::PullRequest(
            "gh is not logged in, so --pr cannot look up the pull request; run `gh auth login` first"
                .to_owned(),
        ),
    })?;
    let number_text = number.to_string();
    let json = gh(
        repository,
        &[
            "pr",
            "view",
            &number_text,
            "--json",
            "headRefName,isCrossRepository",
        ],
    )
    .map_err(|failure| match failure {
        GhFailure::Missing => missing(),
        GhFailure::Failed(stderr) => Error::PullRequest(format!(
            "gh could not find pull request #{number}: {stderr}"
        )),
    })?;
    let view: PullRequestView = serde_json::from_slice(&json).map_err(|e| {
        Error::PullRequest(format!(
            "gh answered something nodwyn cannot read for pull request #{number}: {e}"
        ))
    })?;
    let source = if view.is_cross_repository {
        format!("refs/pull/{number}/head")
    } else {
        if !is_valid_branch_name(repository, &view.head_ref_name)? {
            return Err(Error::PullRequest(format!(
                "pull request #{number}'s head branch `{}` is not a valid branch name",
                view.head_ref_name
            )));
        }
        format!("refs/heads/{}", view.head_ref_name)
    };
    // A scratch ref of this process's own, deleted again: the new worktree's branch keeps the
    // commits reachable.
    let scratch = format!("refs/nodwyn/fetch/pr-{number}-{}", std::process::id());
    let fetched = fetch_into(
        repository,
        REMOTE,
        &source,
        &scratch,
        nodwyn_git::Network::default(),
    );
    let _ = delete_ref(repository, &scratch);
    let commit = fetched.map_err(|e| {
        Error::PullRequest(format!(
            "could not fetch pull request #{number} ({source}) from {REMOTE}: {e}"
        ))
    })?;
    Ok(FetchedHead { number, commit })
}

/// A pull request that is over: merged or closed on the forge, and the commit its head had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    /// Its number.
    pub number: u64,
    /// Whether it was merged (else closed without merging).
    pub merged: bool,
    /// The commit of its head.
    pub head: String,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullRequestState {
    number: u64,
    state: String,
    head_ref_oid: String,
}

/// The pull request of `branch` (by `number` when the session was made on one, else the newest
/// whose head is `branch`) when `gh` reports it merged or closed; `None` when it has none, or it
/// is open. An error says why `gh` could not tell.
pub(crate) fn finished_pull_request(
    repository: &Path,
    branch: &str,
    number: Option<u64>,
) -> Result<Option<Finished>, Error> {
    let fields = "number,state,headRefOid";
    let answer = match number {
        Some(number) => gh(
            repository,
            &["pr", "view", &number.to_string(), "--json", fields],
        )
        .map(|json| format!("[{}]", String::from_utf8_lossy(&json)).into_bytes()),
        None => gh(
            repository,
            &[
                "pr", "list", "--head", branch, "--state", "all", "--limit", "1", "--json", fields,
            ],
        ),
    }
    .map_err(|failure| match failure {
        GhFailure::Missing => Error::PullRequest(
            "--merged asks the GitHub CLI about pull requests, and no `gh` program is on PATH; install it (https://cli.github.com) and run `gh auth login`".to_owned(),
        ),
        GhFailure::Failed(stderr) => {
            Error::PullRequest(format!("gh could not say whether {branch} was merged: {stderr}"))
        }
    })?;
    let found: Vec<PullRequestState> = serde_json::from_slice(&answer).map_err(|e| {
        Error::PullRequest(format!(
            "gh answered something nodwyn cannot read about {branch}'s pull request: {e}"
        ))
    })?;
    Ok(found.into_iter().next().and_then(|pr| {
        let merged = match pr.state.as_str() {
            "MERGED" => true,
            "CLOSED" => false,
            _ => return None,
        };
        Some(Finished {
            number: pr.number,
            merged,
            head: pr.head_ref_oid,
        })
    }))
}

fn missing() -> Error {
    Error::PullRequest(
        "--pr needs the GitHub CLI, and no `gh` program is on PATH; install it (https://cli.github.com) and run `gh auth login`"
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_forms() {
        assert_eq!(parse_reference("12").unwrap(), 12);
        assert_eq!(parse_reference("#12").unwrap(), 12);
        assert_eq!(
            parse_reference("https://github.com/o/r/pull/12").unwrap(),
            12
        );
        assert_eq!(
            parse_reference("https://github.com/o/r/pull/12/files").unwrap(),
            12
        );
    }

    #[test]
    fn refuses_anything_else() {
        for bad in [
            "",
            "0",
            "-3",
            "#",
            "12a",
            "+12",
            "https://github.com/o/r/issues/12",
            "main",
        ] {
            assert!(parse_reference(bad).is_err(), "{bad}");
        }
    }
}
