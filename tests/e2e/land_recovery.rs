//! A landing loses nothing, whatever stops it: a refusal under every strategy leaves the branch
//! exactly as it was, a file git does not track is never overwritten, and a landing stopped at
//! each of its steps (by Ctrl-C, or by a kill of everything, as when a machine stops) is
//! finished by the next `nodwyn land` or undone by `nodwyn land --abort`, with every file of the
//! worktree (tracked, untracked, ignored, copied by `.worktreeinclude`) and every commit kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, make_executable, write};

use crate::land::{push_file_from_elsewhere, push_from_elsewhere, ssh_signing, token};

/// Every file under `dir` but its `.git`, with its content (a link's target for a link).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if name == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, found);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                found.insert(name, target.to_string_lossy().as_bytes().to_vec());
            } else {
                found.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(dir, dir, &mut found);
    found
}

/// Asserts that every file of `before` is in `after` with the same content (`except` those).
#[track_caller]
fn all_kept(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
    except: &[&str],
) {
    for (path, content) in before {
        if except.contains(&path.as_str()) {
            continue;
        }
        assert_eq!(
            after
                .get(path)
                .map(|c| String::from_utf8_lossy(c).into_owned()),
            Some(String::from_utf8_lossy(content).into_owned()),
            "{path} is kept"
        );
    }
}

/// Asserts that each commit is still reachable from some ref of the repository.
#[track_caller]
fn reachable(env: &TestEnv, dir: &Path, commits: &[String]) {
    for commit in commits {
        let holders = env.git(
            dir,
            &["for-each-ref", "--contains", commit, "--format=%(refname)"],
        );
        assert!(!holders.is_empty(), "commit {commit} is reachable");
    }
}

/// A repository with a remote, and a session whose worktree holds every kind of file: an
/// agent's own commit, a changed tracked file, an untracked file, an ignored build output and
/// an ignored file the person's own (untracked) `.worktreeinclude` copied in. The base moves on the remote meanwhile, so a
/// landing has to rebase.
struct Scene {
    env: TestEnv,
    repo: PathBuf,
    remote: PathBuf,
    id: String,
    path: PathBuf,
    branch: String,
}

impl Scene {
    fn new(conflicting: bool) -> Self {
        let env = TestEnv::new();
        let (repo, remote) = env.repo_with_remote("repo");
        write(
            &repo.join(".gitignore"),
            "build/\n.env.local\n.worktreeinclude\n",
        );
        write(&repo.join(".worktreeinclude"), ".env.local\n");
        env.commit_all(&repo, "ignore and include");
        env.git(&repo, &["push", "-q", "origin", "main"]);
        write(&repo.join(".env.local"), "LOCAL_SETTING=1\n");
        let made = env.new_worktree(&repo);
        let path = PathBuf::from(made["path"].as_str().unwrap());
        assert!(
            path.join(".env.local").exists(),
            "copied by .worktreeinclude"
        );
        write(&path.join("src/lib.txt"), "the agent's own commit\n");
        env.commit_all(&path, "the agent's own commit");
        write(&path.join("README.md"), "hello\nchanged by the agent\n");
        write(&path.join("notes.txt"), "untracked notes\n");
        write(&path.join("build/out.bin"), "build output\n");
        if conflicting {
            push_file_from_elsewhere(
                &env,
                &remote,
                "README.md",
                "hello\nchanged elsewhere\n",
                false,
            );
        } else {
            push_from_elsewhere(&env, &remote);
        }
        Scene {
            id: made["id"].as_str().unwrap().to_owned(),
            branch: made["branch"].as_str().unwrap().to_owned(),
            env,
            repo,
            remote,
            path,
        }
    }

    fn tip(&self) -> String {
        self.env.git(&self.path, &["rev-parse", "HEAD"])
    }

    fn land(&self) -> nodwyn_tests::Run {
        self.env
            .nodwyn(&self.repo, &["--json", "land", &self.id, "-m", "the work"])
    }

    /// Arms `hook` (a path to a hook file) to touch a marker and sleep once; returns the marker.
    fn arm(&self, hook: &Path) -> PathBuf {
        let marker = self.env.root().join("reached");
        let arm = self.env.root().join("armed");
        write(&arm, "");
        write(
            hook,
            &format!(
                "#!/bin/sh\nif [ -e '{arm}' ]; then rm -f '{arm}'; touch '{marker}'; sleep 30; fi\nexit 0\n",
                arm = arm.display(),
                marker = marker.display()
            ),
        );
        make_executable(hook);
        if hook.starts_with(&self.repo) {
            self.env.accept_config(&self.repo, &self.id);
        }
        marker
    }

    fn hook(&self, step: Step) -> PathBuf {
        match step {
            Step::AfterCommit => self.repo.join(".git/hooks/post-commit"),
            Step::MidRebase => self.repo.join(".git/hooks/post-checkout"),
            Step::BeforePush => self.repo.join(".git/hooks/pre-push"),
            Step::AfterPush => self.remote.join("hooks/post-receive"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `git commit` has made the commit (its post-commit hook runs).
    AfterCommit,
    /// A `git rebase` in the worktree has checked out the base (its post-checkout hook runs).
    MidRebase,
    /// The rebase is done and the push begins (the pre-push hook runs).
    BeforePush,
    /// The remote has taken the push (its post-receive hook runs), before the local base moves.
    AfterPush,
}

/// Stops a landing of a fresh scene at `step` with `signal`; returns the scene, the branch's
/// tip before, the files before, and the git status before.
fn stopped(step: Step, signal: &str) -> (Scene, String, BTreeMap<String, Vec<u8>>, String) {
    let scene = Scene::new(step == Step::MidRebase);
    let (env, s) = (&scene.env, &scene);
    let head = s.tip();
    let before = files(&s.path);
    let status = env.git(&s.path, &["status", "--porcelain", "--ignored"]);
    let marker = s.arm(&s.hook(step));
    let run = env.nodwyn_stopped_at(&s.repo, &["land", &s.id, "-m", "the work"], &marker, signal);
    assert_ne!(run.code, 0, "the landing did not finish: {}", run.stderr);
    if signal == "INT" {
        assert_eq!(run.code, 130, "an interrupted landing exits as run does");
        assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("nodwyn land --abort {}", s.id)),
            "{}",
            run.stderr
        );
        assert_eq!(
            run.stderr.trim().lines().count(),
            1,
            "one sentence: {}",
            run.stderr
        );
    }
    let listed = env.nodwyn_json(&s.repo, &["worktree", "list"]);
    assert_eq!(listed[0]["landing"], true, "{listed}");
    let kept = env
        .nodwyn(&s.repo, &["worktree", "remove", &s.id])
        .refused();
    assert!(kept.contains("landing"), "{kept}");
    if step == Step::MidRebase && signal == "KILL" {
        // The rebase stands where it was killed; the next landing refuses, naming what to do.
        let refused = s.land().refused();
        assert!(
            refused.contains(&format!("nodwyn land --abort {}", s.id)),
            "{refused}"
        );
    } else {
        all_kept(&before, &files(&s.path), &[]);
    }
    (scene, head, before, status)
}

/// After a stop, `--abort` puts back the branch and every file; a second `--abort` changes
/// nothing; then the landing goes through.
fn abort_then_land(step: Step, signal: &str) {
    let (s, head, before, status) = stopped(step, signal);
    let env = &s.env;
    let aborted = env.nodwyn_json(&s.repo, &["land", &s.id, "--abort"]);
    assert_eq!(aborted["undone"], true, "{aborted}");
    // What reached the remote is said, never claimed undone.
    let reached = aborted["reached"].as_str().unwrap_or_default();
    if step == Step::AfterPush {
        assert!(reached.contains("had reached origin"), "{aborted}");
    } else {
        assert_eq!(reached, "", "{aborted}");
    }
    assert_eq!(aborted["head"], head.as_str());
    assert_eq!(s.tip(), head, "the branch is where it was");
    assert_eq!(
        env.git(&s.path, &["symbolic-ref", "HEAD"]),
        format!("refs/heads/{}", s.branch)
    );
    assert_eq!(files(&s.path), before, "every file as it was");
    assert_eq!(
        env.git(&s.path, &["status", "--porcelain", "--ignored"]),
        status,
        "the changes are uncommitted again"
    );
    let twice = env.nodwyn_json(&s.repo, &["land", &s.id, "--abort"]);
    assert_eq!(twice["undone"], false, "{twice}");
    assert_eq!(files(&s.path), before);
    let listed = env.nodwyn_json(&s.repo, &["worktree", "list"]);
    assert_eq!(listed[0]["landing"], false, "{listed}");
    land_to_the_end(&s, &before, step);
}

/// Lands `s` (resolving the conflict of the mid-rebase scene on the way) and checks that the
/// remote has the work and the worktree every file it had.
fn land_to_the_end(s: &Scene, before: &BTreeMap<String, Vec<u8>>, step: Step) {
    let env = &s.env;
    let mut except: Vec<&str> = Vec::new();
    if step == Step::MidRebase {
        let stopped = s.land().refused();
        assert!(stopped.contains("conflict in README.md"), "{stopped}");
        write(
            &s.path.join("README.md"),
            "hello\nchanged elsewhere\nchanged by the agent\n",
        );
        except.push("README.md");
    }
    let landed = s.land().success().json();
    let pushed = env.git(&s.remote, &["rev-parse", "main"]);
    assert_eq!(landed["landed"], pushed.as_str(), "{landed}");
    assert_eq!(s.tip(), pushed, "the branch follows the landed commit");
    let shown = env.git(&s.remote, &["show", "main:src/lib.txt"]);
    assert_eq!(shown, "the agent's own commit");
    all_kept(before, &files(&s.path), &except);
    assert_eq!(
        env.git(&s.path, &["status", "--porcelain"]),
        "",
        "nothing left uncommitted"
    );
    let listed = env.nodwyn_json(&s.repo, &["worktree", "list"]);
    assert_eq!(listed[0]["landing"], false, "{listed}");
}

#[test]
fn ctrl_c_after_the_commit_then_land_again() {
    let (s, head, before, _) = stopped(Step::AfterCommit, "INT");
    assert_ne!(s.tip(), head, "the commit was made");
    land_to_the_end(&s, &before, Step::AfterCommit);
}

#[test]
fn killed_after_the_commit_then_abort() {
    abort_then_land(Step::AfterCommit, "KILL");
}

#[test]
fn ctrl_c_mid_rebase_then_land_again() {
    let (s, head, before, _) = stopped(Step::MidRebase, "INT");
    let env = &s.env;
    let in_progress = env.git_run(&s.path, &["rev-parse", "--verify", "-q", "REBASE_HEAD"]);
    assert_ne!(in_progress.code, 0, "Ctrl-C undid the rebase it had begun");
    reachable(env, &s.path, &[head]);
    land_to_the_end(&s, &before, Step::MidRebase);
}

#[test]
fn killed_mid_rebase_then_abort() {
    abort_then_land(Step::MidRebase, "KILL");
}

#[test]
fn ctrl_c_before_the_push_then_land_again() {
    let (s, _, before, _) = stopped(Step::BeforePush, "INT");
    // close and prune keep a worktree whose landing is unfinished, and say why.
    let closed = s.env.nodwyn_json(&s.repo, &["worktree", "close", &s.id]);
    assert_eq!(closed["removed"], false);
    assert!(closed["kept"].to_string().contains("landing"), "{closed}");
    let pruned = s.env.nodwyn_json(&s.repo, &["worktree", "prune"]);
    assert!(pruned.to_string().contains("landing"), "{pruned}");
    s.env.nodwyn_json(&s.repo, &["worktree", "resume", &s.id]);
    assert_eq!(
        s.env.git(&s.remote, &["log", "--format=%s", "-1", "main"]),
        "theirs",
        "nothing pushed"
    );
    land_to_the_end(&s, &before, Step::BeforePush);
}

#[test]
fn ctrl_c_before_the_push_then_abort() {
    abort_then_land(Step::BeforePush, "INT");
}

#[test]
fn killed_after_the_push_then_land_again() {
    let (s, _, before, _) = stopped(Step::AfterPush, "KILL");
    land_to_the_end(&s, &before, Step::AfterPush);
}

#[test]
fn killed_after_the_push_then_abort_says_what_reached_the_remote() {
    abort_then_land(Step::AfterPush, "KILL");
}

#[test]
fn ctrl_c_after_the_push_then_abort() {
    abort_then_land(Step::AfterPush, "INT");
}

#[test]
fn a_refused_landing_leaves_the_branch_exactly_as_it_was_under_each_strategy() {
    for strategy in ["ff-only", "squash", "no-ff"] {
        let env = TestEnv::new();
        let (repo, remote) = env.repo_with_remote("repo");
        let made = env.new_worktree(&repo);
        let (id, path) = (
            made["id"].as_str().unwrap(),
            PathBuf::from(made["path"].as_str().unwrap()),
        );
        write(&path.join("config.txt"), &format!("token = {}\n", token()));
        env.commit_all(&path, "the agent's commit with a token");
        write(&path.join("more.txt"), "more\n");
        env.commit_all(&path, "another commit");
        let theirs = push_from_elsewhere(&env, &remote);
        let commits = env.git(&path, &["rev-list", "HEAD"]);
        let before = files(&path);
        let refused = env
            .nodwyn(&repo, &["land", id, "-m", "m", "--strategy", strategy])
            .refused();
        assert!(refused.contains("credential"), "{strategy}: {refused}");
        assert_eq!(
            env.git(&path, &["rev-list", "HEAD"]),
            commits,
            "{strategy}: the branch's commits are exactly as they were"
        );
        assert_eq!(
            env.git(&path, &["symbolic-ref", "HEAD"]),
            format!("refs/heads/{}", made["branch"].as_str().unwrap())
        );
        assert_eq!(files(&path), before, "{strategy}: every file as it was");
        assert_eq!(env.git(&path, &["status", "--porcelain"]), "");
        assert_eq!(env.git(&remote, &["rev-parse", "main"]), theirs);
        let listed = env.nodwyn_json(&repo, &["worktree", "list"]);
        assert_eq!(listed[0]["landing"], false, "a refusal ends the landing");
    }
}

#[test]
fn an_ignored_file_where_the_base_has_a_file_is_never_overwritten() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    write(&repo.join(".gitignore"), "build/\n");
    env.commit_all(&repo, "ignore build");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let made = env.new_worktree(&repo);
    let (id, path) = (
        made["id"].as_str().unwrap(),
        PathBuf::from(made["path"].as_str().unwrap()),
    );
    write(&path.join("build/out.txt"), "the person's own build\n");
    write(&path.join("src.txt"), "work\n");
    let theirs = push_file_from_elsewhere(&env, &remote, "build/out.txt", "theirs\n", true);
    let refused = env.nodwyn(&repo, &["land", id, "-m", "m"]).refused();
    assert!(refused.contains("build/out.txt"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(path.join("build/out.txt")).unwrap(),
        "the person's own build\n"
    );
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        theirs,
        "nothing pushed"
    );
    assert_eq!(
        env.git(&path, &["log", "--format=%s", "-1"]),
        "m",
        "the commit of the changes stays on the branch"
    );
    // Moved out of the way, the landing goes through.
    std::fs::rename(path.join("build/out.txt"), env.root().join("saved.txt")).unwrap();
    let landed = env.nodwyn_json(&repo, &["land", id]);
    assert_eq!(
        landed["landed"],
        env.git(&remote, &["rev-parse", "main"]).as_str()
    );
}

#[test]
fn land_needs_a_message_only_when_there_is_something_to_commit() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let made = env.new_worktree(&repo);
    let (id, path) = (
        made["id"].as_str().unwrap(),
        PathBuf::from(made["path"].as_str().unwrap()),
    );
    write(&path.join("a.txt"), "a\n");
    let refused = env.nodwyn(&repo, &["land", id]).refused();
    assert!(refused.contains("needs a commit message"), "{refused}");
    assert!(refused.contains("a.txt"), "{refused}");
    env.commit_all(&path, "the agent's commit");
    let landed = env.nodwyn(&repo, &["land", id]).success();
    assert!(!landed.stdout.contains("left out"), "{}", landed.stdout);
    assert_eq!(
        env.git(&remote, &["log", "--format=%s", "-1", "main"]),
        "the agent's commit"
    );
}

#[test]
fn a_refusal_after_a_resolved_conflict_puts_the_branch_back_and_keeps_the_rebase() {
    let s = Scene::new(true);
    let env = &s.env;
    let before = files(&s.path);
    let stopped = s.land().refused();
    assert!(stopped.contains("conflict in README.md"), "{stopped}");
    let committed = env.git(&s.path, &["rev-parse", "ORIG_HEAD"]);
    // The person resolves the conflict, and something with a token slips in on the way.
    write(
        &s.path.join("README.md"),
        "hello\nchanged elsewhere\nchanged by the agent\n",
    );
    write(
        &s.path.join("config.txt"),
        &format!("token = {}\n", token()),
    );
    let refused = s.land().refused();
    assert!(refused.contains("credential"), "{refused}");
    assert!(refused.contains("was put back at"), "{refused}");
    assert_eq!(
        s.tip(),
        committed,
        "the branch is where the landing found it"
    );
    assert_eq!(
        env.git(&s.path, &["symbolic-ref", "HEAD"]),
        format!("refs/heads/{}", s.branch)
    );
    all_kept(&before, &files(&s.path), &["README.md"]);
    assert_eq!(
        env.git(&s.remote, &["log", "--format=%s", "-1", "main"]),
        "theirs",
        "nothing pushed"
    );
    // The rebased commits, resolution included, are kept in a backup ref the sentence names.
    let kept = refused
        .split("kept in ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap()
        .to_owned();
    assert!(kept.starts_with("refs/nodwyn/backup/"), "{kept}");
    assert_eq!(
        env.git(&s.path, &["show", &format!("{kept}:README.md")]),
        "hello\nchanged elsewhere\nchanged by the agent"
    );
}

#[test]
fn ctrl_c_while_the_commits_are_made_again_and_signed_then_land_again() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    let allowed = ssh_signing(&env, &repo);
    // A signing program that stops once, when armed, as a slow hardware key would.
    let marker = env.root().join("reached");
    let arm = env.root().join("armed");
    let signer = env.root().join("slow-signer");
    write(
        &signer,
        &format!(
            "#!/bin/sh\nif [ -e '{arm}' ]; then rm -f '{arm}'; touch '{marker}'; sleep 30; fi\nexec ssh-keygen \"$@\"\n",
            arm = arm.display(),
            marker = marker.display()
        ),
    );
    make_executable(&signer);
    env.git(
        &repo,
        &["config", "gpg.ssh.program", signer.to_str().unwrap()],
    );
    let made = env.new_worktree(&repo);
    let (id, path) = (
        made["id"].as_str().unwrap().to_owned(),
        PathBuf::from(made["path"].as_str().unwrap()),
    );
    write(&path.join("work.txt"), "work\n");
    env.commit_all(&path, "the agent's commit");
    let theirs = push_from_elsewhere(&env, &remote);
    let head = env.git(&path, &["rev-parse", "HEAD"]);
    let before = files(&path);
    write(&arm, "");
    let run = env.nodwyn_stopped_at(&repo, &["land", &id, "-m", "m"], &marker, "INT");
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
    assert_eq!(
        env.git(&path, &["rev-parse", "HEAD"]),
        head,
        "nothing rewritten"
    );
    assert_eq!(files(&path), before);
    assert_eq!(
        env.git(&remote, &["rev-parse", "main"]),
        theirs,
        "nothing pushed"
    );
    let landed = env.nodwyn_json(&repo, &["land", &id]);
    let pushed = env.git(&remote, &["rev-parse", "main"]);
    assert_eq!(landed["landed"], pushed.as_str());
    let verified = env.git_run(
        &remote,
        &[
            "-c",
            &format!("gpg.ssh.allowedSignersFile={}", allowed.display()),
            "verify-commit",
            "main",
        ],
    );
    assert_eq!(verified.code, 0, "signed: {}", verified.stderr);
}

#[test]
fn a_landing_killed_during_its_push_leaves_no_push_running() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    write(&wt.join("notes.txt"), "the work\n");
    // The remote holds the push while the test looks: its hook says who pushes, then waits.
    let arrived = env.root().join("push-arrived");
    let hook = remote.join("hooks/pre-receive");
    write(
        &hook,
        &format!(
            "#!/bin/sh\necho $$ > {hold}\nps -o ppid= -p $PPID | tr -d ' ' > {arrived}.tmp\nmv {arrived}.tmp {arrived}\nexec sleep 30\n",
            hold = env.root().join("hook-pid").display(),
            arrived = arrived.display()
        ),
    );
    make_executable(&hook);
    // Only nodwyn is killed (as the out-of-memory killer picks one process), not its group.
    let mut nodwyn = env
        .nodwyn_command(&repo, &["land", &id, "-m", "the work"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !arrived.exists() {
        assert!(started.elapsed().as_secs() < 60, "the push never arrived");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Up from the hook's receive-pack (through the shell git starts it with) to the git push.
    let cmdline = |pid: &str| {
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
            .replace('\0', " ")
    };
    let parent = |pid: &str| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after = stat
            .rsplit_once(") ")
            .map(|(_, rest)| rest.to_owned())
            .unwrap_or_default();
        after.split(' ').nth(1).unwrap_or("1").to_owned()
    };
    let mut push = std::fs::read_to_string(&arrived).unwrap().trim().to_owned();
    while !cmdline(&push).contains(" push ") {
        assert_ne!(push, "1", "no git push above the hook");
        push = parent(&push);
    }
    nodwyn.kill().unwrap();
    nodwyn.wait().unwrap();
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !std::path::Path::new(&format!("/proc/{push}")).exists()
            || std::fs::read_to_string(format!("/proc/{push}/stat"))
                .is_ok_and(|stat| stat.contains(") Z "))
    });
    let hook_pid = std::fs::read_to_string(env.root().join("hook-pid")).unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", hook_pid.trim()])
        .status();
    assert!(gone, "git push {push} went on after nodwyn was killed");
}
