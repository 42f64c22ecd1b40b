//! `worktree new --pr`: a stand-in `gh` on PATH, and a local bare `origin` holding a fork's
//! `refs/pull/N/head` and a same-repository branch.

use std::path::{Path, PathBuf};

use nodwyn_tests::{Run, TestEnv, write};

/// The stand-in answers like `gh`: `auth status` fails once `$HOME/gh-logged-out` exists; `pr
/// view 7` is a fork's pull request, `pr view 8` one from the branch `feature-x`.
const GH: &str = r#"#!/bin/sh
case "$1 $2" in
  "auth status")
    if [ -f "$HOME/gh-logged-out" ]; then echo "You are not logged into any GitHub hosts." >&2; exit 1; fi
    exit 0 ;;
  "pr view")
    case "$3" in
      7) echo '{"headRefName":"contributor-branch","isCrossRepository":true}' ;;
      8) echo '{"headRefName":"feature-x","isCrossRepository":false}' ;;
      *) echo "no pull requests found for $3" >&2; exit 1 ;;
    esac ;;
  *) echo "unexpected gh call: $*" >&2; exit 2 ;;
esac
"#;

struct Forge {
    repo: PathBuf,
    fork_head: String,
    branch_head: String,
}

fn forge(env: &TestEnv) -> Forge {
    let origin = env.root().join("origin.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", origin.to_str().unwrap()],
    );
    let upstream = env.repo("upstream");
    env.git(
        &upstream,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    env.git(&upstream, &["push", "-q", "origin", "main"]);
    // A fork's pull request exists on origin only as refs/pull/7/head.
    env.git(&upstream, &["checkout", "-q", "-b", "contributor-branch"]);
    write(&upstream.join("fork.txt"), "from a fork\n");
    let fork_head = env.commit_all(&upstream, "fork work");
    env.git(
        &upstream,
        &["push", "-q", "origin", "HEAD:refs/pull/7/head"],
    );
    // A same-repository pull request from the branch feature-x.
    env.git(&upstream, &["checkout", "-q", "-b", "feature-x", "main"]);
    write(&upstream.join("feature.txt"), "feature\n");
    let branch_head = env.commit_all(&upstream, "feature work");
    env.git(&upstream, &["push", "-q", "origin", "feature-x"]);

    let repo = env.root().join("repo");
    env.git(
        &env.root(),
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            repo.to_str().unwrap(),
        ],
    );
    Forge {
        repo,
        fork_head,
        branch_head,
    }
}

fn new_pr(env: &TestEnv, repo: &Path, pr: &str) -> Run {
    env.nodwyn(repo, &["worktree", "new", "--pr", pr, "--json"])
}

#[test]
fn a_forks_pull_request_is_fetched_by_its_pull_ref() {
    let env = TestEnv::new();
    env.install_program("gh", GH);
    let forge = forge(&env);
    let made = new_pr(&env, &forge.repo, "7").success().json();
    assert_eq!(made["pull_request"], 7);
    assert_eq!(made["base_commit"], forge.fork_head.as_str());
    let path = Path::new(made["path"].as_str().unwrap());
    assert_eq!(env.git(path, &["rev-parse", "HEAD"]), forge.fork_head);
    assert!(path.join("fork.txt").exists());
    // No scratch ref is left behind.
    assert_eq!(env.git(&forge.repo, &["for-each-ref", "refs/nodwyn"]), "");
    let listed = env.nodwyn_json(&forge.repo, &["worktree", "list"]);
    assert_eq!(listed[0]["pull_request"], 7);
}

#[test]
fn a_same_repository_pull_request_is_fetched_by_its_branch_in_every_form() {
    let env = TestEnv::new();
    env.install_program("gh", GH);
    let forge = forge(&env);
    let made = new_pr(&env, &forge.repo, "#8").success().json();
    assert_eq!(made["base_commit"], forge.branch_head.as_str());
    env.nodwyn(
        &forge.repo,
        &["worktree", "remove", made["id"].as_str().unwrap()],
    )
    .success();
    let made = new_pr(&env, &forge.repo, "https://github.com/owner/repo/pull/8")
        .success()
        .json();
    assert_eq!(made["pull_request"], 8);
    assert!(
        Path::new(made["path"].as_str().unwrap())
            .join("feature.txt")
            .exists()
    );
}

#[test]
fn a_second_worktree_for_the_same_pull_request_is_refused_naming_the_first() {
    let env = TestEnv::new();
    env.install_program("gh", GH);
    let forge = forge(&env);
    let first = new_pr(&env, &forge.repo, "7").success().json();
    let sentence = new_pr(&env, &forge.repo, "#7").refused();
    assert!(
        sentence.contains(first["session"].as_str().unwrap()),
        "{sentence}"
    );
    assert!(
        sentence.contains(first["path"].as_str().unwrap()),
        "{sentence}"
    );
    let document = env
        .nodwyn(&forge.repo, &["worktree", "new", "--pr", "7", "--json"])
        .json();
    assert_eq!(
        document["error"]["kind"], "pr_worktree_exists",
        "{document}"
    );
    let document = env
        .nodwyn(&forge.repo, &["worktree", "new", "--pr", "nope", "--json"])
        .json();
    assert_eq!(document["error"]["kind"], "pr_ref_error", "{document}");
    assert_eq!(env.logs().len(), 1);
}

#[test]
fn no_gh_or_a_logged_out_gh_is_an_error_never_a_fallback() {
    let env = TestEnv::new();
    let forge = forge(&env);
    let git_dir = {
        let which = std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap();
        PathBuf::from(String::from_utf8(which.stdout).unwrap().trim())
            .parent()
            .unwrap()
            .to_path_buf()
    };
    let output = env
        .nodwyn_command(&forge.repo, &["worktree", "new", "--pr", "7"])
        .env(
            "PATH",
            format!("{}:{}", env.bin().display(), git_dir.display()),
        )
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("nodwyn: ") && stderr.contains("no `gh` program"),
        "{stderr}"
    );

    env.install_program("gh", GH);
    write(&env.home().join("gh-logged-out"), "");
    let sentence = new_pr(&env, &forge.repo, "7").refused();
    assert!(sentence.contains("gh auth login"), "{sentence}");

    std::fs::remove_file(env.home().join("gh-logged-out")).unwrap();
    let sentence = new_pr(&env, &forge.repo, "99").refused();
    assert!(sentence.contains("#99"), "{sentence}");
    let sentence = new_pr(&env, &forge.repo, "seven").refused();
    assert!(sentence.contains("--pr seven"), "{sentence}");

    assert!(env.logs().is_empty(), "nothing was created");
    assert!(!forge.repo.join(".nodwyn").exists());
}

/// A stand-in `gh` that reports, for `pr list --head BRANCH`, the pull request written in
/// `$HOME/prs/BRANCH-with-slashes-as-dashes` (a JSON list), and none otherwise.
const GH_STATES: &str = r#"#!/bin/sh
if [ "$1 $2" = "pr list" ]; then
  branch=""
  while [ $# -gt 0 ]; do
    if [ "$1" = "--head" ]; then branch="$2"; fi
    shift
  done
  file="$HOME/prs/$(echo "$branch" | tr / -)"
  if [ -f "$file" ]; then cat "$file"; else echo "[]"; fi
  exit 0
fi
echo "unexpected: $*" >&2
exit 1
"#;

#[test]
fn prune_merged_removes_a_worktree_whose_pull_request_ended_with_its_head_and_keeps_the_rest() {
    let env = TestEnv::new();
    env.install_program("gh", GH_STATES);
    let repo = env.repo("repo");
    // Three closed sessions, each with a commit main lacks.
    let mut sessions = Vec::new();
    for name in ["merged", "moved-on", "open-pr"] {
        let made = env.nodwyn_json(&repo, &["worktree", "new", "--name", name]);
        let path = PathBuf::from(made["path"].as_str().unwrap());
        write(&path.join(format!("{name}.txt")), "work\n");
        let head = env.commit_all(&path, name);
        let id = made["id"].as_str().unwrap().to_owned();
        env.nodwyn(&repo, &["worktree", "close", &id]).success();
        sessions.push((id, path, made["branch"].as_str().unwrap().to_owned(), head));
    }
    let report = |branch: &str, state: &str, head: &str| {
        write(
            &env.home().join("prs").join(branch.replace('/', "-")),
            &format!(r#"[{{"number": 12, "state": "{state}", "headRefOid": "{head}"}}]"#),
        );
    };
    // Merged with its head at the branch's tip: nothing is lost with the worktree.
    report(&sessions[0].2, "MERGED", &sessions[0].3);
    // Closed, but the session went on after the head the forge has.
    report(&sessions[1].2, "CLOSED", &sessions[1].3);
    write(&sessions[1].1.join("more.txt"), "more\n");
    env.commit_all(&sessions[1].1, "more");
    // Still open.
    report(&sessions[2].2, "OPEN", &sessions[2].3);

    let plain = env.nodwyn_json(&repo, &["worktree", "prune"]);
    assert!(
        plain
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["removed"] == false),
        "{plain}"
    );
    let dry = env
        .nodwyn(&repo, &["worktree", "prune", "--merged", "--dry-run"])
        .success();
    assert!(
        dry.stdout
            .contains("its pull request #12 was merged (its branch stays)"),
        "{}",
        dry.stdout
    );
    assert!(sessions[0].1.exists(), "a dry run removes nothing");
    let pruned = env.nodwyn_json(&repo, &["worktree", "prune", "--merged"]);
    let entry = |id: &str| {
        pruned
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["session"].as_str().unwrap().ends_with(id))
            .unwrap()
            .clone()
    };
    let merged = entry(&sessions[0].0);
    assert_eq!(merged["removed"], true, "{merged}");
    assert_eq!(merged["pull_request"]["state"], "merged");
    assert!(!sessions[0].1.exists());
    assert_eq!(
        env.git(&repo, &["rev-parse", &sessions[0].2]),
        sessions[0].3,
        "the branch stays"
    );
    let moved_on = entry(&sessions[1].0);
    assert_eq!(moved_on["removed"], false);
    assert!(
        moved_on["kept"][0].as_str().unwrap().contains("moved on"),
        "{moved_on}"
    );
    assert!(sessions[1].1.exists());
    assert_eq!(entry(&sessions[2].0)["removed"], false);
    assert!(sessions[2].1.exists());
}
