//! Worktree hooks: a repository's `.nodwyn/hooks.toml` runs only once the person approved its
//! content (asked on a terminal, asked again when it changes, skipped without one), confined as an
//! agent's command; the person's own from their configuration; each run recorded; a failing
//! `post_create` keeps the worktree, a failing `pre_remove` keeps it unless `--force`.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

/// A repository whose committed `.nodwyn/hooks.toml` is `hooks`.
fn repo_with_hooks(env: &TestEnv, hooks: &str) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join(".nodwyn/hooks.toml"), hooks);
    env.commit_all(&repo, "hooks");
    repo
}

/// The worktree session `worktree new` made last: the one `worktree list --json` shows that
/// no earlier call of this returned (each test makes them one at a time).
fn newest(env: &TestEnv, repo: &Path) -> (String, PathBuf) {
    thread_local! {
        static SEEN: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let listed = env.nodwyn_json(repo, &["worktree", "list"]);
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        let row = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|row| !seen.contains(&row["session"].as_str().unwrap().to_owned()))
            .expect("a new session")
            .clone();
        seen.push(row["session"].as_str().unwrap().to_owned());
        (
            row["id"].as_str().unwrap().to_owned(),
            PathBuf::from(row["path"].as_str().unwrap()),
        )
    })
}

#[test]
fn a_repositorys_hook_is_approved_once_then_runs_confined_and_is_asked_again_when_changed() {
    let env = TestEnv::new();
    // What the hook tries beyond its worktree: the person's SSH key, the main checkout.
    write(
        &env.home().join(".ssh/id_ed25519"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key-but-private\n",
    );
    let main_file = env.root().join("repo/stolen-into-main.txt");
    let script = format!(
        "echo installed > deps.txt; echo \"port=$NODWYN_PORT\" >> deps.txt; \
         cat \"$HOME/.ssh/id_ed25519\" > key-copy.txt 2>/dev/null; \
         echo pwned > '{}' 2>/dev/null; exit 0",
        main_file.display()
    );
    let hooks = format!(
        "post_create = [[\"sh\", \"-c\", \"{}\"]]\n",
        script.replace('"', "\\\"")
    );
    let repo = repo_with_hooks(&env, &hooks);

    // Without a terminal: skipped, saying how to approve; the worktree is made all the same.
    let skipped = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        skipped.stderr.contains("nodwyn hooks approve"),
        "{}",
        skipped.stderr
    );
    let (first, first_wt) = newest(&env, &repo);
    assert!(
        !first_wt.join("deps.txt").exists(),
        "an unapproved hook does not run"
    );
    assert!(!env.has_record(&first, "hook.run"));

    // On a terminal it is shown and asked; approved, it runs, confined.
    let shown = env.nodwyn_on_terminal(&repo, &["worktree", "new"], "y");
    assert!(
        shown.contains("the repository has worktree hooks"),
        "{shown}"
    );
    assert!(shown.contains("post_create"), "the file is shown: {shown}");
    let (second, second_wt) = newest(&env, &repo);
    let deps = std::fs::read_to_string(second_wt.join("deps.txt"))
        .unwrap_or_else(|e| panic!("the hook did not run ({e}): {shown}"));
    let port = env.nodwyn(&repo, &["worktree", "port", &second]).success();
    assert_eq!(deps, format!("installed\nport={}\n", port.stdout.trim()));
    let copied = std::fs::read_to_string(second_wt.join("key-copy.txt")).unwrap_or_default();
    assert!(
        !copied.contains("not-a-real-key"),
        "the hook read the SSH key: {copied}"
    );
    assert!(!main_file.exists(), "the hook wrote the main checkout");
    let run = env
        .records(&second)
        .into_iter()
        .find(|r| r["type"] == "hook.run")
        .expect("recorded");
    assert_eq!(run["hook"], "post_create");
    assert_eq!(run["from"], "repository");
    assert_eq!(run["command"][0], "sh");
    assert_eq!(run["exit"], 0);
    assert!(run["duration_ms"].is_u64());

    // Approved by content: the next one runs without a terminal.
    env.nodwyn(&repo, &["worktree", "new"]).success();
    let (_, third_wt) = newest(&env, &repo);
    assert!(third_wt.join("deps.txt").exists());

    // Changed: not approved any more until the person says so again.
    write(
        &repo.join(".nodwyn/hooks.toml"),
        "post_create = [[\"sh\", \"-c\", \"echo changed > changed.txt\"]]\n",
    );
    env.commit_all(&repo, "hooks changed");
    let skipped = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        skipped.stderr.contains("were not run"),
        "{}",
        skipped.stderr
    );
    let (_, fourth_wt) = newest(&env, &repo);
    assert!(!fourth_wt.join("changed.txt").exists());
    let asked = env.nodwyn_on_terminal(&repo, &["worktree", "new"], "y");
    assert!(asked.contains("echo changed"), "{asked}");
    let (_, fifth_wt) = newest(&env, &repo);
    assert!(fifth_wt.join("changed.txt").exists());
}

#[test]
fn hooks_approve_reads_the_file_on_a_terminal_and_refuses_without_one() {
    let env = TestEnv::new();
    let repo = repo_with_hooks(
        &env,
        "post_create = [[\"sh\", \"-c\", \"echo ok > ok.txt\"]]\n",
    );
    let refused = env.nodwyn(&repo, &["hooks", "approve"]).refused();
    assert!(refused.contains("needs a terminal"), "{refused}");
    let shown = env.nodwyn_on_terminal(&repo, &["hooks", "approve"], "y");
    assert!(shown.contains("approved"), "{shown}");
    env.nodwyn(&repo, &["worktree", "new"]).success();
    let (_, wt) = newest(&env, &repo);
    assert!(wt.join("ok.txt").exists());
    let again = env.nodwyn(&repo, &["hooks", "approve"]).success();
    assert!(
        again.stdout.contains("approved already"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_failing_post_create_keeps_the_worktree_and_a_failing_pre_remove_keeps_it_unless_forced() {
    let env = TestEnv::new();
    let repo = repo_with_hooks(
        &env,
        "post_create = [[\"sh\", \"-c\", \"echo cannot install >&2; exit 3\"], [\"touch\", \"never.txt\"]]\n\
         pre_remove = [[\"sh\", \"-c\", \"test -f may-go\"]]\n",
    );
    env.nodwyn_on_terminal(&repo, &["hooks", "approve"], "y");
    let failed = env.nodwyn(&repo, &["worktree", "new"]);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    let said = failed.stderr.lines().last().unwrap().to_owned();
    assert!(said.contains("the worktree was made and is kept"), "{said}");
    assert!(
        said.contains("post_create hook `sh -c echo cannot install >&2; exit 3`"),
        "{said}"
    );
    assert!(said.contains("exit code 3"), "{said}");
    assert!(
        failed.stderr.contains("| cannot install"),
        "its output is shown: {}",
        failed.stderr
    );
    let (id, wt) = newest(&env, &repo);
    assert!(wt.exists());
    assert!(
        !wt.join("never.txt").exists(),
        "the hooks stop at the first that fails"
    );

    let refused = env.nodwyn(&repo, &["worktree", "remove", &id]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let refused = refused.stderr.lines().last().unwrap().to_owned();
    assert!(
        refused.starts_with("nodwyn: the worktree stays"),
        "{refused}"
    );
    assert!(refused.contains("pre_remove"), "{refused}");
    assert!(wt.exists());
    std::fs::write(wt.join("may-go"), "").unwrap();
    env.nodwyn(&repo, &["worktree", "remove", &id, "--force"])
        .success();
    assert!(!wt.exists());

    // --force removes it even when the teardown fails; --no-hooks runs none.
    let (other, other_wt) = {
        env.nodwyn(&repo, &["worktree", "new", "--no-hooks"])
            .success();
        newest(&env, &repo)
    };
    assert!(!env.has_record(&other, "hook.run"), "--no-hooks runs none");
    let forced = env
        .nodwyn(&repo, &["worktree", "remove", &other, "--force"])
        .success();
    assert!(
        forced.stderr.contains("removing it all the same"),
        "{}",
        forced.stderr
    );
    assert!(!other_wt.exists());
}

#[test]
fn the_persons_own_hooks_run_after_the_repositorys_and_post_land_follows_a_landing() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[hooks]\npost_create = [[\"sh\", \"-c\", \"echo mine > mine.txt\"]]\n\
         post_land = [[\"sh\", \"-c\", \"git log -1 --format=%s > landed.txt\"]]\n",
    );
    let (id, wt) = env.session(&repo);
    assert_eq!(
        std::fs::read_to_string(wt.join("mine.txt")).unwrap(),
        "mine\n"
    );
    write(&wt.join("work.txt"), "work\n");
    env.nodwyn(&repo, &["land", &id, "-m", "the work"])
        .success();
    assert_eq!(
        std::fs::read_to_string(wt.join("landed.txt")).unwrap(),
        "the work\n"
    );
    assert_eq!(
        env.git(&remote, &["log", "-1", "--format=%s", "main"]),
        "the work"
    );
    let runs: Vec<_> = env
        .records(&id)
        .into_iter()
        .filter(|r| r["type"] == "hook.run")
        .map(|r| (r["hook"].clone(), r["from"].clone()))
        .collect();
    assert_eq!(
        runs,
        vec![
            ("post_create".into(), "person".into()),
            ("post_land".into(), "person".into())
        ]
    );
    // A repository may not set hooks in its config.toml: they go in hooks.toml, approved.
    write(
        &repo.join(".nodwyn/config.toml"),
        "[hooks]\npost_create = [[\"true\"]]\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(refused.contains("[hooks]"), "{refused}");
}

#[test]
fn a_hooks_file_that_is_malformed_or_a_link_is_named_and_not_run() {
    let env = TestEnv::new();
    let repo = repo_with_hooks(&env, "post_create = \"npm ci\"\n");
    let made = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(made.stderr.contains("hooks.toml"), "{}", made.stderr);
    assert!(made.stderr.contains("were not run"), "{}", made.stderr);
    let repo2 = env.root().join("linked");
    std::fs::create_dir_all(&repo2).unwrap();
    env.git(&repo2, &["init", "-q", "-b", "main"]);
    write(
        &env.root().join("elsewhere.toml"),
        "post_create = [[\"touch\", \"x\"]]\n",
    );
    std::fs::create_dir_all(repo2.join(".nodwyn")).unwrap();
    std::os::unix::fs::symlink(
        env.root().join("elsewhere.toml"),
        repo2.join(".nodwyn/hooks.toml"),
    )
    .unwrap();
    env.commit_all(&repo2, "a linked hooks file");
    let made = env.nodwyn(&repo2, &["worktree", "new"]).success();
    assert!(made.stderr.contains("is a link"), "{}", made.stderr);
}
