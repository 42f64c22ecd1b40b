//! `nodwyn worktree new`: what it makes, what it records, and every refusal.

use std::path::Path;

use nodwyn_tests::{TestEnv, make_executable, write};

/// Everything a refusal must leave untouched: session logs, branches, the `.nodwyn` folder.
fn snapshot(env: &TestEnv, repo: &Path) -> (usize, String, bool) {
    (
        env.logs().len(),
        env.git_run(repo, &["branch", "--list"]).stdout,
        repo.join(".nodwyn").exists(),
    )
}

#[test]
fn makes_a_worktree_on_its_own_branch_and_records_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let config_before = std::fs::read_to_string(repo.join(".git/config")).unwrap();
    let made = env.new_worktree(&repo);

    let id = made["id"].as_str().unwrap();
    let session = made["session"].as_str().unwrap();
    assert!(session.ends_with(&format!("-{id}")), "{session}");
    let path = repo.join(".nodwyn/worktrees").join(id);
    assert_eq!(made["path"], path.to_str().unwrap());
    assert_eq!(made["branch"], format!("nodwyn/{id}"));
    assert_eq!(made["repository"], repo.to_str().unwrap());
    assert_eq!(made["base"], "main");
    assert_eq!(made["base_commit"], head.as_str());
    assert_eq!(made["uncommitted"], 0);
    assert_eq!(made["included"], serde_json::json!([]));
    assert_eq!(made["include_failed"], serde_json::json!([]));

    // A real worktree on the new branch, at the base commit.
    assert_eq!(
        env.git(&path, &["branch", "--show-current"]),
        format!("nodwyn/{id}")
    );
    assert_eq!(env.git(&path, &["rev-parse", "HEAD"]), head);
    assert!(path.join("README.md").exists());
    // It ignores itself, so the repository stays clean; and no upstream was written to config.
    assert_eq!(
        std::fs::read_to_string(repo.join(".nodwyn/worktrees/.gitignore")).unwrap(),
        "*\n"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(
        std::fs::read_to_string(repo.join(".git/config")).unwrap(),
        config_before
    );

    // The log: session.start first, with the worktree; then worktree.create, and the
    // fingerprint of the repository's git configuration.
    let records = env.records(id);
    assert_eq!(
        env.record_types(id),
        ["session.start", "worktree.create", "session.config"]
    );
    assert_eq!(records[0]["root"], path.to_str().unwrap());
    assert_eq!(records[0]["worktree"]["branch"], format!("nodwyn/{id}"));
    assert_eq!(records[0]["worktree"]["base_commit"], head.as_str());
    assert_eq!(records[1]["uncommitted"], 0);
    assert_eq!(records[1]["path"], path.to_str().unwrap());
    for record in &records {
        let at = record["at"].as_str().unwrap();
        assert!(
            at.len() == 24 && at.ends_with('Z') && at.as_bytes()[10] == b'T',
            "{at}"
        );
    }
}

#[test]
fn uncommitted_changes_are_counted_and_not_carried() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("README.md"), "changed\n");
    write(&repo.join("notes/a.txt"), "untracked\n");
    write(&repo.join("notes/b.txt"), "untracked\n");
    write(&repo.join("staged.txt"), "staged\n");
    env.git(&repo, &["add", "staged.txt"]);
    // Three lines of `git status --porcelain`: M README.md, A staged.txt, ?? notes/.
    let made = env.new_worktree(&repo);
    assert_eq!(made["uncommitted"], 3);
    let path = Path::new(made["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(path.join("README.md")).unwrap(),
        "hello\n"
    );
    assert!(!path.join("notes").exists());
    assert!(!path.join("staged.txt").exists());
    let human = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        human.stderr.contains("3 uncommitted change(s)"),
        "{}",
        human.stderr
    );
}

#[test]
fn base_ref_and_detached_head_are_recorded() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let first = env.git(&repo, &["rev-parse", "HEAD"]);
    env.git(&repo, &["branch", "feature"]);
    env.git(&repo, &["tag", "v1"]);
    write(&repo.join("more.txt"), "more\n");
    env.commit_all(&repo, "second");

    let on_branch = env.nodwyn_json(&repo, &["worktree", "new", "--base", "feature"]);
    assert_eq!(on_branch["base"], "feature");
    assert_eq!(on_branch["base_commit"], first.as_str());

    // A tag is no branch: the session lands on the default branch (the main checkout's here).
    let on_tag = env.nodwyn_json(&repo, &["worktree", "new", "--base", "v1"]);
    assert_eq!(on_tag["base"], "main");
    assert_eq!(on_tag["base_commit"], first.as_str());
    let onto = env.nodwyn_json(
        &repo,
        &["worktree", "new", "--base", "v1", "--onto", "feature"],
    );
    assert_eq!(onto["base"], "feature");
    let refused = env
        .nodwyn(&repo, &["worktree", "new", "--onto", "v1"])
        .refused();
    assert!(refused.contains("not a branch"), "{refused}");

    // A detached main checkout and no remote: no branch to land on at all.
    env.git(&repo, &["checkout", "-q", "--detach", "HEAD~1"]);
    let detached = env.new_worktree(&repo);
    assert_eq!(detached["base"], "");
    assert_eq!(detached["base_commit"], first.as_str());
}

#[test]
fn an_unknown_base_is_refused_and_makes_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let before = snapshot(&env, &repo);
    let sentence = env
        .nodwyn(&repo, &["worktree", "new", "--base", "no-such-branch"])
        .refused();
    assert!(sentence.contains("no-such-branch"), "{sentence}");
    assert_eq!(snapshot(&env, &repo), before);
}

#[test]
fn refusals_say_why_and_create_nothing() {
    let env = TestEnv::new();
    // Not a repository.
    let plain = env.root().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let sentence = env.nodwyn(&plain, &["worktree", "new"]).refused();
    assert!(sentence.contains("not in a git repository"), "{sentence}");
    assert!(!plain.join(".nodwyn").exists());

    // A bare repository.
    let bare = env.root().join("bare.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    let sentence = env.nodwyn(&bare, &["worktree", "new"]).refused();
    assert!(sentence.contains("bare"), "{sentence}");

    // A repository with no commit.
    let empty = env.root().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    env.git(&empty, &["init", "-q"]);
    let sentence = env.nodwyn(&empty, &["worktree", "new"]).refused();
    assert!(sentence.contains("no commit"), "{sentence}");
    assert!(!empty.join(".nodwyn").exists());

    let repo = env.repo("repo");
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let before = snapshot(&env, &repo);
    // A --repo that does not exist.
    let sentence = env
        .nodwyn(
            &env.root(),
            &["worktree", "new", "--repo", "/no/such/folder"],
        )
        .refused();
    assert!(sentence.contains("no such folder"), "{sentence}");
    assert_eq!(snapshot(&env, &repo), before);
    assert!(env.logs().is_empty(), "no session was opened");
}

#[test]
fn new_works_from_any_folder_of_a_checkout_as_git_does() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let from_below = env.new_worktree(&repo.join("src/deep"));
    assert_eq!(
        from_below["path"].as_str().unwrap(),
        repo.join(".nodwyn/worktrees")
            .join(from_below["id"].as_str().unwrap())
            .to_str()
            .unwrap()
    );
    assert_eq!(from_below["base"], "main");
    let via_repo = env.nodwyn_json(
        &env.root(),
        &[
            "worktree",
            "new",
            "--repo",
            repo.join("src").to_str().unwrap(),
        ],
    );
    assert_eq!(via_repo["base"], "main");
}

#[test]
fn a_name_goes_into_the_branch_and_any_command_takes_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let named = env.nodwyn_json(&repo, &["worktree", "new", "--name", "Fix the Auth flow!"]);
    let id = named["id"].as_str().unwrap();
    assert_eq!(named["name"], "fix-the-auth-flow");
    assert_eq!(named["branch"], format!("nodwyn/fix-the-auth-flow-{id}"));
    let path = env
        .nodwyn(&repo, &["worktree", "path", "fix-the-auth-flow"])
        .success();
    assert_eq!(path.stdout.trim_end(), named["path"].as_str().unwrap());
    // A start of the name no other name shares will do; a whole name wins over a start.
    let path = env.nodwyn(&repo, &["worktree", "path", "fix"]).success();
    assert_eq!(path.stdout.trim_end(), named["path"].as_str().unwrap());
    let fix = env.nodwyn_json(&repo, &["worktree", "new", "--name", "fix"]);
    let path = env.nodwyn(&repo, &["worktree", "path", "fix"]).success();
    assert_eq!(path.stdout.trim_end(), fix["path"].as_str().unwrap());
    let both = env.nodwyn(&repo, &["worktree", "path", "fi"]).refused();
    assert!(both.contains("several sessions match"), "{both}");
    let long = "a".repeat(60);
    let long = env.nodwyn_json(&repo, &["worktree", "new", "--name", &long]);
    assert_eq!(long["name"].as_str().unwrap().len(), 40);
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == id)
        .unwrap();
    assert_eq!(entry["name"], "fix-the-auth-flow");
    let human = env.nodwyn(&repo, &["worktree", "list"]).success();
    assert!(
        human.stdout.contains("fix-the-auth-flow"),
        "{}",
        human.stdout
    );
    let sessions = env.nodwyn(&repo, &["session", "list"]).success();
    assert!(
        sessions.stdout.contains("fix-the-auth-flow"),
        "{}",
        sessions.stdout
    );
    let unnamed = env.new_worktree(&repo);
    assert_eq!(
        unnamed["branch"],
        format!("nodwyn/{}", unnamed["id"].as_str().unwrap())
    );
    let refused = env
        .nodwyn(&repo, &["worktree", "new", "--name", "!!!"])
        .refused();
    assert!(refused.contains("letters or digits"), "{refused}");
}

#[test]
fn a_session_is_found_by_any_unique_start_of_its_id_in_any_case() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let path = made["path"].as_str().unwrap();
    for given in [&id[..3], &id[..1].to_uppercase(), &id.to_uppercase()] {
        // Unique while only one session exists.
        let run = env.nodwyn(&repo, &["worktree", "path", given]).success();
        assert_eq!(run.stdout.trim_end(), path, "{given}");
    }
    // Sessions until two share a first digit: that digit alone is ambiguous, named in full.
    let mut others = Vec::new();
    let clash = loop {
        let other = env.new_worktree(&repo);
        let other_id = other["id"].as_str().unwrap().to_owned();
        others.push(other_id.clone());
        if other_id[..1] == id[..1] {
            break other_id;
        }
        // Each new id shares the digit with chance 1/16: 400 misses in a row happen once in
        // 10^11 runs, where a bound of 64 failed once in 60.
        assert!(others.len() < 400, "no two ids share a first digit");
    };
    let refused = env.nodwyn(&repo, &["worktree", "path", &id[..1]]).refused();
    assert!(refused.contains("several sessions match"), "{refused}");
    assert!(
        refused.contains(id) && refused.contains(&clash),
        "{refused}"
    );
}

#[test]
fn a_link_on_the_way_is_refused_on_disk_and_when_committed() {
    let env = TestEnv::new();
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();

    // `.nodwyn` a link on disk.
    let repo = env.repo("one");
    std::os::unix::fs::symlink(&elsewhere, repo.join(".nodwyn")).unwrap();
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(sentence.contains("symbolic link"), "{sentence}");

    // `.nodwyn/worktrees` a link on disk.
    let repo = env.repo("two");
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.join(".nodwyn/worktrees")).unwrap();
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(sentence.contains("symbolic link"), "{sentence}");

    // `.nodwyn` committed as a link, though not on disk any more.
    let repo = env.repo("three");
    std::os::unix::fs::symlink(&elsewhere, repo.join(".nodwyn")).unwrap();
    env.commit_all(&repo, "a link");
    std::fs::remove_file(repo.join(".nodwyn")).unwrap();
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(
        sentence.contains("committed as a symbolic link"),
        "{sentence}"
    );
    assert!(!repo.join(".nodwyn").exists());

    // `--base` on a commit that has `.nodwyn/worktrees` as a link.
    let repo = env.repo("four");
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.join(".nodwyn/worktrees")).unwrap();
    env.commit_all(&repo, "a link");
    env.git(&repo, &["branch", "linked"]);
    env.git(&repo, &["rm", "-q", "-r", ".nodwyn"]);
    env.commit_all(&repo, "no link");
    let sentence = env
        .nodwyn(&repo, &["worktree", "new", "--base", "linked"])
        .refused();
    assert!(
        sentence.contains("committed as a symbolic link"),
        "{sentence}"
    );

    // `.nodwyn` a plain file: said as such.
    let repo = env.repo("five");
    write(&repo.join(".nodwyn"), "not a folder\n");
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(sentence.contains("is a file, not a folder"), "{sentence}");

    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing went through a link"
    );
    assert!(env.logs().is_empty());
}

#[test]
fn from_inside_a_worktree_it_makes_a_sibling() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let first = env.new_worktree(&repo);
    let first_path = Path::new(first["path"].as_str().unwrap()).to_path_buf();
    write(&first_path.join("work.txt"), "work\n");
    let work = env.commit_all(&first_path, "work");

    let sibling = env.new_worktree(&first_path);
    assert_eq!(sibling["repository"], repo.to_str().unwrap());
    assert_eq!(sibling["base"], first["branch"]);
    assert_eq!(sibling["base_commit"], work.as_str());
    let sibling_path = Path::new(sibling["path"].as_str().unwrap());
    assert_eq!(
        sibling_path.parent().unwrap(),
        repo.join(".nodwyn/worktrees")
    );

    // From a worktree a person made by hand.
    let by_hand = env.worktree_by_hand(&repo, "by-hand", "mine");
    let from_hand = env.new_worktree(&by_hand);
    assert_eq!(from_hand["repository"], repo.to_str().unwrap());
    assert_eq!(from_hand["base"], "mine");
}

#[test]
fn eight_at_once_all_succeed() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let config_before = std::fs::read_to_string(repo.join(".git/config")).unwrap();
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.nodwyn_command(&repo, &["worktree", "new", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut paths = std::collections::BTreeSet::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let made: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        paths.insert(made["path"].as_str().unwrap().to_owned());
    }
    assert_eq!(paths.len(), 8);
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed.as_array().unwrap().len(), 8);
    assert_eq!(
        std::fs::read_to_string(repo.join(".git/config")).unwrap(),
        config_before
    );
}

#[test]
fn the_persons_post_checkout_hook_runs() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let hook = repo.join(".git/hooks/post-checkout");
    write(&hook, "#!/bin/sh\necho \"checked out $3\" > hook-ran.txt\n");
    make_executable(&hook);
    let made = env.new_worktree(&repo);
    let path = Path::new(made["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(path.join("hook-ran.txt")).unwrap(),
        "checked out 1\n"
    );
}

#[test]
fn a_failing_hook_keeps_what_git_made_and_says_so() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let hook = repo.join(".git/hooks/post-checkout");
    write(&hook, "#!/bin/sh\necho refusing >&2\nexit 3\n");
    make_executable(&hook);
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(sentence.contains("was made, but"), "{sentence}");
    // The session and its worktree are recorded, so `remove` can take them away.
    let logs = env.logs();
    assert_eq!(logs.len(), 1);
    let short = &logs[0].0[17..25];
    assert_eq!(
        env.record_types(short),
        ["session.start", "worktree.create", "session.close"]
    );
    env.nodwyn(&repo, &["worktree", "remove", short]).success();
    assert!(!repo.join(".nodwyn/worktrees").join(short).exists());
}

#[test]
fn worktrees_can_live_in_the_data_directory() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[worktrees]\nlocation = \"data\"\n",
    );
    let made = env.new_worktree(&repo);
    let path = Path::new(made["path"].as_str().unwrap());
    assert!(
        path.starts_with(env.data().join("worktrees")),
        "{}",
        path.display()
    );
    assert!(path.join("README.md").exists());
    assert!(!repo.join(".nodwyn").exists());
    // It is still nodwyn's own: close removes it when nothing would be lost.
    let closed = env.nodwyn_json(&repo, &["worktree", "close", made["id"].as_str().unwrap()]);
    assert_eq!(closed["removed"], true);
    assert!(!path.exists());
    // Resume makes it again in the data directory.
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", made["id"].as_str().unwrap()]);
    assert_eq!(resumed["restored"], true);
    assert!(path.join("README.md").exists());

    // The repository's file overrides the user's.
    write(
        &repo.join(".nodwyn/config.toml"),
        "[worktrees]\nlocation = \"repository\"\n",
    );
    let made = env.new_worktree(&repo);
    assert!(
        made["path"]
            .as_str()
            .unwrap()
            .starts_with(repo.to_str().unwrap())
    );

    // A malformed file is an error naming the file and line.
    write(
        &repo.join(".nodwyn/config.toml"),
        "[worktrees]\nlocation = \"moon\"\n",
    );
    let sentence = env.nodwyn(&repo, &["worktree", "new"]).refused();
    assert!(sentence.contains("config.toml line 2"), "{sentence}");
}

#[test]
fn a_new_worktree_says_when_the_checkouts_strategy_is_not_committed() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    nodwyn_tests::write(&repo.join(".nodwyn/init.scm"), "(define x 1)\n");
    let made = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        made.stderr.contains(".nodwyn/init.scm is not committed"),
        "{}",
        made.stderr
    );
    let json = env.nodwyn_json(&repo, &["worktree", "new"]);
    assert_eq!(
        json["strategy_not_carried"][0], ".nodwyn/init.scm",
        "{json}"
    );
    env.commit_all(&repo, "the strategy");
    let made = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(!made.stderr.contains("not committed"), "{}", made.stderr);
}

#[test]
fn the_checkouts_uncommitted_changes_are_mentioned_only_when_the_worktree_starts_at_its_head() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("README.md"), "changed, not committed\n");
    let plain = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        plain.stderr.contains("were not carried over"),
        "{}",
        plain.stderr
    );
    let based = env
        .nodwyn(&repo, &["worktree", "new", "--base", "main"])
        .success();
    assert!(
        !based.stderr.contains("were not carried over"),
        "{}",
        based.stderr
    );
}
