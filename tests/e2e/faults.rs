//! Nothing lost under faults: nodwyn killed at the dangerous moments around a landing (during the
//! checkout of a new worktree, between a write and its rename, during a removal), and then what
//! the person or the agent made is neither lost nor published by mistake.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

/// A repository with a remote whose files git checks out in order: 20 before `m.txt`, 20 after,
/// and `m.txt` passes through the person's filter `slow`, which a test sets to stop the checkout
/// there. Returns the repository, its remote and the paths it tracks.
fn ordered_repository(env: &TestEnv) -> (PathBuf, PathBuf, Vec<String>) {
    let (repo, remote) = env.repo_with_remote("shop");
    let mut tracked = vec![
        ".gitattributes".to_owned(),
        "README.md".to_owned(),
        "m.txt".to_owned(),
    ];
    for i in 0..20 {
        for side in ["a", "z"] {
            let name = format!("{side}-{i:02}.txt");
            write(&repo.join(&name), &format!("{name}\n"));
            tracked.push(name);
        }
    }
    write(&repo.join("m.txt"), "the middle\n");
    write(&repo.join(".gitattributes"), "m.txt filter=slow\n");
    env.commit_all(&repo, "files");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    tracked.sort();
    (repo, remote, tracked)
}

/// Every path under `dir` but its `.git`, relative to it.
fn files_in(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = walkdir(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .filter(|p| p != ".git")
        .collect();
    found.sort();
    found
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with(".git") {
            found.extend(walkdir(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_worktree_whose_checkout_was_killed_is_finished_by_resume_and_never_lands_a_mass_deletion() {
    let env = TestEnv::new();
    let (repo, remote, tracked) = ordered_repository(&env);
    let reached = env.root().join("checkout-reached-m");
    env.git(
        &repo,
        &[
            "config",
            "filter.slow.smudge",
            &format!("sh -c 'touch {}; sleep 60; cat'", reached.display()),
        ],
    );
    // Killed with its git, as a closed terminal or an out-of-memory kill of the group does.
    let run = env.nodwyn_stopped_at(&repo, &["worktree", "new", "--json"], &reached, "KILL");
    assert_ne!(run.code, 0);
    env.git(&repo, &["config", "filter.slow.smudge", "cat"]);
    let logs = env.logs();
    assert_eq!(logs.len(), 1, "one session began: {logs:?}");
    let (name, records) = &logs[0];
    let id = name
        .trim_end_matches(".jsonl")
        .rsplit('-')
        .next()
        .unwrap()
        .to_owned();
    let path = PathBuf::from(records[0]["worktree"]["path"].as_str().unwrap());
    let on_disk = files_in(&path);
    assert!(
        on_disk.contains(&"a-00.txt".to_owned()) && !on_disk.contains(&"z-19.txt".to_owned()),
        "the checkout stopped midway: {on_disk:?}"
    );
    let remote_main = env.git(&remote, &["rev-parse", "main"]);

    // Nothing may use it: not a landing (which would delete every file not yet written, on
    // origin/main), not a call, not a diff.
    let refused = env.nodwyn(&repo, &["--json", "land", &id, "-m", "the work"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert_eq!(
        refused.json()["error"]["kind"],
        "worktree_unfinished",
        "{}",
        refused.stdout
    );
    let refused = env.nodwyn(
        &repo,
        &["call", "--session", &id, "fs-read", r#"["a-00.txt"]"#],
    );
    assert!(
        refused.stderr.contains("never finished") && refused.stderr.contains("worktree resume"),
        "{}",
        refused.stderr
    );
    let refused = env.nodwyn(&repo, &["worktree", "diff", &id]).refused();
    assert!(refused.contains("never finished"), "{refused}");
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        remote_main,
        "nothing pushed"
    );

    // Meanwhile the person put a file of their own there, and changed one of the branch's.
    write(&path.join("notes-person.txt"), "mine\n");
    write(&path.join("a-00.txt"), "changed by the person\n");
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &id]);
    let finished = &resumed["finished"];
    assert_eq!(finished["remade"], false, "{resumed}");
    assert!(
        finished["written"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "z-19.txt"),
        "{resumed}"
    );
    assert_eq!(
        finished["rewritten"],
        serde_json::json!(["a-00.txt"]),
        "{resumed}"
    );
    let mut expected = tracked.clone();
    expected.push("notes-person.txt".to_owned());
    expected.sort();
    assert_eq!(
        files_in(&path),
        expected,
        "every tracked file, and the person's"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("z-19.txt")).unwrap(),
        "z-19.txt\n"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("m.txt")).unwrap(),
        "the middle\n"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("notes-person.txt")).unwrap(),
        "mine\n"
    );
    // What the changed file held is kept.
    let versions = env.nodwyn_json(&repo, &["versions", "list", &id]);
    assert!(versions.to_string().contains("a-00.txt"), "{versions}");
    assert!(env.has_record(&id, "worktree.create"));

    // Now it lands what is really new, and deletes nothing.
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "the notes"]);
    assert_eq!(
        landed["new_files"],
        serde_json::json!(["notes-person.txt"]),
        "{landed}"
    );
    let on_remote = env.git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    let on_remote: Vec<&str> = on_remote.lines().collect();
    assert_eq!(on_remote.len(), expected.len(), "{on_remote:?}");
}

#[test]
fn a_worktree_killed_before_git_wrote_a_file_is_made_again_by_resume() {
    let env = TestEnv::new();
    let (repo, _remote, tracked) = ordered_repository(&env);
    let reached = env.root().join("checkout-reached-m");
    env.git(&repo, &["config", "filter.slow.smudge", "cat"]);
    let (id, path) = env.session(&repo);
    // What a making killed before `git worktree add` began leaves: the session's first record,
    // and no worktree.
    let log = env.log_path(&id);
    let first = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    env.nodwyn(&repo, &["worktree", "remove", &id, "--force"])
        .success();
    std::fs::write(&log, format!("{first}\n")).unwrap();
    assert!(!path.exists() && !reached.exists());
    let refused = env.nodwyn(&repo, &["land", &id, "-m", "m"]).refused();
    assert!(refused.contains("never finished"), "{refused}");
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &id]);
    assert_eq!(resumed["finished"]["remade"], true, "{resumed}");
    assert_eq!(files_in(&path), tracked);
    env.nodwyn(
        &repo,
        &["call", "--session", &id, "fs-read", r#"["m.txt"]"#],
    )
    .success();
}

#[test]
fn a_write_killed_before_its_rename_leaves_nothing_that_lands_and_its_leftover_goes() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let call = |args: &[&str]| {
        let mut all = vec!["call", "--session", id.as_str()];
        all.extend_from_slice(args);
        all.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run =
        |args: Vec<String>| env.nodwyn(&repo, &args.iter().map(String::as_str).collect::<Vec<_>>());
    run(call(&["fs-write", r#"["notes.txt", "first\n"]"#])).success();
    // Killed with the new content whole under its temporary name, not yet renamed over the file.
    let args = call(&["fs-write", r#"["notes.txt", "second\n"]"#]);
    let killed = env.nodwyn_killed_at(
        &repo,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        "write-before-rename",
    );
    assert_ne!(killed.code, 0);
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(&wt)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".nodwyn-"))
            .collect()
    };
    assert_eq!(leftovers().len(), 1, "the kill left the temporary file");
    assert_eq!(
        std::fs::read_to_string(wt.join("notes.txt")).unwrap(),
        "first\n"
    );
    // The person's landing, which lands every new file, does not land it.
    let landed = env.nodwyn_json(&repo, &["land", &id, "-m", "notes"]);
    assert_eq!(
        landed["new_files"],
        serde_json::json!(["notes.txt"]),
        "{landed}"
    );
    let tree = env.git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(!tree.contains(".nodwyn-"), "{tree}");
    // The session's next call removes it.
    run(call(&["fs-read", r#"["notes.txt"]"#])).success();
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}

#[test]
fn a_write_of_a_new_file_names_nothing_but_the_file() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    // A new file is linked under its own name once whole: there is no temporary name to stop at,
    // so the fault point is never reached and the write ends.
    let mut command = env.nodwyn_command(
        &repo,
        &[
            "call",
            "--session",
            &id,
            "fs-write",
            r#"["fresh.txt", "whole\n"]"#,
        ],
    );
    command.env("NODWYN_FAULT_POINT", "write-before-rename");
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("fresh.txt")).unwrap(),
        "whole\n"
    );
    let names: Vec<String> = std::fs::read_dir(&wt)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".nodwyn-"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn a_worktree_whose_git_file_is_gone_is_never_judged_against_the_persons_checkout() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("agent-work.txt"), "half done\n");
    // The person's own files in their checkout, which git does not track.
    write(&repo.join("notes-person.txt"), "mine\n");
    write(&repo.join(".env"), "TOKEN=x\n");
    // What a removal killed midway can leave: the worktree without its .git.
    std::fs::remove_file(wt.join(".git")).unwrap();
    let persons = |text: &str| text.contains("notes-person.txt") || text.contains(".env");
    let refused = env.nodwyn(&repo, &["worktree", "remove", &id]).refused();
    assert!(refused.contains("no longer a worktree"), "{refused}");
    assert!(refused.contains("--force"), "{refused}");
    assert!(!persons(&refused), "{refused}");
    for args in [
        vec!["worktree", "close", id.as_str()],
        vec!["worktree", "prune"],
        vec!["worktree", "list"],
    ] {
        let run = env.nodwyn(&repo, &args);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(!persons(&said), "{args:?}: {said}");
    }
    assert!(
        wt.join("agent-work.txt").exists(),
        "nothing was removed without --force"
    );
    let removed = env.nodwyn_json(&repo, &["worktree", "remove", &id, "--force"]);
    let discarded = removed["discarded"].to_string();
    assert!(discarded.contains("agent-work.txt"), "{removed}");
    assert!(!persons(&discarded), "{removed}");
    assert!(!wt.exists());
    assert!(repo.join("notes-person.txt").exists() && repo.join(".env").exists());
    let listed = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(!listed.contains(wt.to_str().unwrap()), "{listed}");
}

/// Runs the shell `script` in `dir`, in a user and mount namespace of its own whose data
/// directory is a small file system of its own holding a copy of what it held, so the script can
/// fill it (`fill`) and empty it again (`unfill`); `$NODWYN` is nodwyn. Returns what it printed,
/// both streams together.
fn with_a_small_data_disk(env: &TestEnv, dir: &Path, script: &str) -> String {
    with_a_small_disk(env, dir, &env.data(), script)
}

/// As [`with_a_small_data_disk`], with the small file system at `disk` (a folder that may hold a
/// repository); `fill KB` fills it but for KB kibibytes.
fn with_a_small_disk(env: &TestEnv, dir: &Path, disk: &Path, script: &str) -> String {
    let prelude = r#"
        set -u
        saved=$(mktemp -d)
        mkdir -p "$DISK"
        cp -a "$DISK/." "$saved/"
        mount -t tmpfs -o size=2m tmpfs "$DISK" || { echo "no small disk"; exit 97; }
        cp -a "$saved/." "$DISK/"
        fill() {
            left=${1:-0}
            free=$(df -k --output=avail "$DISK" | tail -1)
            if [ "$free" -gt "$left" ]; then
                dd if=/dev/zero of="$DISK/.filler" bs=1k count=$((free - left)) 2>/dev/null
            fi
            [ "$left" -gt 0 ] || dd if=/dev/zero of="$DISK/.filler2" bs=4k 2>/dev/null || true
        }
        unfill() { rm -f "$DISK/.filler" "$DISK/.filler2"; }
    "#;
    let output = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(format!("{prelude}\n{script}"))
        .current_dir(dir)
        .env_clear()
        .envs(env.vars())
        .env("NODWYN", nodwyn_tests::nodwyn_binary())
        .env("DATA", env.data())
        .env("DISK", disk)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_ne!(output.status.code(), Some(97), "{said}");
    said
}

#[test]
fn a_full_disk_at_a_sessions_first_record_leaves_no_damaged_log_and_says_the_disk_is_full() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let said = with_a_small_data_disk(
        &env,
        &repo,
        r#"
        "$NODWYN" session list >/dev/null
        fill
        "$NODWYN" worktree new; echo "made=$?"
        unfill
        "$NODWYN" session list; echo "listed=$?"
        find "$DATA/sessions" -name '*.jsonl' | sed 's/^/log: /'
        "#,
    );
    assert!(said.contains("made=1"), "{said}");
    assert!(said.contains("the disk is full"), "{said}");
    assert!(said.contains("listed=0"), "{said}");
    assert!(
        !said.contains("damaged") && !said.contains("log: "),
        "{said}"
    );
}

#[test]
fn a_landing_whose_record_cannot_be_written_after_its_push_says_it_published_the_work() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("notes.txt"), "the work\n");
    let marker = env.root().join("pushed");
    let said = with_a_small_data_disk(
        &env,
        &repo,
        &format!(
            r#"
            ( NODWYN_FAULT_POINT=land-pushed NODWYN_FAULT_MARKER={marker} "$NODWYN" land {id} -m "the work"; echo "landed=$?" ) &
            while [ ! -e {marker} ]; do sleep 0.05; done
            # The log's last page is padded full with a blank line (which readers pass), so the
            # next record needs space the full disk does not have.
            size=$(stat -c %s {log})
            pad=$(( (4096 - size % 4096) % 4096 ))
            if [ "$pad" -gt 0 ]; then head -c $((pad - 1)) /dev/zero | tr '\0' ' ' >> {log}; echo >> {log}; fi
            fill
            rm {marker}
            wait
            "#,
            marker = marker.display(),
            log = env.log_path(&id).display()
        ),
    );
    assert_eq!(env.git(&remote, &["show", "main:notes.txt"]), "the work");
    assert!(
        said.contains("landed: pushed") && said.contains("to refs/heads/main of origin"),
        "{said}"
    );
    assert!(said.contains("the work is published"), "{said}");
    assert!(!said.contains("refused"), "{said}");
    assert!(said.contains("landed=1"), "{said}");
}

#[test]
fn a_torn_last_record_is_healed_once_and_warned_of_no_more() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let (id, _wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let log = env.log_path(&id);
    // What a full disk leaves: the start of a record, no line break.
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(r#"{"at":"2026-12-01T00:00:00.000Z","type":"primitive.res"#);
    std::fs::write(&log, text).unwrap();
    let read = || {
        env.nodwyn(
            &repo,
            &["call", "--session", &id, "fs-read", r#"["README.md"]"#],
        )
        .success()
        .stderr
    };
    for _ in 0..3 {
        let stderr = read();
        assert!(!stderr.contains("unreadable"), "{stderr}");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let torn = text
        .lines()
        .filter(|l| l.contains(r#""type":"log.torn""#))
        .count();
    assert_eq!(torn, 1, "{text}");
}

#[test]
fn a_fast_forward_of_the_persons_checkout_cut_short_by_a_full_disk_is_put_back() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    // The work: files enough that the checkout's disk fills while git writes them.
    let block = "x".repeat(16 * 1024);
    for i in 0..24 {
        write(&wt.join(format!("data/part-{i:02}.txt")), &block);
    }
    env.commit_all(&wt, "the data");
    let said = with_a_small_disk(
        &env,
        &repo,
        &repo,
        &format!(
            r#"
            fill 96
            "$NODWYN" land {id}; echo "landed=$?"
            unfill
            echo "--- status"; git status --porcelain; echo "--- end"
            "#
        ),
    );
    assert_eq!(
        env.git(&remote, &["show", "main:data/part-23.txt"]).len(),
        block.len(),
        "the landing reached origin: {said}"
    );
    let status = said
        .split("--- status")
        .nth(1)
        .and_then(|rest| rest.split("--- end").next())
        .unwrap_or_default()
        .trim()
        .to_owned();
    assert!(
        status.is_empty(),
        "the checkout is as it was: {status:?}\n{said}"
    );
    assert!(
        said.contains("stopped midway") && said.contains("put back"),
        "{said}"
    );
}

#[test]
fn a_worktree_that_git_could_not_make_on_a_full_disk_says_the_disk_is_full() {
    let env = TestEnv::new();
    let repo = env.repo("shop");
    let block = "x".repeat(16 * 1024);
    for i in 0..30 {
        write(&repo.join(format!("part-{i:02}.txt")), &block);
    }
    env.commit_all(&repo, "parts");
    let said = with_a_small_disk(
        &env,
        &repo,
        &repo,
        r#"
        fill 64
        "$NODWYN" --json worktree new; echo "made=$?"
        "#,
    );
    assert!(said.contains("made=1"), "{said}");
    assert!(said.contains(r#""kind": "disk_full""#), "{said}");
    assert!(said.contains("is full"), "{said}");
}

#[test]
fn a_removal_killed_before_it_was_recorded_loses_no_commit_and_resume_makes_the_worktree_again() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("work.txt"), "committed work\n");
    env.commit_all(&wt, "the work");
    let head = env.git(&wt, &["rev-parse", "HEAD"]);
    write(&wt.join("scratch.txt"), "discarded by --force\n");
    // Killed once git removed the folder, before the branch was settled or anything recorded.
    let killed = env.nodwyn_killed_at(
        &repo,
        &["worktree", "remove", &id, "--force"],
        "removed-unrecorded",
    );
    assert_ne!(killed.code, 0);
    assert!(!wt.exists());
    assert!(!env.has_record(&id, "worktree.remove"));
    let branch = format!("nodwyn/{id}");
    assert_eq!(
        env.git(&repo, &["rev-parse", &branch]),
        head,
        "the commit is kept"
    );
    let resumed = env.nodwyn_json(&repo, &["worktree", "resume", &id]);
    assert_eq!(resumed["restored"], true, "{resumed}");
    assert_eq!(resumed["branch_reused"], true, "{resumed}");
    assert_eq!(
        std::fs::read_to_string(wt.join("work.txt")).unwrap(),
        "committed work\n"
    );
}
