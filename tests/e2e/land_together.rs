//! Landing together: sessions of one repository that land at the same moment take turns on the
//! repository's landing lock instead of refusing each other, and `nodwyn land --queue` lands
//! several in order, stopping at the first that needs a person.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};

/// `count` worktree sessions of `repo`, each with a new file of its own: (short id, folder).
fn sessions_with_a_file_each(env: &TestEnv, repo: &Path, count: usize) -> Vec<(String, PathBuf)> {
    (0..count)
        .map(|n| {
            let (id, path) = env.session(repo);
            write(
                &path.join(format!("file-{n:02}.txt")),
                &format!("work {n}\n"),
            );
            (id, path)
        })
        .collect()
}

/// The remote's main: its commits newest first, and whether any of them is a merge.
fn remote_chain(env: &TestEnv, remote: &Path) -> (Vec<String>, bool) {
    let commits = env
        .git(remote, &["rev-list", "main"])
        .lines()
        .map(str::to_owned)
        .collect();
    let merges = !env
        .git(remote, &["rev-list", "--merges", "main"])
        .is_empty();
    (commits, merges)
}

#[test]
fn sixteen_sessions_landing_at_once_all_land_as_one_fast_forward_chain() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let sessions = sessions_with_a_file_each(&env, &repo, 16);
    let started: Vec<_> = sessions
        .iter()
        .map(|(id, _)| {
            let mut command =
                env.nodwyn_command(&repo, &["land", id, "-m", &format!("work of {id}")]);
            command
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            command.spawn().expect("nodwyn starts")
        })
        .collect();
    for (child, (id, _)) in started.into_iter().zip(&sessions) {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "session {id} did not land: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (commits, merges) = remote_chain(&env, &remote);
    assert_eq!(commits.len(), 17, "the first commit and one per session");
    assert!(!merges, "a clean fast-forward chain, no merge commit");
    let files = env.git(&remote, &["ls-tree", "--name-only", "main"]);
    for n in 0..16 {
        assert!(files.contains(&format!("file-{n:02}.txt")), "{files}");
    }
    for (id, _) in &sessions {
        assert!(
            env.records(id)
                .iter()
                .any(|r| r["type"] == "land.end" && r["outcome"] == "landed"),
            "{id} recorded its landing"
        );
    }
}

#[test]
fn a_landing_waits_for_one_in_progress_and_says_so() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let sessions = sessions_with_a_file_each(&env, &repo, 2);
    // Another landing holds the lock (as a landing in progress does) until its holder ends.
    let lock = repo.join(".git").join("nodwyn-land.lock");
    let mut holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["sleep", "2"])
        .spawn()
        .expect("flock runs");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let waited = env
        .nodwyn(&repo, &["land", &sessions[0].0, "-m", "first"])
        .success();
    holder.wait().unwrap();
    assert!(
        waited.stderr.contains("waiting for another landing"),
        "{}",
        waited.stderr
    );
    let (commits, _) = remote_chain(&env, &remote);
    assert_eq!(commits.len(), 2);
}

#[test]
fn queue_lands_in_order_and_stops_at_a_conflict_saying_which_landed() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let (first, first_path) = env.session(&repo);
    let (second, second_path) = env.session(&repo);
    let (third, third_path) = env.session(&repo);
    let (fourth, _) = env.session(&repo);
    write(&first_path.join("README.md"), "first's words\n");
    write(&second_path.join("second.txt"), "second\n");
    // The third changes the same line the first lands: a real conflict.
    write(&third_path.join("README.md"), "third's words\n");
    env.commit_all(&third_path, "third's change");
    let run = env.nodwyn(
        &repo,
        &[
            "land",
            "--queue",
            &first,
            &second,
            &third,
            &fourth,
            "-m",
            "queued work",
        ],
    );
    // What landed is printed as it lands; the stop is one sentence on stderr.
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let (printed, said) = (run.stdout, run.stderr);
    assert_eq!(said.trim_end().lines().count(), 1, "{said}");
    assert!(printed.contains(&format!("{first}: ")), "{printed}");
    assert!(printed.contains(&format!("{second}: ")), "{printed}");
    assert!(
        said.contains(&format!("the queue stopped at {third}")),
        "{said}"
    );
    assert!(
        said.contains(&format!("landed: {first}, {second};")),
        "{said}"
    );
    assert!(said.contains(&format!("not started: {fourth})")), "{said}");
    assert!(said.contains("conflict in README.md"), "{said}");
    let (commits, merges) = remote_chain(&env, &remote);
    assert_eq!(
        commits.len(),
        3,
        "the first and second landed, nothing after"
    );
    assert!(!merges);
    assert!(
        !env.records(&fourth)
            .iter()
            .any(|r| r["type"] == "land.begin"),
        "the queue stopped before the fourth began"
    );
}

#[test]
fn queue_refuses_bad_input_before_landing_anything() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let before = env.git(&remote, &["rev-parse", "main"]);
    let (first, first_path) = env.session(&repo);
    write(&first_path.join("a.txt"), "a\n");
    let refused = env
        .nodwyn(&repo, &["land", "--queue", &first, "nosuchsession"])
        .refused();
    assert!(refused.contains("nosuchsession"), "{refused}");
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        before,
        "nothing landed"
    );
    let refused = env
        .nodwyn(&repo, &["land", "--queue", &first, &first])
        .refused();
    assert!(refused.contains("twice"), "{refused}");
    let usage = env.nodwyn(&repo, &["land", "--queue", "--abort", &first]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
}
