//! Removal you can take back: `worktree remove --force` keeps what it discards in a snapshot
//! commit, and `worktree restore` makes the worktree again with it.

use std::path::Path;

use nodwyn_tests::{TestEnv, write};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_forced_removal_is_taken_back_with_its_changes_and_untracked_files() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), "build/\n");
    write(&repo.join("gone.txt"), "to be deleted\n");
    env.commit_all(&repo, "ignore builds");
    let (id, wt) = env.session(&repo);
    let head = env.git(&wt, &["rev-parse", "HEAD"]);
    write(&wt.join("README.md"), "changed, not committed\n");
    write(&wt.join("notes/new.txt"), "untracked\n");
    std::fs::remove_file(wt.join("gone.txt")).unwrap();
    write(&wt.join("build/out.bin"), "ignored\n");
    write(&wt.join(".env"), "API_TOKEN=not-a-real-one\n");
    let removed = env.nodwyn_json(&repo, &["worktree", "remove", &id, "--force"]);
    assert!(!wt.exists());
    let snapshot = &removed["snapshot"];
    assert_eq!(snapshot["ref"], format!("refs/nodwyn/snapshots/{id}"));
    assert_eq!(snapshot["left_out"], serde_json::json!([".env"]));
    assert_eq!(
        env.git(
            &repo,
            &["rev-parse", &format!("refs/nodwyn/snapshots/{id}")]
        ),
        snapshot["commit"].as_str().unwrap()
    );
    // The removal is on record with where it kept them.
    let records = env.records(&id);
    let remove = records
        .iter()
        .find(|r| r["type"] == "worktree.remove")
        .unwrap();
    assert_eq!(remove["snapshot"]["commit"], snapshot["commit"]);
    // The branch had no commit of its own, so it went; restore brings it back at the old HEAD.
    assert_eq!(removed["branch"]["deleted"], true);

    let restored = env.nodwyn(&repo, &["worktree", "restore", &id]).success();
    assert!(
        restored
            .stdout
            .contains("put back the files its removal discarded"),
        "{}",
        restored.stdout
    );
    assert!(restored.stdout.contains(".env"), "{}", restored.stdout);
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), head);
    assert_eq!(read(&wt.join("README.md")), "changed, not committed\n");
    assert_eq!(read(&wt.join("notes/new.txt")), "untracked\n");
    assert!(!wt.join("gone.txt").exists(), "the deletion is back too");
    assert!(
        !wt.join("build/out.bin").exists(),
        "ignored files are not kept"
    );
    assert!(!wt.join(".env").exists(), "credential files are not kept");
    let status = env.git(&wt, &["status", "--porcelain"]);
    assert_eq!(status, " M README.md\n D gone.txt\n?? notes/", "{status}");
    // The session is open again, and there is nothing more to restore.
    let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
    assert_eq!(listed[0]["open"], true);
    let again = env.nodwyn(&repo, &["worktree", "restore", &id]).refused();
    assert!(again.contains("no forced removal"), "{again}");
}

#[test]
fn a_branch_with_commits_keeps_them_and_gets_its_files_back() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    write(&wt.join("a.txt"), "committed\n");
    let commit = env.commit_all(&wt, "work");
    write(&wt.join("a.txt"), "committed, then changed\n");
    let removed = env.nodwyn_json(&repo, &["worktree", "remove", &id, "--force"]);
    assert_eq!(removed["branch"]["deleted"], false);
    env.nodwyn(&repo, &["worktree", "restore", &id]).success();
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), commit);
    assert_eq!(read(&wt.join("a.txt")), "committed, then changed\n");
}

#[test]
fn restore_refuses_what_it_cannot_take_back_in_a_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    let present = env.nodwyn(&repo, &["worktree", "restore", &id]).refused();
    assert!(present.contains("no forced removal"), "{present}");
    // A removal that discarded nothing kept nothing: resume is the way back.
    env.nodwyn(&repo, &["worktree", "remove", &id]).success();
    let nothing = env.nodwyn(&repo, &["worktree", "restore", &id]).refused();
    assert!(nothing.contains("worktree resume"), "{nothing}");
    env.nodwyn(&repo, &["worktree", "resume", &id]).success();
    write(&wt.join("b.txt"), "b\n");
    env.nodwyn(&repo, &["worktree", "remove", &id, "--force"])
        .success();
    // A snapshot deleted by hand: said, and nothing made.
    env.git(
        &repo,
        &["update-ref", "-d", &format!("refs/nodwyn/snapshots/{id}")],
    );
    let gone = env.nodwyn(&repo, &["worktree", "restore", &id]).refused();
    assert!(gone.contains("is gone"), "{gone}");
    assert!(!wt.exists());
    let unknown = env
        .nodwyn(&repo, &["worktree", "restore", "nosuch"])
        .refused();
    assert!(unknown.contains("nosuch"), "{unknown}");
}

#[test]
fn prune_drops_snapshots_older_than_the_persons_age_and_keeps_younger_ones() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    write(&wt.join("b.txt"), "b\n");
    env.nodwyn(&repo, &["worktree", "remove", &id, "--force"])
        .success();
    let reference = format!("refs/nodwyn/snapshots/{id}");
    // Within the default 30 days: kept.
    let pruned = env.nodwyn(&repo, &["worktree", "prune"]).success();
    assert!(!pruned.stdout.contains("dropped"), "{}", pruned.stdout);
    assert!(
        !env.git(&repo, &["rev-parse", "--verify", "-q", &reference])
            .is_empty()
    );
    // Once the person keeps them no days at all, prune says it would drop it, then drops it.
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[worktrees]\nsnapshot_days = 0\n",
    );
    let dry = env
        .nodwyn(&repo, &["worktree", "prune", "--dry-run"])
        .success();
    assert!(
        dry.stdout
            .contains(&format!("would drop the snapshot {reference}")),
        "{}",
        dry.stdout
    );
    assert!(
        !env.git(&repo, &["rev-parse", "--verify", "-q", &reference])
            .is_empty()
    );
    let pruned = env.nodwyn(&repo, &["worktree", "prune"]).success();
    assert!(
        pruned
            .stdout
            .contains(&format!("dropped the snapshot {reference}")),
        "{}",
        pruned.stdout
    );
    assert!(
        env.git_run(&repo, &["rev-parse", "--verify", "-q", &reference])
            .code
            != 0
    );
    let gone = env.nodwyn(&repo, &["worktree", "restore", &id]).refused();
    assert!(gone.contains("is gone"), "{gone}");
    // A repository cannot shorten how long the person's snapshots are kept.
    std::fs::remove_file(env.home().join(".config/nodwyn/config.toml")).unwrap();
    write(
        &repo.join(".nodwyn/config.toml"),
        "[worktrees]\nsnapshot_days = 0\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "prune"]).refused();
    assert!(refused.contains("snapshot_days"), "{refused}");
}

/// Whether process `pid` is still running (a zombie counts as ended).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .unwrap()
            .1
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn a_process_left_in_the_worktree_is_named_and_reap_ends_it_but_never_a_terminals() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    // A dev server the person started in the worktree and left running in the background.
    let mut server = std::process::Command::new("sleep")
        .arg("300")
        .current_dir(&wt)
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // And something in a terminal's foreground there (`script` gives it a terminal of its own).
    let mut terminal = std::process::Command::new("script")
        .args([
            "-qfec",
            &format!("cd '{}' && exec sleep 301", wt.display()),
            "/dev/null",
        ])
        .current_dir(env.root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let held = loop {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.starts_with(b"sleep\x00301"))
            });
        if let Some(pid) = found {
            break pid;
        }
        assert!(
            started.elapsed().as_secs() < 10,
            "the terminal's sleep did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let refused = env.nodwyn(&repo, &["worktree", "remove", &id]).refused();
    assert!(
        refused.contains(&format!("{} (sleep 300)", server.id())),
        "{refused}"
    );
    assert!(refused.contains("--reap"), "{refused}");
    assert!(
        !refused.contains("sleep 301"),
        "a terminal's process does not stop it: {refused}"
    );
    assert!(wt.exists(), "refused: nothing removed");
    assert!(running(server.id()));

    let removed = env
        .nodwyn(&repo, &["worktree", "remove", &id, "--reap"])
        .success();
    let status = server.wait().unwrap();
    assert!(!status.success(), "the server was ended");
    assert!(
        removed
            .stdout
            .contains(&format!("ended process {} (sleep 300)", server.id())),
        "{}",
        removed.stdout
    );
    assert!(
        removed
            .stdout
            .contains(&format!("left process {held} (sleep 301) alone")),
        "{}",
        removed.stdout
    );
    assert!(running(held), "never a process holding a terminal");
    assert!(!wt.exists());
    let _ = terminal.kill();
    let _ = std::process::Command::new("kill")
        .arg(held.to_string())
        .status();
    let _ = terminal.wait();
}

/// Waits until `folder` is empty or gone (the background emptying of the trash), up to 20 s.
fn emptied(folder: &Path) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(20) {
        if std::fs::read_dir(folder).map_or(true, |mut entries| entries.next().is_none()) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn a_removed_worktree_goes_through_the_trash_and_a_killed_removal_is_emptied_by_the_next() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".gitignore"), "target/\n");
    env.commit_all(&repo, "ignore target");
    let trash = repo.join(".nodwyn/worktrees/.trash");
    let (first, first_wt) = env.session(&repo);
    for n in 0..200 {
        write(&first_wt.join(format!("target/debug/{n}.o")), "object\n");
    }
    // Killed once its folder is in the trash, before the trash is emptied.
    env.nodwyn_killed_at(
        &repo,
        &["worktree", "remove", &first, "--force"],
        "trashed-unemptied",
    );
    assert!(!first_wt.exists());
    let left: Vec<_> = std::fs::read_dir(&trash).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "the folder waits in the trash");
    assert!(left[0].path().join("target/debug/0.o").exists());
    assert!(
        !env.git(&repo, &["worktree", "list"]).contains(&first),
        "git's record of it is cleared"
    );
    // The next removal (of the same session, which the killed one never recorded) finishes it.
    let (_second, second_wt) = env.session(&repo);
    env.nodwyn(&repo, &["worktree", "remove", &first, "--force"])
        .success();
    assert!(env.has_record(&first, "worktree.remove"));
    assert!(emptied(&trash), "the trash is emptied in the background");
    assert!(second_wt.exists(), "nothing else is touched");
}

#[test]
fn a_trash_that_is_a_link_is_not_used_and_what_it_points_at_is_untouched() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    // Someone made the trash a link to a folder of the person's.
    let victim = env.root().join("precious");
    write(&victim.join("thesis.tex"), "years of work\n");
    std::os::unix::fs::symlink(&victim, repo.join(".nodwyn/worktrees/.trash")).unwrap();
    env.nodwyn(&repo, &["worktree", "remove", &id]).success();
    assert!(!wt.exists(), "git removed the worktree itself");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        std::fs::read_to_string(victim.join("thesis.tex")).unwrap(),
        "years of work\n"
    );
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
}
