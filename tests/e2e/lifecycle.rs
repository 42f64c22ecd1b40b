//! close, resume, remove, keep and prune: nothing a person could want is ever lost.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};
use serde_json::Value;

struct Made {
    id: String,
    path: PathBuf,
    branch: String,
}

fn made(env: &TestEnv, repo: &Path) -> Made {
    let made = env.new_worktree(repo);
    Made {
        id: made["id"].as_str().unwrap().to_owned(),
        path: PathBuf::from(made["path"].as_str().unwrap()),
        branch: made["branch"].as_str().unwrap().to_owned(),
    }
}

fn branch_exists(env: &TestEnv, repo: &Path, branch: &str) -> bool {
    env.git_run(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ],
    )
    .code
        == 0
}

fn close(env: &TestEnv, repo: &Path, id: &str) -> Value {
    env.nodwyn_json(repo, &["worktree", "close", id])
}

#[test]
fn close_removes_an_untouched_worktree_and_its_branch() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    let closed = close(&env, &repo, &wt.id);
    assert_eq!(closed["removed"], true);
    assert_eq!(closed["kept"], serde_json::json!([]));
    assert_eq!(closed["branch"]["deleted"], true);
    assert!(!wt.path.exists());
    assert!(!branch_exists(&env, &repo, &wt.branch));
    assert_eq!(
        env.record_types(&wt.id),
        [
            "session.start",
            "worktree.create",
            "session.config",
            "worktree.remove",
            "session.close"
        ]
    );
    let remove = &env.records(&wt.id)[3];
    assert_eq!(remove["by"], "close");
    assert_eq!(remove["branch_deleted"], true);
}

#[test]
fn close_keeps_a_worktree_for_each_kind_of_unsaved_work() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), "*.log\n");
    env.commit_all(&repo, "ignore logs");

    type Setup = fn(&TestEnv, &Made);
    let cases: [(&str, Setup, &str); 6] = [
        (
            "unstaged",
            |_, wt| write(&wt.path.join("README.md"), "edited\n"),
            "uncommitted",
        ),
        (
            "staged",
            |env, wt| {
                write(&wt.path.join("new.txt"), "new\n");
                env.git(&wt.path, &["add", "new.txt"]);
            },
            "uncommitted",
        ),
        (
            "untracked",
            |_, wt| write(&wt.path.join("scratch.txt"), "x\n"),
            "uncommitted",
        ),
        (
            "ignored",
            |_, wt| write(&wt.path.join("build.log"), "x\n"),
            "uncommitted",
        ),
        (
            "committed",
            |env, wt| {
                write(&wt.path.join("feature.txt"), "feature\n");
                env.commit_all(&wt.path, "feature");
            },
            "commit(s) that main lacks",
        ),
        (
            "detached commit",
            |env, wt| {
                env.git(&wt.path, &["checkout", "-q", "--detach"]);
                write(&wt.path.join("detached.txt"), "detached\n");
                env.commit_all(&wt.path, "detached work");
            },
            "HEAD (detached at",
        ),
    ];
    for (name, setup, reason) in cases {
        let wt = made(&env, &repo);
        setup(&env, &wt);
        let closed = close(&env, &repo, &wt.id);
        assert_eq!(closed["removed"], false, "{name}");
        let kept = closed["kept"].as_array().unwrap();
        assert!(
            kept.iter().any(|k| k.as_str().unwrap().contains(reason)),
            "{name}: {kept:?}"
        );
        assert!(wt.path.exists(), "{name}");
        assert!(branch_exists(&env, &repo, &wt.branch), "{name}");
        let records = env.records(&wt.id);
        let last = records.last().unwrap();
        assert_eq!(last["type"], "session.close", "{name}");
        assert_eq!(&last["kept"], &closed["kept"], "{name}");
        assert!(
            !env.record_types(&wt.id)
                .contains(&"worktree.remove".to_owned()),
            "{name}"
        );
    }
    // The human form says why.
    let wt = made(&env, &repo);
    write(&wt.path.join("scratch.txt"), "x\n");
    let human = env.nodwyn(&repo, &["worktree", "close", &wt.id]).success();
    assert!(human.stdout.contains("stays, because"), "{}", human.stdout);
    assert!(human.stdout.contains("scratch.txt"), "{}", human.stdout);
}

#[test]
fn close_removes_work_that_landed_by_content() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let commit_in = |wt: &Made, file: &str| {
        write(&wt.path.join(file), &format!("{file}\n"));
        env.commit_all(&wt.path, file);
    };

    // Fast-forwarded into main.
    let ff = made(&env, &repo);
    commit_in(&ff, "ff.txt");
    env.git(&repo, &["merge", "-q", "--ff-only", &ff.branch]);

    // Squash-merged into main.
    let squash = made(&env, &repo);
    commit_in(&squash, "s1.txt");
    commit_in(&squash, "s2.txt");
    env.git(&repo, &["merge", "-q", "--squash", &squash.branch]);
    env.git(&repo, &["commit", "-q", "-m", "squashed"]);

    // Cherry-picked onto main after main moved on.
    let picked = made(&env, &repo);
    commit_in(&picked, "p.txt");
    write(&repo.join("main-only.txt"), "main\n");
    env.commit_all(&repo, "main moves");
    env.git(&repo, &["cherry-pick", &picked.branch]);

    for wt in [&ff, &squash, &picked] {
        let closed = close(&env, &repo, &wt.id);
        assert_eq!(closed["removed"], true, "{}: {closed}", wt.branch);
        assert!(!wt.path.exists());
        assert!(!branch_exists(&env, &repo, &wt.branch), "{}", wt.branch);
    }

    // Work that did not land is never called landed, even when part of it did.
    let partial = made(&env, &repo);
    commit_in(&partial, "a.txt");
    env.git(&repo, &["cherry-pick", &partial.branch]);
    commit_in(&partial, "b.txt");
    let closed = close(&env, &repo, &partial.id);
    assert_eq!(closed["removed"], false, "{closed}");
    assert!(branch_exists(&env, &repo, &partial.branch));
}

#[test]
fn a_branch_merged_on_the_upstream_counts_as_landed() {
    let env = TestEnv::new();
    let origin = env.root().join("origin.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", origin.to_str().unwrap()],
    );
    let repo = env.repo("repo");
    env.git(
        &repo,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    env.git(&repo, &["push", "-q", "-u", "origin", "main"]);
    let wt = made(&env, &repo);
    write(&wt.path.join("pr.txt"), "pr\n");
    env.commit_all(&wt.path, "pr");
    // The forge squash-merges it; the local main has not been pulled.
    let forge = env.root().join("forge");
    env.git(
        &env.root(),
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            forge.to_str().unwrap(),
        ],
    );
    env.git(
        &forge,
        &["fetch", "-q", wt.path.to_str().unwrap(), &wt.branch],
    );
    env.git(&forge, &["merge", "-q", "--squash", "FETCH_HEAD"]);
    env.git(
        &forge,
        &["commit", "-q", "-m", "squash-merged on the forge"],
    );
    env.git(&forge, &["push", "-q", "origin", "main"]);
    env.git(&repo, &["fetch", "-q", "origin"]);
    let closed = close(&env, &repo, &wt.id);
    assert_eq!(closed["removed"], true, "{closed}");
}

#[test]
fn remove_refuses_changes_without_force_and_names_what_force_discards() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), "*.log\n");
    env.commit_all(&repo, "ignore logs");
    let wt = made(&env, &repo);
    write(&wt.path.join("README.md"), "edited\n");
    write(&wt.path.join("deep/new.txt"), "new\n");
    write(&wt.path.join("run.log"), "log\n");

    let sentence = env.nodwyn(&repo, &["worktree", "remove", &wt.id]).refused();
    assert!(sentence.contains("--force"), "{sentence}");
    assert!(
        sentence.contains("run.log"),
        "ignored files count: {sentence}"
    );
    assert!(wt.path.join("run.log").exists(), "nothing was discarded");
    assert!(wt.path.join("deep/new.txt").exists());

    let removed = env.nodwyn_json(&repo, &["worktree", "remove", &wt.id, "--force"]);
    let mut discarded: Vec<&str> = removed["discarded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    discarded.sort();
    assert_eq!(discarded, ["README.md", "deep/new.txt", "run.log"]);
    assert!(!wt.path.exists());
    // No commit of its own: the branch went too.
    assert_eq!(removed["branch"]["deleted"], true);
    assert!(!branch_exists(&env, &repo, &wt.branch));
    let records = env.records(&wt.id);
    let remove = records
        .iter()
        .find(|r| r["type"] == "worktree.remove")
        .unwrap();
    assert_eq!(remove["by"], "remove");
    assert_eq!(remove["discarded"].as_array().unwrap().len(), 3);
}

#[test]
fn remove_keeps_a_branch_with_unlanded_commits_and_names_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    write(&wt.path.join("feature.txt"), "feature\n");
    let commit = env.commit_all(&wt.path, "feature");
    let human = env.nodwyn(&repo, &["worktree", "remove", &wt.id]).success();
    assert!(
        human
            .stdout
            .contains(&format!("branch {} stays", wt.branch)),
        "{}",
        human.stdout
    );
    assert!(!wt.path.exists());
    assert_eq!(env.git(&repo, &["rev-parse", &wt.branch]), commit);
    // Removing again says it was removed already.
    let sentence = env.nodwyn(&repo, &["worktree", "remove", &wt.id]).refused();
    assert!(sentence.contains("removed already"), "{sentence}");
}

#[test]
fn remove_never_strands_commits_on_a_detached_head() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    env.git(&wt.path, &["checkout", "-q", "--detach"]);
    write(&wt.path.join("lonely.txt"), "lonely\n");
    env.commit_all(&wt.path, "lonely");
    let sentence = env
        .nodwyn(&repo, &["worktree", "remove", &wt.id, "--force"])
        .refused();
    assert!(sentence.contains("detached"), "{sentence}");
    assert!(wt.path.join("lonely.txt").exists());
}

#[test]
fn only_worktrees_nodwyn_made_are_removed() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    // Someone edits the log so the session points at a person's own worktree.
    let theirs = env.worktree_by_hand(&repo, "theirs", "theirs");
    let log = env.log_path(&wt.id);
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        text.replace(wt.path.to_str().unwrap(), theirs.to_str().unwrap()),
    )
    .unwrap();
    let sentence = env
        .nodwyn(&repo, &["worktree", "remove", &wt.id, "--force"])
        .refused();
    assert!(
        sentence.contains("nodwyn removes only worktrees it made"),
        "{sentence}"
    );
    let closed = close(&env, &repo, &wt.id);
    assert_eq!(closed["removed"], false);
    let pruned = env.nodwyn_json(&repo, &["worktree", "prune"]);
    assert_eq!(pruned[0]["removed"], false, "{pruned}");
    assert!(theirs.join("README.md").exists());
}

#[test]
fn resume_makes_a_deleted_folder_again_on_its_branch() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    write(&wt.path.join("work.txt"), "work\n");
    let work = env.commit_all(&wt.path, "work");
    env.nodwyn(&repo, &["worktree", "close", &wt.id]).success();
    std::fs::remove_dir_all(&wt.path).unwrap();

    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["missing"], true);

    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &wt.id]);
    assert_eq!(resumed["restored"], true);
    assert_eq!(resumed["branch_reused"], true);
    assert_eq!(env.git(&wt.path, &["rev-parse", "HEAD"]), work);
    assert!(wt.path.join("work.txt").exists());
    let records = env.records(&wt.id);
    let restore = records
        .iter()
        .find(|r| r["type"] == "worktree.restore")
        .unwrap();
    assert_eq!(restore["branch_reused"], true);
    assert_eq!(records.last().unwrap()["type"], "session.resume");
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["missing"], false);
    assert_eq!(listed[0]["open"], true);
}

#[test]
fn resume_after_removal_starts_a_new_branch_from_the_base_as_it_is_now() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    close(&env, &repo, &wt.id);
    assert!(!wt.path.exists());
    write(&repo.join("later.txt"), "later\n");
    let later = env.commit_all(&repo, "main moves on");

    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &wt.id]);
    assert_eq!(resumed["branch_reused"], false);
    assert_eq!(resumed["worktree"]["base_commit"], later.as_str());
    assert_eq!(env.git(&wt.path, &["rev-parse", "HEAD"]), later);
    let records = env.records(&wt.id);
    let restore = records
        .iter()
        .find(|r| r["type"] == "worktree.restore")
        .unwrap();
    assert_eq!(restore["base_commit"], later.as_str());
    // The restored base is what list reports from now on.
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["base_commit"], later.as_str());
    assert_eq!(listed[0]["ahead"], 0);
}

#[test]
fn resume_leaves_a_persons_unmounted_worktree_registered() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let theirs = env.worktree_by_hand(&repo, "usb/theirs", "theirs");
    let wt = made(&env, &repo);
    // The person's disk is not mounted, and nodwyn's folder was deleted.
    std::fs::rename(env.root().join("usb"), env.root().join("usb-away")).unwrap();
    std::fs::remove_dir_all(&wt.path).unwrap();

    env.nodwyn(&repo, &["worktree", "resume", &wt.id]).success();
    assert!(wt.path.join("README.md").exists());
    let registered = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(
        registered.contains(theirs.to_str().unwrap()),
        "{registered}"
    );
    std::fs::rename(env.root().join("usb-away"), env.root().join("usb")).unwrap();
    assert_eq!(env.git(&theirs, &["branch", "--show-current"]), "theirs");
}

#[test]
fn keep_hands_the_worktree_over() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let wt = made(&env, &repo);
    let kept = env.nodwyn_json(&repo, &["worktree", "keep", &wt.id]);
    assert_eq!(kept["path"], wt.path.to_str().unwrap());
    assert!(wt.path.exists());
    assert!(branch_exists(&env, &repo, &wt.branch));
    assert_eq!(
        env.nodwyn_json(&repo, &["worktree", "list"]),
        serde_json::json!([])
    );
    let sentence = env.nodwyn(&repo, &["worktree", "remove", &wt.id]).refused();
    assert!(sentence.contains("handed over"), "{sentence}");
    let sentence = env.nodwyn(&repo, &["worktree", "resume", &wt.id]).refused();
    assert!(sentence.contains("handed over"), "{sentence}");
    assert_eq!(
        env.nodwyn_json(&repo, &["worktree", "prune"]),
        serde_json::json!([])
    );
    assert!(wt.path.exists());
    assert!(
        env.record_types(&wt.id)
            .contains(&"worktree.keep".to_owned())
    );
}

#[test]
fn prune_removes_only_what_close_would_and_dry_run_changes_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let clean = made(&env, &repo);
    let dirty = made(&env, &repo);
    let open = made(&env, &repo);
    let theirs = env.worktree_by_hand(&repo, "theirs", "theirs");
    // Close both while they have work, then let one become clean.
    write(&clean.path.join("tmp.txt"), "x\n");
    write(&dirty.path.join("tmp.txt"), "x\n");
    close(&env, &repo, &clean.id);
    close(&env, &repo, &dirty.id);
    std::fs::remove_file(clean.path.join("tmp.txt")).unwrap();

    let dry = env.nodwyn_json(&repo, &["worktree", "prune", "--dry-run"]);
    let entry = |report: &Value, path: &Path| {
        report
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == path.to_str().unwrap())
            .cloned()
            .unwrap()
    };
    assert_eq!(entry(&dry, &clean.path)["removed"], true);
    assert_eq!(entry(&dry, &dirty.path)["removed"], false);
    assert_eq!(entry(&dry, &open.path)["kept"][0], "the session is open");
    assert!(clean.path.exists(), "--dry-run changes nothing");
    assert!(branch_exists(&env, &repo, &clean.branch));

    let pruned = env.nodwyn_json(&repo, &["worktree", "prune"]);
    assert_eq!(entry(&pruned, &clean.path)["removed"], true);
    assert!(
        entry(&pruned, &dirty.path)["kept"][0]
            .as_str()
            .unwrap()
            .contains("tmp.txt")
    );
    assert!(!clean.path.exists());
    assert!(!branch_exists(&env, &repo, &clean.branch));
    assert!(dirty.path.join("tmp.txt").exists());
    assert!(open.path.exists());
    assert!(theirs.join("README.md").exists());
    assert_eq!(
        pruned.as_array().unwrap().len(),
        3,
        "the person's worktree is not nodwyn's"
    );
    let remove = env
        .records(&clean.id)
        .into_iter()
        .find(|r| r["type"] == "worktree.remove")
        .unwrap();
    assert_eq!(remove["by"], "prune");
}

#[test]
fn a_forged_log_claiming_an_open_sessions_worktree_makes_prune_remove_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    write(&path.join("work.txt"), "unsaved work\n");
    // A copy of its log under another id, closed: as if that session owned the worktree.
    let log = env.log_path(id);
    let name = log.file_name().unwrap().to_str().unwrap().to_owned();
    let forged_name = name.replace(id, "0badf00d");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(r#"{"at":"2026-11-30T00:00:00.000Z","type":"session.close","kept":[]}"#);
    text.push('\n');
    std::fs::write(log.with_file_name(&forged_name), text).unwrap();
    std::fs::remove_file(path.join("work.txt")).unwrap();

    let pruned = env.nodwyn_json(&repo, &["worktree", "prune"]);
    assert!(path.exists(), "{pruned}");
    let forged = pruned
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["session"].as_str().unwrap().ends_with("0badf00d"))
        .unwrap();
    assert_eq!(forged["removed"], false, "{pruned}");
    assert!(forged["kept"][0].as_str().unwrap().contains(id), "{pruned}");
    // Nor does closing either claimant, or removing the real one.
    let closed = env.nodwyn_json(&repo, &["worktree", "close", "0badf00d"]);
    assert_eq!(closed["removed"], false, "{closed}");
    let refused = env
        .nodwyn(&repo, &["worktree", "remove", id, "--force"])
        .failed_with(1);
    assert!(refused.contains("0badf00d"), "{refused}");
    assert!(path.exists());
}

#[test]
fn removing_a_worktree_the_person_moved_refuses_and_records_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    let path = PathBuf::from(made["path"].as_str().unwrap());
    let moved = env.root().join("moved-here");
    env.git(
        &repo,
        &[
            "worktree",
            "move",
            path.to_str().unwrap(),
            moved.to_str().unwrap(),
        ],
    );
    let before = env.record_types(id);
    let refused = env
        .nodwyn(&repo, &["worktree", "remove", id, "--force"])
        .failed_with(1);
    assert!(refused.contains(moved.to_str().unwrap()), "{refused}");
    assert!(moved.join("README.md").exists());
    assert_eq!(env.record_types(id), before, "nothing is recorded");
}

#[test]
fn close_takes_several_sessions_or_the_landed_ones_or_all() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (clean, clean_path) = env.session(&repo);
    let (busy, busy_path) = env.session(&repo);
    let (third, _) = env.session(&repo);
    write(&busy_path.join("work.txt"), "unfinished\n");
    // A mistyped id closes none of them.
    let refused = env
        .nodwyn(&repo, &["worktree", "close", &third, "nosuchname"])
        .refused();
    assert!(refused.contains("nosuchname"), "{refused}");
    let open = |id: &str| !env.record_types(id).iter().any(|t| t == "session.close");
    assert!(open(&third));
    // --landed closes what would go with nothing lost, and leaves the rest open.
    let closed = env.nodwyn_json(&repo, &["worktree", "close", "--landed"]);
    let closed: Vec<&str> = closed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["session"].as_str().unwrap())
        .collect();
    assert_eq!(closed.len(), 2, "{closed:?}");
    assert!(!clean_path.exists());
    assert!(open(&busy) && !open(&clean) && !open(&third));
    // --all closes the rest, keeping the worktree with work in it.
    let all = env.nodwyn_json(&repo, &["worktree", "close", "--all"]);
    assert_eq!(all[0]["kept"].as_array().unwrap().len(), 1, "{all}");
    assert!(!open(&busy) && busy_path.join("work.txt").exists());
    let none = env.nodwyn(&repo, &["worktree", "close", "--all"]).success();
    assert!(none.stdout.contains("No open session"), "{}", none.stdout);
}

#[test]
fn a_worktree_made_again_starts_from_the_newest_of_the_base_and_its_upstream() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, _) = env.session(&repo);
    env.nodwyn(&repo, &["worktree", "remove", &id]).success();
    // origin/main moved on (another person landed), and the local main was left behind.
    let elsewhere = env.root().join("elsewhere");
    env.git(
        &env.root(),
        &["clone", "-q", remote.to_str().unwrap(), "elsewhere"],
    );
    write(&elsewhere.join("theirs.txt"), "landed elsewhere\n");
    let theirs = env.commit_all(&elsewhere, "theirs");
    env.git(&elsewhere, &["push", "-q", "origin", "main"]);
    env.git(&repo, &["fetch", "-q", "origin"]);
    assert_ne!(env.git(&repo, &["rev-parse", "main"]), theirs);
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &id]);
    assert_eq!(resumed["branch_reused"], false, "{resumed}");
    assert_eq!(
        resumed["worktree"]["base_commit"],
        theirs.as_str(),
        "{resumed}"
    );
}

#[test]
fn worktree_switch_with_the_shell_function_goes_there_and_a_mistyped_id_stays_put() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (id, wt) = env.session(&repo);
    let script = format!(
        r#"eval "$(nodwyn shell-init bash)"
        cd {repo}
        nodwyn worktree switch {id} && echo "now=$PWD"
        nodwyn worktree switch ^ && echo "checkout=$PWD"
        nodwyn worktree switch - && echo "back=$PWD"
        nodwyn worktree switch nosuchname; echo "rc=$? still=$PWD"
        nodwyn worktree close {id} >/dev/null
        nodwyn worktree switch ^ && echo "home=$PWD""#,
        repo = repo.display()
    );
    let output = std::process::Command::new("bash")
        .args(["-c", &script])
        .env_clear()
        .envs(env.vars())
        .env("PATH", {
            let mut path =
                std::ffi::OsString::from(nodwyn_tests::nodwyn_binary().parent().unwrap());
            path.push(":");
            path.push(env.vars()["PATH"].clone());
            path
        })
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let wt = wt.display().to_string();
    let repo = repo.display().to_string();
    for expected in [
        format!("now={wt}\n"),
        format!("checkout={repo}\n"),
        format!("back={wt}\n"),
        format!("rc=1 still={wt}\n"),
        // The worktree it stood in is gone: `^` finds the checkout from what is left.
        format!("home={repo}\n"),
    ] {
        assert!(
            stdout.contains(&expected),
            "{expected:?} in\n{stdout}\n{stderr}"
        );
    }
    assert!(stderr.contains("nosuchname"), "{stderr}");
    assert!(
        !stderr.contains("only printed"),
        "the function follows: {stderr}"
    );
    // Without the function it prints the folder and says how to follow it.
    let printed = env
        .nodwyn(repo.as_ref(), &["worktree", "switch", "^"])
        .success();
    assert_eq!(printed.stdout.trim(), repo);
    assert!(printed.stderr.contains("shell-init"), "{}", printed.stderr);
}

#[test]
fn a_worktree_moved_with_git_worktree_move_is_followed_where_git_says_it_is() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("work.txt"), "unfinished\n");
    let moved = env.root().join("elsewhere-wt");
    env.git(
        &repo,
        &[
            "worktree",
            "move",
            wt.to_str().unwrap(),
            moved.to_str().unwrap(),
        ],
    );
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["moved_to"], moved.to_str().unwrap(), "{listed}");
    let shown = env.nodwyn(&repo, &["worktree", "list"]).success();
    assert!(shown.stdout.contains("moved"), "{}", shown.stdout);
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &id]);
    assert_eq!(resumed["moved_to"], moved.to_str().unwrap(), "{resumed}");
    assert_eq!(resumed["restored"], false, "{resumed}");
    // The session works there now, and nothing was made again where it was.
    let path = env
        .nodwyn(&repo, &["worktree", "path", &id])
        .success()
        .stdout;
    assert_eq!(path.trim(), moved.to_str().unwrap());
    assert!(!wt.exists());
    let read = env
        .nodwyn(
            &repo,
            &["call", "--session", &id, "fs-read", r#"["work.txt"]"#],
        )
        .success()
        .stdout;
    assert!(read.contains("unfinished"), "{read}");
}
