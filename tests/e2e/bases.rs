//! Every base lands: a session started from `origin/main`, from a tag or a commit, or from a
//! detached HEAD has a branch to land on (or says plainly that it has none, and `--onto` gives
//! it one); a remote with a relative URL works from a worktree; after a landing, the review and
//! `list` show only what has not landed.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

use crate::land::push_from_elsewhere;

fn made(env: &TestEnv, repo: &Path, args: &[&str]) -> (String, PathBuf, serde_json::Value) {
    let mut all = vec!["worktree", "new"];
    all.extend_from_slice(args);
    let made = env.nodwyn_json(repo, &all);
    (
        made["id"].as_str().unwrap().to_owned(),
        PathBuf::from(made["path"].as_str().unwrap()),
        made,
    )
}

#[test]
fn a_session_from_origin_main_lands_on_main_of_origin() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let theirs = push_from_elsewhere(&env, &remote);
    env.git(&repo, &["fetch", "-q", "origin"]);
    let (id, path, made) = made(&env, &repo, &["--base", "origin/main"]);
    assert_eq!(made["base"], "main");
    assert_eq!(made["base_remote"], "origin");
    assert_eq!(made["base_commit"], theirs.as_str(), "fresh upstream");
    let prompt = env.nodwyn(&repo, &["prompt", "--session", &id]).success();
    assert!(
        prompt.stdout.contains("The branch starts from main"),
        "{}",
        prompt.stdout
    );
    write(&path.join("work.txt"), "work\n");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "work"]);
    assert_eq!(landed["base"], "main");
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        landed["landed"].as_str().unwrap()
    );
}

#[test]
fn with_no_local_base_branch_a_remote_tracking_start_still_lands() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["switch", "-q", "--detach"]);
    env.git(&repo, &["branch", "-q", "-D", "main"]);
    let (id, path, made) = made(&env, &repo, &["--base", "origin/main"]);
    assert_eq!(made["base"], "main");
    write(&path.join("work.txt"), "work\n");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "work"]);
    assert_eq!(landed["pushed"]["remote"], "origin");
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        landed["landed"].as_str().unwrap()
    );
}

#[test]
fn a_tag_or_commit_lands_on_the_default_branch_or_onto_a_chosen_one() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["remote", "set-head", "origin", "main"]);
    env.git(&repo, &["tag", "v1"]);
    env.git(&repo, &["switch", "-q", "--detach"]);
    let (id, path, made) = made(&env, &repo, &["--base", "v1"]);
    assert_eq!(made["base"], "main", "origin/HEAD names the default branch");
    write(&path.join("fix.txt"), "a fix\n");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "fix"]);
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        landed["landed"].as_str().unwrap()
    );
}

#[test]
fn with_no_branch_at_all_the_prompt_says_so_and_land_onto_chooses_one() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["branch", "release"]);
    env.git(&repo, &["switch", "-q", "--detach"]);
    let (id, path, made) = made(&env, &repo, &[]);
    assert_eq!(made["base"], "");
    let prompt = env.nodwyn(&repo, &["prompt", "--session", &id]).success();
    assert!(
        prompt.stdout.contains("no branch to land it on"),
        "{}",
        prompt.stdout
    );
    assert!(
        !prompt.stdout.contains("The branch starts from  "),
        "{}",
        prompt.stdout
    );
    assert!(
        prompt.stdout.contains("Do not call git-land"),
        "{}",
        prompt.stdout
    );
    assert!(
        !prompt.stdout.contains("git-land message"),
        "git-land is not offered: {}",
        prompt.stdout
    );
    write(&path.join("work.txt"), "work\n");
    let refused = env.nodwyn(&repo, &["land", &id, "-m", "work"]).refused();
    assert!(refused.contains("--onto"), "{refused}");
    let bad = env
        .nodwyn(&repo, &["land", &id, "-m", "work", "--onto", "nowhere"])
        .refused();
    assert!(bad.contains("not a branch"), "{bad}");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "work", "--onto", "release"]);
    assert_eq!(landed["base"], "release");
    assert_eq!(
        env.git(&repo, &["rev-parse", "release"]),
        landed["landed"].as_str().unwrap()
    );
    assert!(env.has_record(&id, "worktree.onto"));
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["base"], "release", "the choice is kept");
}

#[test]
fn a_remote_with_a_relative_url_works_from_a_worktree() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["remote", "set-url", "origin", "../repo.git"]);
    let (id, path, _) = made(&env, &repo, &[]);
    write(&path.join("work.txt"), "work\n");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "work"]);
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        landed["landed"].as_str().unwrap()
    );
}

#[test]
fn after_a_landing_the_review_and_list_show_only_what_has_not_landed() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("repo");
    let (id, path, _) = made(&env, &repo, &[]);
    write(&path.join("work.txt"), "work\n");
    // The main checkout has changes, so the landing leaves the local main where it is.
    write(&repo.join("README.md"), "hello, edited\n");
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "work"]);
    assert_eq!(landed["local_base"]["how"], "left");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["ahead"], 0, "{listed}");
    let diff = env.nodwyn_json(&repo, &["worktree", "diff", &id]);
    assert_eq!(diff["files"].as_array().unwrap().len(), 0, "{diff}");
    write(&path.join("more.txt"), "more\n");
    let diff = env.nodwyn_json(&repo, &["worktree", "diff", &id]);
    let files: Vec<&str> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["more.txt"]);
}
