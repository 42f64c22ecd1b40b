//! `nodwyn land`: commit, rebase onto the newest base, scan, push by fast-forward, move the local
//! base safely. Real repositories, a real bare remote, real ssh signing keys.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, make_executable, write};
use serde_json::Value;

/// A credential shape L1 reports (a GitHub token), built here so this file holds none.
pub(crate) fn token() -> String {
    format!("ghp_{}", "Zq8Lr2Vx9Kp4Tn7Wm1Yb6Hc3Jd5Fg0Se2Ua8")
}

struct Session {
    id: String,
    path: PathBuf,
    branch: String,
}

fn session(env: &TestEnv, repo: &Path) -> Session {
    let made = env.new_worktree(repo);
    Session {
        id: made["id"].as_str().unwrap().to_owned(),
        path: PathBuf::from(made["path"].as_str().unwrap()),
        branch: made["branch"].as_str().unwrap().to_owned(),
    }
}

fn land(env: &TestEnv, repo: &Path, id: &str, extra: &[&str]) -> Value {
    let mut args = vec!["land", id, "-m", "the work"];
    args.extend_from_slice(extra);
    env.nodwyn_json(repo, &args)
}

fn remote_main(env: &TestEnv, remote: &Path) -> String {
    env.git(remote, &["rev-parse", "main"])
}

/// Lands `s` expecting a refusal that mentions `expected`; checks that the worktree still has
/// `commits` commits (nothing was committed) and that the remote's `main` is still `before`.
fn refused_untouched(
    env: &TestEnv,
    repo: &Path,
    s: &Session,
    expected: &str,
    commits: usize,
    remote: (&Path, &str),
) -> String {
    let refused = env.nodwyn(repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains(expected), "{refused}");
    assert_eq!(
        env.git(&s.path, &["rev-list", "--count", "HEAD"]),
        commits.to_string(),
        "nothing committed"
    );
    assert_eq!(remote_main(env, remote.0), remote.1);
    refused
}

/// Someone else pushes a commit to `remote`'s main from a clone of their own; returns it.
pub(crate) fn push_from_elsewhere(env: &TestEnv, remote: &Path) -> String {
    push_file_from_elsewhere(env, remote, "theirs.txt", "theirs\n", false)
}

/// Someone else pushes a commit writing `content` to `file` (added with `-f` when `force`, so
/// an ignored path can be committed) to `remote`'s main from a clone of their own; returns it.
pub(crate) fn push_file_from_elsewhere(
    env: &TestEnv,
    remote: &Path,
    file: &str,
    content: &str,
    force: bool,
) -> String {
    let other = env.root().join("other");
    let (remote, other_path) = (remote.to_str().unwrap(), other.to_str().unwrap());
    env.git(&env.root(), &["clone", "-q", remote, other_path]);
    write(&other.join(file), content);
    if force {
        env.git(&other, &["add", "-f", file]);
    }
    let theirs = env.commit_all(&other, "theirs");
    env.git(&other, &["push", "-q", "origin", "main"]);
    theirs
}

fn files_at(env: &TestEnv, dir: &Path, commit: &str) -> Vec<String> {
    env.git(dir, &["ls-tree", "-r", "--name-only", commit])
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn lands_changes_pushes_main_and_moves_the_local_main_by_merge() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    write(&s.path.join("src.txt"), "work\n");
    let landed = land(&env, &repo, &s.id, &[]);
    let pushed = remote_main(&env, &remote);
    assert_eq!(landed["landed"], pushed.as_str());
    assert_eq!(landed["commits"], 1);
    assert_eq!(landed["pushed"]["ref"], "refs/heads/main");
    assert_eq!(landed["local_base"]["how"], "merged");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), pushed);
    assert_eq!(
        std::fs::read_to_string(repo.join("src.txt")).unwrap(),
        "work\n"
    );
    let records = env.records(&s.id);
    let push = records.iter().find(|r| r["type"] == "git.push").unwrap();
    assert_eq!(push["remote"], "origin");
    assert_eq!(push["new"], pushed.as_str());
    assert!(push["old"].is_string());
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "git.land" && r["by"] == "person")
    );
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/nodwyn"]),
        "",
        "the fetch's scratch ref is gone"
    );
    // Landed work is landed: closing removes the worktree and its branch.
    let closed = env.nodwyn_json(&repo, &["worktree", "close", &s.id]);
    assert_eq!(closed["removed"], true);
}

#[test]
fn a_staged_credential_file_is_left_out_and_not_pushed() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    write(&s.path.join(".env"), "SECRET=1\n");
    write(&s.path.join("id_rsa"), "not really\n");
    write(&s.path.join("app.txt"), "app\n");
    env.git(&s.path, &["add", "-A"]);
    let landed = land(&env, &repo, &s.id, &[]);
    let mut left_out: Vec<&str> = landed["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    left_out.sort();
    assert_eq!(left_out, [".env", "id_rsa"]);
    let files = files_at(&env, &remote, "main");
    assert!(files.contains(&"app.txt".to_owned()));
    assert!(
        !files.iter().any(|f| f == ".env" || f == "id_rsa"),
        "{files:?}"
    );
    assert!(
        s.path.join(".env").exists(),
        "the file itself stays on disk"
    );
}

#[test]
fn a_staged_rename_lands() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    env.git(&s.path, &["mv", "README.md", "READ-ME.md"]);
    land(&env, &repo, &s.id, &[]);
    assert_eq!(files_at(&env, &remote, "main"), ["READ-ME.md"]);
}

#[test]
fn an_added_credential_refuses_the_landing_before_the_push() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let before = remote_main(&env, &remote);
    let s = session(&env, &repo);
    write(
        &s.path.join("config.txt"),
        &format!("ok\ntoken = \"{}\"\n", token()),
    );
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "leak"]).refused();
    assert!(refused.contains("config.txt:2"), "{refused}");
    assert!(refused.contains("looks like a credential"), "{refused}");
    assert!(
        !refused.contains(&token()),
        "the secret is never repeated: {refused}"
    );
    assert_eq!(remote_main(&env, &remote), before);
    assert!(!env.records(&s.id).iter().any(|r| r["type"] == "git.push"));
}

#[test]
fn the_rebase_takes_only_the_sessions_commits_onto_the_fetched_base() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    write(&s.path.join("mine.txt"), "mine\n");
    env.commit_all(&s.path, "mine");
    // Someone else pushed meanwhile, from another clone.
    let theirs = push_from_elsewhere(&env, &remote);
    // And a local commit on main that was never published must not be published by the landing.
    write(&repo.join("local.txt"), "local\n");
    env.commit_all(&repo, "local only");
    let landed = land(&env, &repo, &s.id, &[]);
    let pushed = remote_main(&env, &remote);
    assert_eq!(env.git(&remote, &["rev-parse", "main~1"]), theirs);
    assert_eq!(landed["onto"], theirs.as_str());
    let files = files_at(&env, &remote, "main");
    assert!(files.contains(&"mine.txt".to_owned()) && files.contains(&"theirs.txt".to_owned()));
    assert!(!files.contains(&"local.txt".to_owned()), "{files:?}");
    assert_eq!(landed["local_base"]["how"], "left");
    assert_ne!(env.git(&repo, &["rev-parse", "main"]), pushed);
}

#[test]
fn a_conflict_stops_markers_are_refused_and_landing_again_continues() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    write(&s.path.join("README.md"), "session\n");
    env.commit_all(&s.path, "session edit");
    write(&repo.join("README.md"), "main\n");
    env.commit_all(&repo, "main edit");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let before = remote_main(&env, &remote);

    let run = env.nodwyn(&repo, &["land", &s.id, "-m", "m", "--json"]);
    // A program reads the code and the conflict's files, not the sentence.
    let document: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["error"]["kind"], "merge_conflict", "{document}");
    assert_eq!(document["error"]["files"], serde_json::json!(["README.md"]));
    let stopped = run.failed_with(1);
    assert!(stopped.contains("conflict in README.md"), "{stopped}");
    assert!(s.path.join(".git").exists());
    let in_progress = env.git(&s.path, &["rev-parse", "--git-path", "rebase-merge"]);
    assert!(s.path.join(&in_progress).exists() || Path::new(&in_progress).exists());

    let run = env.nodwyn(&repo, &["land", &s.id, "-m", "m", "--json"]);
    let document: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["error"]["kind"], "conflict_markers", "{document}");
    assert_eq!(document["error"]["files"], serde_json::json!(["README.md"]));
    let markers = run.failed_with(1);
    assert!(
        markers.contains("conflict markers remain in README.md:1"),
        "{markers}"
    );
    assert_eq!(remote_main(&env, &remote), before);

    write(&s.path.join("README.md"), "main and session\n");
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["continued"], true);
    assert_eq!(
        env.git(&remote, &["show", "main:README.md"]),
        "main and session"
    );
}

#[test]
fn squash_lands_one_commit_and_no_ff_a_merge_commit() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let base = remote_main(&env, &remote);
    let s = session(&env, &repo);
    for n in 1..=3 {
        write(&s.path.join(format!("{n}.txt")), "x\n");
        env.commit_all(&s.path, &format!("step {n}"));
    }
    let landed = land(&env, &repo, &s.id, &["--strategy", "squash"]);
    assert_eq!(landed["commits"], 3);
    assert_eq!(env.git(&remote, &["rev-parse", "main~1"]), base);
    assert_eq!(
        env.git(&remote, &["log", "-1", "--format=%s", "main"]),
        "the work"
    );
    assert_eq!(env.git(&s.path, &["status", "--porcelain"]), "");

    let s = session(&env, &repo);
    let base = remote_main(&env, &remote);
    write(&s.path.join("4.txt"), "x\n");
    let landed = land(&env, &repo, &s.id, &["--strategy", "no-ff"]);
    let parents = env.git(&remote, &["log", "-1", "--format=%P", "main"]);
    assert_eq!(parents.split(' ').count(), 2, "{parents}");
    assert!(parents.starts_with(&base));
    assert_eq!(landed["landed"], remote_main(&env, &remote).as_str());
}

#[test]
fn the_local_main_moves_by_compare_and_swap_when_no_checkout_has_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let s = session(&env, &repo);
    env.git(&repo, &["switch", "-q", "-c", "elsewhere"]);
    write(&s.path.join("a.txt"), "a\n");
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["pushed"], Value::Null, "no remote: nothing pushed");
    assert_eq!(landed["local_base"]["how"], "moved");
    assert_eq!(
        env.git(&repo, &["rev-parse", "main"]),
        landed["landed"].as_str().unwrap()
    );
    assert_eq!(env.git(&repo, &["branch", "--show-current"]), "elsewhere");
}

#[test]
fn a_checkout_with_changes_keeps_its_main_where_it_is() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let before = env.git(&repo, &["rev-parse", "main"]);
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    write(&repo.join("README.md"), "a person's edit\n");
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["local_base"]["how"], "left");
    assert!(
        landed["local_base"]["why"]
            .as_str()
            .unwrap()
            .contains("uncommitted changes")
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), before);
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "a person's edit\n"
    );
    assert_eq!(landed["landed"], remote_main(&env, &remote).as_str());

    // Without a remote, main not moving means nothing landed: that is an error.
    let repo = env.repo("local");
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    write(&repo.join("README.md"), "edit\n");
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains("nothing landed"), "{refused}");
    assert!(
        refused.contains("the changes were committed on"),
        "{refused}"
    );
}

#[test]
fn a_hooks_path_inside_the_worktree_is_refused_before_anything_runs() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let before = remote_main(&env, &remote);
    let s = session(&env, &repo);
    write(
        &s.path.join("hooks/pre-commit"),
        "#!/bin/sh\ntouch /tmp/pwned\n",
    );
    env.git(&repo, &["config", "core.hooksPath", "hooks"]);
    // Refused even once the person accepted the configuration: the worktree is the agent's.
    env.accept_config(&repo, &s.id);
    refused_untouched(&env, &repo, &s, "core.hooksPath", 1, (&remote, &before));
}

#[test]
fn refusals_name_what_to_do() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let s = session(&env, &repo);
    let nothing = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(nothing.contains("nothing to land"), "{nothing}");
    let empty = env.nodwyn(&repo, &["land", &s.id, "-m", " "]).refused();
    assert!(empty.contains("commit message"), "{empty}");
    let usage = env.nodwyn(&repo, &["land", &s.id, "-m", "m", "--strategy", "rebase"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    let unknown = env
        .nodwyn(&repo, &["land", "0badc0de", "-m", "m"])
        .refused();
    assert!(unknown.contains("no session"), "{unknown}");
    env.git(&s.path, &["switch", "-q", "--detach"]);
    write(&s.path.join("a.txt"), "a\n");
    let detached = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(detached.contains(&s.branch), "{detached}");
    env.git(&s.path, &["switch", "-q", &s.branch]);

    // No remote and no local main: nowhere to land.
    env.git(&repo, &["switch", "-q", "-c", "other"]);
    env.git(&repo, &["branch", "-q", "-D", "main"]);
    let nowhere = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(nowhere.contains("nowhere to land"), "{nowhere}");
    assert_eq!(
        env.git(&s.path, &["status", "--porcelain"]),
        "?? a.txt",
        "nothing committed"
    );
}

/// An ssh program for `core.sshCommand`: runs the remote command git asks for on this machine,
/// and notes each call's arguments in `ssh.log`. With `stale`, fetches are served from that
/// repository.
fn stand_in_ssh(env: &TestEnv, stale: Option<&Path>) -> PathBuf {
    stand_in_ssh_named(env, "fake-ssh", stale)
}

fn stand_in_ssh_named(env: &TestEnv, name: &str, stale: Option<&Path>) -> PathBuf {
    let script = env.bin().join(name);
    let log = env.root().join("ssh.log");
    let swap = match stale {
        Some(stale) => format!(
            "case \"$cmd\" in git-upload-pack*) cmd=\"git-upload-pack '{}'\";; esac\n",
            stale.display()
        ),
        None => String::new(),
    };
    write(
        &script,
        &format!(
            "#!/bin/sh\n# the last argument is the remote command\nfor cmd; do :; done\necho \"{name} $*\" >> '{}'\n{swap}exec sh -c \"$cmd\"\n",
            log.display()
        ),
    );
    make_executable(&script);
    script
}

fn use_ssh_remote(env: &TestEnv, repo: &Path, remote: &Path, ssh: &Path) {
    env.git(repo, &["config", "core.sshCommand", ssh.to_str().unwrap()]);
    env.git(
        repo,
        &[
            "remote",
            "set-url",
            "origin",
            &format!("ssh://example.invalid{}", remote.display()),
        ],
    );
}

#[test]
fn the_push_goes_through_the_configured_ssh_command() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let ssh = stand_in_ssh(&env, None);
    use_ssh_remote(&env, &repo, &remote, &ssh);
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["landed"], remote_main(&env, &remote).as_str());
    let log = std::fs::read_to_string(env.root().join("ssh.log")).unwrap();
    assert!(log.contains("git-upload-pack"), "{log}");
    assert!(log.contains("git-receive-pack"), "{log}");
}

#[test]
fn a_push_that_is_not_a_fast_forward_is_refused_never_forced() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    // A stale copy serves the fetch, so the landing rebases onto an old main.
    let stale = env.root().join("stale.git");
    env.git(
        &env.root(),
        &[
            "clone",
            "-q",
            "--bare",
            remote.to_str().unwrap(),
            stale.to_str().unwrap(),
        ],
    );
    let theirs = push_from_elsewhere(&env, &remote);
    let ssh = stand_in_ssh(&env, Some(&stale));
    use_ssh_remote(&env, &repo, &remote, &ssh);
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains("land again"), "{refused}");
    assert_eq!(
        remote_main(&env, &remote),
        theirs,
        "the remote keeps its commit"
    );
}

/// Configures ssh signing in `dir` with a key made for the test; returns the allowed-signers file.
pub(crate) fn ssh_signing(env: &TestEnv, dir: &Path) -> PathBuf {
    let key = env.root().join("signing-key");
    let made = std::process::Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "person@example.invalid",
            "-f",
        ])
        .arg(&key)
        .status()
        .expect("ssh-keygen runs");
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = env.root().join("allowed-signers");
    write(&allowed, &format!("person@example.invalid {public}"));
    for (k, v) in [
        ("gpg.format", "ssh"),
        ("user.signingkey", key.to_str().unwrap()),
        ("commit.gpgsign", "true"),
        ("gpg.ssh.allowedSignersFile", allowed.to_str().unwrap()),
    ] {
        env.git(dir, &["config", k, v]);
    }
    allowed
}

#[test]
fn commits_are_signed_as_configured_and_a_signing_failure_stops() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    ssh_signing(&env, &repo);
    let s = session(&env, &repo);
    // A commit the agent made itself, unsigned, is signed when it is rebased.
    write(&s.path.join("a.txt"), "a\n");
    env.git(&s.path, &["add", "a.txt"]);
    env.git(
        &s.path,
        &[
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "-m",
            "unsigned",
        ],
    );
    write(&s.path.join("b.txt"), "b\n");
    land(&env, &repo, &s.id, &[]);
    for commit in ["main", "main~1"] {
        let verified = env.git_run(
            &remote,
            &[
                "-c",
                &format!(
                    "gpg.ssh.allowedSignersFile={}",
                    env.root().join("allowed-signers").display()
                ),
                "verify-commit",
                commit,
            ],
        );
        assert_eq!(verified.code, 0, "{commit} is signed: {}", verified.stderr);
    }

    let before = remote_main(&env, &remote);
    let s = session(&env, &repo);
    env.git(
        &repo,
        &[
            "config",
            "user.signingkey",
            env.root().join("no-such-key").to_str().unwrap(),
        ],
    );
    write(&s.path.join("c.txt"), "c\n");
    refused_untouched(
        &env,
        &repo,
        &s,
        "signing is configured",
        3,
        (&remote, &before),
    );
}

#[test]
fn a_rebase_of_another_branch_in_the_worktree_is_not_continued() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let s = session(&env, &repo);
    write(&s.path.join("README.md"), "session\n");
    env.commit_all(&s.path, "session");
    env.git(&s.path, &["switch", "-q", "-c", "other", "HEAD~1"]);
    write(&s.path.join("README.md"), "other\n");
    env.commit_all(&s.path, "other");
    let rebase = env.git_run(&s.path, &["rebase", &s.branch]);
    assert_ne!(rebase.code, 0, "the rebase stops at a conflict");
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains("refs/heads/other"), "{refused}");
    assert_eq!(
        env.git(&repo, &["rev-parse", "main"]),
        env.git(&repo, &["rev-parse", "HEAD"])
    );
}

#[test]
fn an_unreachable_remote_is_named_and_the_commit_is_said() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("repo");
    let s = session(&env, &repo);
    let nowhere = env.root().join("nowhere.git");
    env.git(
        &repo,
        &["remote", "set-url", "origin", nowhere.to_str().unwrap()],
    );
    env.accept_config(&repo, &s.id);
    write(&s.path.join("a.txt"), "a\n");
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(
        refused.contains("does not appear to be a git repository"),
        "{refused}"
    );
    assert!(
        refused.contains("the changes were committed on"),
        "{refused}"
    );
    // Landing again, once the remote is back, goes on from the commit.
    env.git(
        &repo,
        &[
            "remote",
            "set-url",
            "origin",
            env.root().join("repo.git").to_str().unwrap(),
        ],
    );
    env.accept_config(&repo, &s.id);
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["commits"], 1);
    assert_eq!(landed["committed"], Value::Null);
}

#[test]
fn a_worktree_whose_git_file_was_changed_runs_no_git() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // A repository whose configuration runs a program as soon as git reads its status.
    let evil = env.repo("evil");
    let marker = env.root().join("ran");
    let program = env.bin().join("fsmonitor");
    write(
        &program,
        &format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    );
    make_executable(&program);
    env.git(
        &evil,
        &["config", "core.fsmonitor", program.to_str().unwrap()],
    );

    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    write(
        &s.path.join(".git"),
        &format!("gitdir: {}\n", evil.join(".git").display()),
    );
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains("no longer a worktree of"), "{refused}");
    let review = env.nodwyn(&repo, &["worktree", "diff", &s.id]).refused();
    assert!(review.contains("no longer a worktree"), "{review}");
    assert!(
        !marker.exists(),
        "no git ran with the other repository's configuration"
    );

    // Without its .git file, git would find the repository around the worktree.
    std::fs::remove_file(s.path.join(".git")).unwrap();
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "m"]).refused();
    assert!(refused.contains("has no .git of its own"), "{refused}");
    assert_eq!(env.git(&repo, &["rev-list", "--count", "main"]), "1");
}

#[test]
fn an_exported_git_ssh_command_wins_and_the_default_ssh_never_prompts() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let exported = stand_in_ssh_named(&env, "exported-ssh", None);
    use_ssh_remote(&env, &repo, &remote, Path::new("false"));
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    let landed = env
        .nodwyn_command(&repo, &["land", &s.id, "-m", "m", "--json"])
        .env("GIT_SSH_COMMAND", &exported)
        .output()
        .unwrap();
    assert!(
        landed.status.success(),
        "{}",
        String::from_utf8_lossy(&landed.stderr)
    );
    let log = std::fs::read_to_string(env.root().join("ssh.log")).unwrap();
    assert!(log.lines().all(|l| l.starts_with("exported-ssh")), "{log}");

    // Neither exported nor configured: ssh itself, told never to prompt.
    std::fs::remove_file(env.root().join("ssh.log")).unwrap();
    stand_in_ssh_named(&env, "ssh", None);
    env.git(&repo, &["config", "--unset", "core.sshCommand"]);
    let s = session(&env, &repo);
    write(&s.path.join("b.txt"), "b\n");
    land(&env, &repo, &s.id, &[]);
    let log = std::fs::read_to_string(env.root().join("ssh.log")).unwrap();
    assert!(
        log.lines().all(|l| l.starts_with("ssh -o BatchMode=yes")),
        "{log}"
    );
    assert_eq!(
        remote_main(&env, &remote),
        env.git(&s.path, &["rev-parse", "HEAD"])
    );
}

#[test]
fn a_fetch_that_stalls_is_stopped_at_the_persons_deadline() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // A remote over ssh whose "ssh" never answers.
    env.git(
        &repo,
        &["remote", "add", "origin", "ssh://example.invalid/shop.git"],
    );
    env.git(&repo, &["config", "branch.main.remote", "origin"]);
    env.git(&repo, &["config", "branch.main.merge", "refs/heads/main"]);
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main"]);
    let s = session(&env, &repo);
    write(&s.path.join("a.txt"), "a\n");
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        "[git]\nnetwork_timeout_seconds = 2\n",
    );
    env.install_program("stalled-ssh", "#!/bin/sh\nsleep 60\n");
    let started = std::time::Instant::now();
    let output = env
        .nodwyn_command(&repo, &["land", &s.id, "-m", "m"])
        .env("GIT_SSH_COMMAND", "stalled-ssh")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{stderr}"
    );
    assert!(stderr.contains("did not finish within 2 s"), "{stderr}");
    // A repository cannot hold a landing longer.
    write(
        &repo.join(".nodwyn/config.toml"),
        "[git]\nnetwork_timeout_seconds = 86400\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "new"]).failed_with(1);
    assert!(refused.contains("only your own configuration"), "{refused}");
}

#[test]
fn a_landing_after_a_review_lands_exactly_what_the_person_was_shown() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let s = session(&env, &repo);
    write(&s.path.join("pay.py"), "def pay(): return 1\n");
    let shown = env.nodwyn(&repo, &["worktree", "diff", &s.id]).success();
    assert!(shown.stdout.contains("return 1"), "{shown:?}");
    // Rewritten after the person read it (by a process the review could not see).
    write(&s.path.join("pay.py"), "def pay(): send_everything()\n");
    let before = remote_main(&env, &remote);
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "pay"]).refused();
    assert!(
        refused.contains("changed since you were last shown them"),
        "{refused}"
    );
    assert_eq!(remote_main(&env, &remote), before, "something was pushed");
    assert_eq!(env.git(&s.path, &["rev-list", "--count", "HEAD"]), "1");
    // Shown again, it lands, and what landed is what was shown.
    let shown = env.nodwyn(&repo, &["worktree", "diff", &s.id]).success();
    assert!(shown.stdout.contains("send_everything"), "{shown:?}");
    land(&env, &repo, &s.id, &[]);
    assert_eq!(
        env.git(&remote, &["show", "main:pay.py"]),
        "def pay(): send_everything()"
    );
}

#[test]
fn a_branch_whose_upstream_has_another_name_is_not_pushed_to_it() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    env.git(&repo, &["push", "-q", "-u", "origin", "main"]);
    // git sets the new branch's upstream to origin/main.
    env.git(
        &repo,
        &["checkout", "-q", "-b", "my-feature", "origin/main"],
    );
    // worktree new says so at once.
    let made = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert!(
        made.stderr
            .contains("a landing would be refused now: my-feature tracks main of origin"),
        "{}",
        made.stderr
    );
    let s = session(&env, &repo);
    write(&s.path.join("feature.txt"), "mine\n");
    let before = remote_main(&env, &remote);
    let refused = env
        .nodwyn(&repo, &["land", &s.id, "-m", "feature"])
        .refused();
    assert!(
        refused.contains("my-feature") && refused.contains("main of origin"),
        "{refused}"
    );
    assert_eq!(remote_main(&env, &remote), before, "main of origin moved");
    // The person's own rule says push to the upstream: then it goes there, and says so.
    env.git(&repo, &["config", "push.default", "upstream"]);
    env.accept_config(&repo, &s.id);
    let landed = land(&env, &repo, &s.id, &[]);
    assert_eq!(landed["pushed"]["ref"], "refs/heads/main", "{landed}");
    let made = env.nodwyn_json(&repo, &["worktree", "new"]);
    assert_eq!(made["lands_on"], "main of origin", "{made}");
    assert_ne!(remote_main(&env, &remote), before);
}

#[test]
fn an_agents_landing_leaves_out_new_files_its_commands_made_unless_named() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    write(
        &repo.join(".nodwyn/allow.toml"),
        &format!("push = [{:?}]\n", remote.to_str().unwrap()),
    );
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let call = |primitive: &str, args: &str| {
        env.nodwyn(&repo, &["call", "--session", &id, primitive, args])
            .success()
            .json()
    };
    call("fs-write", r#"["notes.txt", "the work\n"]"#);
    // What running the tests leaves behind.
    call(
        "shell-exec",
        r#"{"argv": ["sh", "-c", "mkdir -p __pycache__ && echo x > __pycache__/notes.cpython-311.pyc && echo y > report.txt"]}"#,
    );
    let landed = call("git-land", r#"{"message": "notes"}"#);
    let left: Vec<&str> = landed["not_written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        left,
        ["__pycache__/notes.cpython-311.pyc", "report.txt"],
        "{landed}"
    );
    assert_eq!(env.git(&remote, &["show", "main:notes.txt"]), "the work");
    assert!(
        env.git_run(&remote, &["show", "main:report.txt"]).code != 0,
        "report.txt landed"
    );
    assert!(
        wt.join("report.txt").exists(),
        "a file left out was removed"
    );
    // Named, it lands.
    let landed = call(
        "git-land",
        r#"{"message": "the report", "include": ["report.txt"]}"#,
    );
    assert_eq!(landed["new_files"][0], "report.txt", "{landed}");
    assert_eq!(env.git(&remote, &["show", "main:report.txt"]), "y");
}

#[test]
fn a_persons_landing_names_the_new_files_it_commits() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("shop");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let s = session(&env, &repo);
    write(&s.path.join("made-by-hand.txt"), "mine\n");
    let shown = env.nodwyn(&repo, &["land", &s.id, "-m", "mine"]).success();
    assert!(
        shown.stdout.contains("new files in it: made-by-hand.txt"),
        "{}",
        shown.stdout
    );
}

#[test]
fn the_question_before_an_agents_landing_shows_its_message_files_and_what_is_left_out() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    write(
        &repo.join(".nodwyn/allow.toml"),
        &format!(
            "writes = [\"**\"]\ncommands = [[\"sh\"]]\npush = [{:?}]\n",
            remote.to_str().unwrap()
        ),
    );
    let (id, _wt) = env.session(&repo);
    let call = |primitive: &str, args: &str| {
        env.nodwyn(&repo, &["call", "--session", &id, primitive, args])
            .success()
    };
    call("fs-write", r#"["notes.txt", "the work\n"]"#);
    call(
        "shell-exec",
        r#"{"argv": ["sh", "-c", "echo y > report.txt"]}"#,
    );
    let shown = env.nodwyn_on_terminal(
        &repo,
        &[
            "call",
            "--session",
            &id,
            "git-land",
            r#"{"message": "add the notes"}"#,
        ],
        "n",
    );
    for expected in [
        "onto main (moves main of origin): \"add the notes\"",
        "1 file(s): notes.txt (+1 -0)",
        "left out: report.txt (made by a command, not named)",
    ] {
        assert!(shown.contains(expected), "{expected} in\n{shown}");
    }
}

#[test]
fn an_agents_landing_refuses_deletions_it_did_not_name() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    write(&repo.join("keep.txt"), "kept\n");
    write(&repo.join("old.txt"), "old\n");
    env.commit_all(&repo, "two files");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    write(
        &repo.join(".nodwyn/allow.toml"),
        &format!("push = [{:?}]\n", remote.to_str().unwrap()),
    );
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let call = |primitive: &str, args: &str| {
        env.nodwyn(
            &repo,
            &["--json", "call", "--session", &id, primitive, args],
        )
    };
    call("fs-write", r#"["notes.txt", "the work\n"]"#).success();
    // A command's clean-up took two tracked files with it; the agent meant to delete one.
    call(
        "shell-exec",
        r#"{"argv": ["sh", "-c", "rm old.txt keep.txt"]}"#,
    )
    .success();
    let before = env.git(&remote, &["rev-parse", "main"]);
    let refused = call("git-land", r#"{"message": "notes"}"#);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    let error = &refused.json()["error"];
    assert_eq!(error["kind"], "unnamed_deletions", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("2 tracked file(s)") && message.contains("keep.txt, old.txt"),
        "{message}"
    );
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        before,
        "nothing pushed"
    );
    // Named, the one deletion lands; the other file is brought back first.
    env.git(&wt, &["checkout", "--", "keep.txt"]);
    let landed = call(
        "git-land",
        r#"{"message": "notes, and old.txt goes", "include": ["old.txt"]}"#,
    )
    .success()
    .json();
    assert!(landed["result"]["landed"].is_string(), "{landed}");
    let tree = env.git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(
        tree.contains("keep.txt") && !tree.contains("old.txt"),
        "{tree}"
    );
}

#[test]
fn a_persons_landing_asks_before_deleting_files_missing_without_git_rm() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    write(&repo.join("gone.txt"), "gone\n");
    write(&repo.join("removed.txt"), "removed\n");
    env.commit_all(&repo, "two files");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let s = session(&env, &repo);
    std::fs::remove_file(s.path.join("gone.txt")).unwrap();
    env.git(&s.path, &["rm", "-q", "removed.txt"]);
    let before = env.git(&remote, &["rev-parse", "main"]);
    // No terminal: refused, naming it and how to land it.
    let refused = env.nodwyn(&repo, &["land", &s.id, "-m", "tidy"]).refused();
    assert!(
        refused.contains("1 tracked file(s) are missing")
            && refused.contains("gone.txt")
            && refused.contains("--delete-missing"),
        "{refused}"
    );
    assert_eq!(env.git(&remote, &["rev-parse", "main"]), before);
    // On a terminal it asks; "n" lands nothing.
    let shown = env.nodwyn_on_terminal(&repo, &["land", &s.id, "-m", "tidy"], "n");
    assert!(shown.contains("land their deletion? [y/N]"), "{shown}");
    assert_eq!(env.git(&remote, &["rev-parse", "main"]), before);
    let landed = env.nodwyn_json(&repo, &["land", &s.id, "-m", "tidy", "--delete-missing"]);
    assert!(landed["landed"].is_string(), "{landed}");
    let tree = env.git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(
        !tree.contains("gone.txt") && !tree.contains("removed.txt"),
        "{tree}"
    );
}
