//! A port per worktree session: stable from its branch, recorded, distinct between the
//! repository's sessions, given to its commands as `NODWYN_PORT`, told to the agent, shown by
//! `worktree list --json` and `worktree port`.

use nodwyn_tests::{TestEnv, write};
use serde_json::json;

fn port_of(env: &TestEnv, dir: &std::path::Path, id: &str) -> u64 {
    let shown = env.nodwyn(dir, &["worktree", "port", id]).success();
    shown.stdout.trim().parse().expect("a port")
}

#[test]
fn each_session_has_its_own_port_kept_across_resume_and_given_to_its_commands() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made: Vec<_> = (0..3).map(|_| env.new_worktree(&repo)).collect();
    let ports: Vec<u64> = made.iter().map(|m| m["port"].as_u64().unwrap()).collect();
    for port in &ports {
        assert!((10000..=19999).contains(port), "{ports:?}");
    }
    let mut distinct = ports.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{ports:?}");
    let id = made[0]["id"].as_str().unwrap();
    assert_eq!(port_of(&env, &repo, id), ports[0]);
    // The list shows it.
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap()
        .clone();
    assert_eq!(row["port"], ports[0]);
    // Removed and made again by resume: the same port.
    env.nodwyn(&repo, &["worktree", "remove", id]).success();
    env.nodwyn(&repo, &["worktree", "resume", id]).success();
    assert_eq!(port_of(&env, &repo, id), ports[0]);
    // From inside the worktree, no id is needed.
    let wt = std::path::PathBuf::from(made[0]["path"].as_str().unwrap());
    assert_eq!(
        env.nodwyn(&wt, &["worktree", "port"])
            .success()
            .stdout
            .trim(),
        ports[0].to_string()
    );
    // The agent's commands find it, and its prompt tells it.
    env.turn_dont_ask_on(&repo, id);
    let ran = env.nodwyn_json(
        &repo,
        &[
            "call",
            "--session",
            id,
            "shell-exec",
            &json!({"script": "echo \"port=$NODWYN_PORT\""}).to_string(),
        ],
    );
    assert_eq!(
        ran["result"]["stdout"]
            .as_str()
            .unwrap_or_else(|| panic!("{ran}"))
            .trim(),
        format!("port={}", ports[0])
    );
    let prompt = env.nodwyn(&repo, &["prompt", "--session", id]).success();
    assert!(
        prompt
            .stdout
            .contains(&format!("Your port is {} (also in $NODWYN_PORT)", ports[0])),
        "{}",
        prompt.stdout
    );
}

#[test]
fn the_person_chooses_the_range_and_a_full_range_gives_no_port_saying_so() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[worktrees]\nports = \"15001-15001\"\n",
    );
    let first = env.new_worktree(&repo);
    assert_eq!(first["port"], 15001);
    let second = env.new_worktree(&repo);
    assert!(second.get("port").is_none(), "{second}");
    let refused = env
        .nodwyn(&repo, &["worktree", "port", second["id"].as_str().unwrap()])
        .refused();
    assert!(refused.contains("has no port"), "{refused}");
    // Once the first's worktree is gone, its port is free again.
    env.nodwyn(&repo, &["worktree", "close", first["id"].as_str().unwrap()])
        .success();
    assert_eq!(env.new_worktree(&repo)["port"], 15001);
}

#[test]
fn a_bad_range_or_one_set_by_the_repository_is_refused_in_a_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[worktrees]\nports = \"80-90\"\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(refused.contains("FIRST-LAST"), "{refused}");
    std::fs::remove_file(env.home().join(".config/nodwyn/config.toml")).unwrap();
    write(
        &repo.join(".nodwyn/config.toml"),
        "[worktrees]\nports = \"20000-20010\"\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(refused.contains("[worktrees] ports"), "{refused}");
}
