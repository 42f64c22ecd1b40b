//! `worktree list`, `worktree path`, `session list`, `session events`, and session ids.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

#[test]
fn list_reports_each_field() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let a = env.new_worktree(&repo);
    let b = env.new_worktree(&repo);
    let b_path = PathBuf::from(b["path"].as_str().unwrap());
    write(&b_path.join("one.txt"), "1\n");
    env.commit_all(&b_path, "one");
    write(&b_path.join("two.txt"), "2\n");
    env.commit_all(&b_path, "two");
    write(&b_path.join("scratch.txt"), "dirty\n");
    env.nodwyn(&repo, &["worktree", "close", b["id"].as_str().unwrap()])
        .success();

    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    let find = |made: &serde_json::Value| {
        listed
            .iter()
            .find(|l| l["id"] == made["id"])
            .unwrap()
            .clone()
    };
    let (la, lb) = (find(&a), find(&b));
    for field in ["session", "path", "branch", "base", "base_commit"] {
        assert_eq!(la[field], a[field], "{field}");
    }
    assert_eq!(la["ahead"], 0);
    assert_eq!(la["dirty"], false);
    assert_eq!(la["open"], true);
    assert_eq!(la["missing"], false);
    assert_eq!(lb["ahead"], 2);
    assert_eq!(lb["dirty"], true);
    assert_eq!(lb["open"], false);

    let human = env.nodwyn(&repo, &["worktree", "list"]).success().stdout;
    assert!(human.starts_with("ID"), "{human}");
    assert!(human.contains("closed,dirty"), "{human}");
}

#[test]
fn dirty_agrees_with_git_status_in_a_sparse_checkout() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("keep/a.txt"), "a\n");
    write(&repo.join("drop/b.txt"), "b\n");
    env.commit_all(&repo, "two folders");
    let made = env.new_worktree(&repo);
    let path = Path::new(made["path"].as_str().unwrap());
    env.git(path, &["sparse-checkout", "set", "keep"]);
    assert!(!path.join("drop").exists());
    assert_eq!(
        env.git(path, &["status", "--porcelain"]),
        "",
        "git calls it clean"
    );
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], false, "{listed}");
    write(&path.join("keep/a.txt"), "changed\n");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], true, "{listed}");
}

#[test]
fn the_repository_is_the_project_wherever_the_command_runs() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let nodwyns = PathBuf::from(made["path"].as_str().unwrap());
    let by_hand = env.worktree_by_hand(&repo, "by-hand", "mine");
    env.new_worktree(&by_hand);
    std::fs::create_dir_all(repo.join("src")).unwrap();

    let from_repo = env.nodwyn_json(&repo, &["session", "list"]);
    assert_eq!(from_repo.as_array().unwrap().len(), 2);
    for dir in [nodwyns.as_path(), by_hand.as_path(), &repo.join("src")] {
        assert_eq!(
            env.nodwyn_json(dir, &["session", "list"]),
            from_repo,
            "{}",
            dir.display()
        );
        assert_eq!(
            env.nodwyn_json(dir, &["worktree", "list"]),
            env.nodwyn_json(&repo, &["worktree", "list"])
        );
    }
    let other = env.repo("other");
    assert_eq!(
        env.nodwyn_json(&other, &["session", "list"]),
        serde_json::json!([])
    );
    let human = env.nodwyn(&other, &["session", "list"]).success();
    assert!(human.stdout.starts_with("No sessions"), "{}", human.stdout);
}

#[test]
fn session_events_prints_the_log() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    env.nodwyn(&repo, &["worktree", "close", id]).success();
    let events = env.nodwyn_json(&repo, &["session", "events", id]);
    let types: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "session.start",
            "worktree.create",
            "session.config",
            "worktree.remove",
            "session.close"
        ]
    );
    let human = env
        .nodwyn(&repo, &["session", "events", id])
        .success()
        .stdout;
    assert_eq!(human.lines().count(), 5);
    assert!(
        human.lines().nth(1).unwrap().contains("worktree.create"),
        "{human}"
    );
}

#[test]
fn sessions_are_named_by_full_or_short_id_and_bad_ids_are_refused() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let path = made["path"].as_str().unwrap();
    for id in [
        made["id"].as_str().unwrap(),
        made["session"].as_str().unwrap(),
    ] {
        // From anywhere: no --repo is needed.
        let run = env.nodwyn(&env.root(), &["worktree", "path", id]).success();
        assert_eq!(run.stdout.trim_end(), path);
    }
    let sentence = env
        .nodwyn(&repo, &["worktree", "path", "nonsense"])
        .refused();
    assert!(
        sentence.contains("no session has the id or name nonsense"),
        "{sentence}"
    );
    let sentence = env
        .nodwyn(&repo, &["worktree", "close", "0badc0de"])
        .refused();
    assert!(
        sentence.contains("no session has the id or name 0badc0de"),
        "{sentence}"
    );
    let sentence = env
        .nodwyn(&repo, &["session", "events", "20261002T054407Z-0badc0de"])
        .refused();
    assert!(sentence.contains("no session has the id"), "{sentence}");
}

#[test]
fn a_torn_last_line_does_not_break_reading_a_session() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let log = env.log_path(id);
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(r#"{"type":"session.cl"#);
    std::fs::write(&log, text).unwrap();
    let closed = env.nodwyn_json(&repo, &["worktree", "close", id]);
    assert_eq!(closed["removed"], true);
    let events = env.nodwyn_json(&repo, &["session", "events", id]);
    let events = events.as_array().unwrap();
    // The torn line is said to be torn once, by the record after it.
    assert_eq!(events.len(), 6, "{events:?}");
    assert_eq!(
        events.iter().filter(|e| e["type"] == "log.torn").count(),
        1,
        "{events:?}"
    );
}

#[test]
fn dirty_follows_the_persons_status_configuration() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let path = PathBuf::from(made["path"].as_str().unwrap());
    write(&path.join("untracked.txt"), "x\n");
    assert_eq!(
        env.nodwyn_json(&repo, &["worktree", "list"])[0]["dirty"],
        true
    );
    // With untracked files hidden, `git status` calls it clean, and so does list.
    env.git(&repo, &["config", "status.showUntrackedFiles", "no"]);
    assert_eq!(env.git(&path, &["status", "--porcelain"]), "");
    assert_eq!(
        env.nodwyn_json(&repo, &["worktree", "list"])[0]["dirty"],
        false
    );

    // A clean filter the repository's attributes name is not run (reads take no attributes),
    // so a file whose bytes on disk differ from what the index holds is called changed: closing
    // keeps it rather than guess.
    std::fs::remove_file(path.join("untracked.txt")).unwrap();
    env.git(&repo, &["config", "filter.upper.clean", "tr a-z A-Z"]);
    env.git(&repo, &["config", "filter.upper.smudge", "cat"]);
    write(&path.join(".gitattributes"), "*.txt filter=upper\n");
    write(&path.join("shout.txt"), "LOUD\n");
    env.commit_all(&path, "filtered file");
    assert_eq!(
        env.nodwyn_json(&repo, &["worktree", "list"])[0]["dirty"],
        false
    );
    write(&path.join("shout.txt"), "loud\n");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], true, "{listed}");
}

/// A stand-in for `git lfs clean`: the pointer of what it reads on stdin.
const LFS_CLEAN: &str = r#"#!/bin/sh
f=$(mktemp)
cat > "$f"
oid=$(sha256sum < "$f" | cut -d' ' -f1)
size=$(wc -c < "$f")
rm -f "$f"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %s\n' "$oid" "$size"
"#;

#[test]
fn an_lfs_file_that_is_its_pointers_object_is_unchanged_without_running_git_lfs() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.install_program("fake-lfs-clean", LFS_CLEAN);
    env.git(&repo, &["config", "filter.lfs.clean", "fake-lfs-clean"]);
    env.git(&repo, &["config", "filter.lfs.smudge", "cat"]);
    let (id, wt) = env.session(&repo);
    write(&wt.join(".gitattributes"), "*.bin filter=lfs\n");
    write(&wt.join("model.bin"), "weights\n");
    env.commit_all(&wt, "an LFS file");
    let held = env.git(&wt, &["cat-file", "-p", "HEAD:model.bin"]);
    assert!(held.starts_with("version https://git-lfs"), "{held}");

    // Touched (git must compare content) but the same object: nothing to keep.
    let file = std::fs::File::options()
        .append(true)
        .open(wt.join("model.bin"))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], false, "{listed}");
    let status = env.nodwyn(&repo, &["call", "--session", &id, "git-status", "{}"]);
    assert!(!status.success().stdout.contains("model.bin"));

    // Other bytes: a change.
    write(&wt.join("model.bin"), "weights, trained\n");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["dirty"], true, "{listed}");
}

#[test]
fn a_log_torn_in_its_first_record_never_hides_the_other_sessions() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let good = env.new_worktree(&repo);
    let bad = env.new_worktree(&repo);
    // nodwyn stopped while writing the bad session's first record.
    let bad_log = env.log_path(bad["id"].as_str().unwrap());
    std::fs::write(&bad_log, r#"{"type":"session.st"#).unwrap();

    let run = env.nodwyn(&repo, &["worktree", "list", "--json"]).success();
    let listed = run.json();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], good["id"]);
    assert!(
        run.stderr.contains(bad_log.to_str().unwrap()),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("cannot be read"), "{}", run.stderr);

    let sessions = env.nodwyn(&repo, &["session", "list", "--json"]).success();
    assert_eq!(sessions.json().as_array().unwrap().len(), 1);
    assert!(sessions.stderr.contains(bad_log.to_str().unwrap()));

    env.nodwyn(&repo, &["worktree", "close", good["id"].as_str().unwrap()])
        .success();
    let pruned = env
        .nodwyn(&repo, &["worktree", "prune", "--json"])
        .success();
    assert_eq!(
        pruned.json(),
        serde_json::json!([]),
        "the good one went on close"
    );
    // The damaged session's worktree is left exactly where it was.
    assert!(
        Path::new(bad["path"].as_str().unwrap())
            .join("README.md")
            .exists()
    );
}

#[test]
fn an_id_or_name_is_looked_up_in_the_current_repository_first_and_an_exact_name_wins() {
    let env = TestEnv::new();
    let one = env.repo("one");
    let two = env.repo("two");
    let made_one = env.nodwyn_json(&one, &["worktree", "new", "--name", "fix"]);
    let made_two = env.nodwyn_json(&two, &["worktree", "new", "--name", "fix"]);
    let path_of = |dir: &Path, what: &str| {
        env.nodwyn(dir, &["worktree", "path", what])
            .success()
            .stdout
            .trim()
            .to_owned()
    };
    // The same name in two repositories: each finds its own.
    assert_eq!(path_of(&one, "fix"), made_one["path"].as_str().unwrap());
    assert_eq!(path_of(&two, "fix"), made_two["path"].as_str().unwrap());
    // A name that is also the start of another session's hex id: the whole name wins.
    let first_digit = &made_two["id"].as_str().unwrap()[..1];
    let named = env.nodwyn_json(&two, &["worktree", "new", "--name", first_digit]);
    assert_eq!(path_of(&two, first_digit), named["path"].as_str().unwrap());
    // A name is found again as it was given.
    let spaced = env.nodwyn_json(&one, &["worktree", "new", "--name", "my fix"]);
    assert_eq!(path_of(&one, "my fix"), spaced["path"].as_str().unwrap());
    // A name is one session's in its repository.
    let refused = env
        .nodwyn(&one, &["worktree", "new", "--name", "fix"])
        .refused();
    assert!(
        refused.contains(made_one["id"].as_str().unwrap()) && refused.contains("named fix already"),
        "{refused}"
    );
}

#[test]
fn inside_a_sessions_worktree_a_command_without_an_id_means_that_session() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("src/notes.txt"), "the work\n");
    let below = wt.join("src");
    let path = env.nodwyn(&below, &["worktree", "path"]).success().stdout;
    assert_eq!(path.trim(), wt.to_str().unwrap());
    let diff = env.nodwyn(&below, &["worktree", "diff"]).success().stdout;
    assert!(diff.contains("src/notes.txt"), "{diff}");
    let read = env
        .nodwyn(&below, &["call", "fs-read", r#"["src/notes.txt"]"#])
        .success()
        .stdout;
    assert!(read.contains("the work"), "{read}");
    let landed = env.nodwyn_json(&below, &["land", "-m", "notes"]);
    assert_eq!(
        env.git(&remote, &["show", "main:src/notes.txt"]),
        "the work",
        "{landed}"
    );
    // In the checkout no session is meant, and the sentence says what to give.
    let refused = env.nodwyn(&repo, &["land", "-m", "notes"]).failed_with(2);
    assert!(refused.contains("not in a session's worktree"), "{refused}");
    let events = env.nodwyn_json(&wt, &["session", "events"]);
    assert_eq!(events[0]["type"], "session.start", "{events}");
    assert_eq!(events.as_array().unwrap().len(), env.records(&id).len());
}

/// `worktree list` run with the CLI's debug log: its worktrees' dirty flags by id, and whether
/// a daemon answered.
fn dirty_flags(env: &TestEnv, repo: &Path, vars: &[(&str, &Path)]) -> (Vec<(String, bool)>, bool) {
    let mut command = env.nodwyn_command(repo, &["worktree", "list", "--json"]);
    command.env("NODWYN_LOG", "nodwyn=debug");
    for (name, value) in vars {
        command.env(name, value);
    }
    let run = nodwyn_tests::Run::from_output(command.output().unwrap()).success();
    let listed: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let flags = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["id"].as_str().unwrap().to_owned(), w["dirty"] == true))
        .collect();
    (flags, run.stderr.contains("listed by the daemon"))
}

#[test]
fn with_a_daemon_running_list_asks_it_and_sees_each_change_made_just_before() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let a = env.new_worktree(&repo);
    let b = env.new_worktree(&repo);
    let a_path = PathBuf::from(a["path"].as_str().unwrap());
    let ids = [a["id"].as_str().unwrap(), b["id"].as_str().unwrap()];
    let _daemon = env.serve(&repo, &[], None);
    let expect = |dirty: [bool; 2], why: &str| {
        let (flags, by_daemon) = dirty_flags(&env, &repo, &[]);
        assert!(by_daemon, "{why}: the daemon was not asked");
        let mut wanted: Vec<(String, bool)> = ids
            .iter()
            .zip(dirty)
            .map(|(id, dirty)| ((*id).to_owned(), dirty))
            .collect();
        let mut flags = flags;
        flags.sort();
        wanted.sort();
        assert_eq!(flags, wanted, "{why}");
    };
    expect([false, false], "fresh");
    expect([false, false], "asked again");
    // Each change is made right before the question, with no pause.
    write(&a_path.join("new.txt"), "new\n");
    expect([true, false], "an untracked file");
    std::fs::remove_file(a_path.join("new.txt")).unwrap();
    expect([false, false], "the file removed");
    write(&a_path.join("deep/er/x.txt"), "x\n");
    expect([true, false], "a file in new folders");
    env.commit_all(&a_path, "deep");
    expect([false, false], "committed");
    write(&a_path.join("deep/er/x.txt"), "changed\n");
    expect(
        [true, false],
        "a change in a folder made since the first list",
    );
    write(&a_path.join("deep/er/x.txt"), "x\n");
    expect([false, false], "put back");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    let a_listed = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == a["id"])
        .unwrap()
        .clone();
    assert_eq!(a_listed["ahead"], 1);
}

#[test]
fn a_daemon_keeping_another_data_directory_is_never_asked() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let runtime = env.root().join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    // Both find the daemon through the same runtime folder; it keeps other sessions.
    let other_data = env.root().join("other-data");
    let _daemon = env.serve(
        &repo,
        &[
            ("XDG_RUNTIME_DIR", runtime.as_path()),
            ("NODWYN_HOME", other_data.as_path()),
        ],
        Some(&runtime.join("nodwyn/nodwyn.sock")),
    );
    let (flags, by_daemon) = dirty_flags(&env, &repo, &[("XDG_RUNTIME_DIR", runtime.as_path())]);
    assert!(!by_daemon);
    assert_eq!(
        flags,
        [(made["id"].as_str().unwrap().to_owned(), false)],
        "this data directory's worktree, listed here"
    );
}
