//! What a person reads: the human output of the main commands, as snapshots (in `snapshots/`)
//! with temporary paths, session ids, short ids and commit ids normalised.

use std::path::PathBuf;

use nodwyn_tests::{TestEnv, write};

/// stdout, then stderr under a marker, normalised.
fn shown(env: &TestEnv, run: &nodwyn_tests::Run) -> String {
    env.normalise(&format!("{}--- stderr\n{}", run.stdout, run.stderr))
}

#[test]
fn the_life_of_a_worktree_as_a_person_reads_it() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    write(&repo.join("README.md"), "uncommitted\n");
    let new = env.nodwyn(&repo, &["worktree", "new"]).success();
    insta::assert_snapshot!("new", shown(&env, &new));

    let id = env.logs()[0].0[17..25].to_owned();
    let path = PathBuf::from(
        env.nodwyn(&repo, &["worktree", "path", &id])
            .success()
            .stdout
            .trim(),
    );
    write(&path.join("feature.txt"), "feature\n");
    env.commit_all(&path, "feature");
    write(&path.join("scratch.txt"), "scratch\n");
    let list = env.nodwyn(&repo, &["worktree", "list"]).success();
    insta::assert_snapshot!("list", shown(&env, &list));

    let close = env.nodwyn(&repo, &["worktree", "close", &id]).success();
    insta::assert_snapshot!("close_kept", shown(&env, &close));

    let refused = env.nodwyn(&repo, &["worktree", "remove", &id]);
    insta::assert_snapshot!("remove_refused", shown(&env, &refused));

    let removed = env
        .nodwyn(&repo, &["worktree", "remove", &id, "--force"])
        .success();
    insta::assert_snapshot!("remove_forced", shown(&env, &removed));

    let sessions = env.nodwyn(&repo, &["session", "list"]).success();
    insta::assert_snapshot!("session_list", shown(&env, &sessions));
}

#[test]
fn scan_and_guard_check_as_a_person_reads_them() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let body: String = (0..36u32)
        .map(|i| alphabet[(i * 7 % 62) as usize] as char)
        .collect();
    write(
        &repo.join("deploy.py"),
        &format!("import os\nTOKEN = \"ghp_{body}\"\n"),
    );
    let scan = env.nodwyn(&repo, &["scan", "deploy.py", "README.md"]);
    assert_eq!(scan.code, 1);
    insta::assert_snapshot!("scan", shown(&env, &scan));

    let check = env.nodwyn(
        &repo,
        &[
            "guard",
            "check",
            ".env",
            ".env.example",
            "deploy/id_ed25519",
            "deploy.py",
        ],
    );
    assert_eq!(check.code, 1, "a denied path exits 1");
    insta::assert_snapshot!("guard_check", shown(&env, &check));
}

#[test]
fn reviewing_and_landing_as_a_person_reads_them() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("shop");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap().to_owned();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    write(&path.join("README.md"), "hello, world\n");
    write(&path.join("export.txt"), "one\ntwo\n");
    write(&path.join(".env"), "SECRET=1\n");
    let diff = env.nodwyn(&repo, &["worktree", "diff", &id]).success();
    insta::assert_snapshot!("worktree_diff", shown(&env, &diff));
    let landed = env
        .nodwyn(&repo, &["land", &id, "-m", "Add the export"])
        .success();
    insta::assert_snapshot!("land", shown(&env, &landed));
    let refused = env.nodwyn(&repo, &["land", &id, "-m", "again"]);
    insta::assert_snapshot!("land_nothing", shown(&env, &refused));
}

#[test]
fn the_default_system_prompt_of_a_worktree_session() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let prompt = env.nodwyn(&repo, &["prompt", "--session", id]).success();
    insta::assert_snapshot!("prompt", shown(&env, &prompt));
}
