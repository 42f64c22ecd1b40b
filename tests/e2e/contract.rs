//! The command-line contract: `--json` errors as a document on stdout, the exit codes of the
//! checks a hook runs, a closed stdout, `-v`, and the documented pre-push hook run for real.

use std::io::Read;
use std::process::Stdio;

use nodwyn_tests::{TestEnv, make_executable, nodwyn_binary, write};
use serde_json::Value;

use crate::land::token;

#[test]
fn with_json_an_error_is_a_document_on_stdout_too() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let missing = env.nodwyn(&repo, &["--json", "land", "0badc0de"]);
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.starts_with("nodwyn: no session"),
        "{}",
        missing.stderr
    );
    let document: Value = serde_json::from_str(&missing.stdout).unwrap();
    assert_eq!(document["error"]["kind"], "no_such_session");
    assert!(
        document["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("no session has the id or name 0badc0de"),
        "{document}"
    );
    let usage = env.nodwyn(&repo, &["land", "--json", "--strategy", "sideways"]);
    assert_eq!(usage.code, 2);
    let document: Value = serde_json::from_str(&usage.stdout).unwrap();
    assert_eq!(document["error"]["kind"], "usage");
    let plain = env.nodwyn(&repo, &["land", "0badc0de"]);
    assert_eq!(plain.stdout, "", "without --json stdout stays empty");
}

#[test]
fn scan_and_guard_check_exit_0_clean_1_found_2_on_an_error() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("clean.txt"), "nothing here\n");
    write(&repo.join("config.txt"), &format!("token = {}\n", token()));
    let code = |args: &[&str]| env.nodwyn(&repo, args).code;
    assert_eq!(code(&["scan", "clean.txt"]), 0);
    assert_eq!(code(&["scan", "config.txt"]), 1);
    assert_eq!(code(&["scan", "no-such-file.txt"]), 2);
    assert_eq!(code(&["scan", "--diff", "nowhere..HEAD"]), 2);
    assert_eq!(code(&["guard", "check", "notes.txt"]), 0);
    assert_eq!(code(&["guard", "check", "notes.txt", ".env"]), 1);
    let json = env.nodwyn(&repo, &["--json", "scan", "no-such-file.txt"]);
    assert_eq!(json.code, 2);
    assert!(serde_json::from_str::<Value>(&json.stdout).unwrap()["error"].is_object());
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut many = String::new();
    for n in 0..4000 {
        many.push_str(&format!("line {n}: token = {}\n", token()));
    }
    write(&repo.join("many.txt"), &many);
    let mut child = env
        .nodwyn_command(&repo, &["scan", "--sarif", "many.txt"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reading end is closed here, as `| head` does.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.to_lowercase().contains("broken pipe"), "{stderr}");
    assert_eq!(stderr, "", "nothing on stderr");
}

#[test]
fn verbose_logs_each_git_command() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let quiet = env.nodwyn(&repo, &["worktree", "new"]).success();
    assert_eq!(quiet.stderr, "");
    let verbose = env.nodwyn(&repo, &["-v", "worktree", "new"]).success();
    assert!(verbose.stderr.contains("worktree"), "{}", verbose.stderr);
    assert!(verbose.stderr.contains("INFO"), "{}", verbose.stderr);
    assert!(!verbose.stderr.contains("DEBUG"), "{}", verbose.stderr);
    let debug = env.nodwyn(&repo, &["-vv", "worktree", "new"]).success();
    assert!(debug.stderr.contains("INFO"), "{}", debug.stderr);
}

/// The pre-push hook as `docs/scan.md` shows it.
fn readme_hook() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scan.md")).unwrap();
    let start = readme.find("#!/bin/sh\n# .git/hooks/pre-push").unwrap();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end].to_owned()
}

#[test]
fn the_readmes_pre_push_hook_refuses_a_credential_and_passes_a_first_push() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.bin()).unwrap();
    std::os::unix::fs::symlink(nodwyn_binary(), env.bin().join("nodwyn")).unwrap();
    let repo = env.repo("repo");
    let hook = repo.join(".git/hooks/pre-push");
    write(&hook, &readme_hook());
    make_executable(&hook);
    let remote = env.root().join("remote.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    env.git(
        &repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    // The first push: the remote has no main yet.
    env.git(&repo, &["push", "-q", "origin", "main"]);
    write(&repo.join("config.txt"), &format!("token = {}\n", token()));
    env.commit_all(&repo, "a token");
    let refused = env.git_run(&repo, &["push", "-q", "origin", "main"]);
    assert_ne!(refused.code, 0);
    assert!(
        refused.stderr.contains("credential found"),
        "{}",
        refused.stderr
    );
    env.git(&repo, &["reset", "-q", "--hard", "HEAD~1"]);
    write(&repo.join("notes.txt"), "plain notes\n");
    env.commit_all(&repo, "notes");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    // A first push of a branch holding a credential is refused too.
    env.git(&repo, &["switch", "-q", "-c", "topic"]);
    write(&repo.join("config.txt"), &format!("token = {}\n", token()));
    env.commit_all(&repo, "a token on a new branch");
    let refused = env.git_run(&repo, &["push", "-q", "origin", "topic"]);
    assert_ne!(refused.code, 0, "{}", refused.stderr);
}

#[test]
fn completions_are_printed_for_each_shell_and_bash_loads_them() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let printed = env.nodwyn(&env.root(), &["completions", shell]).success();
        assert!(printed.stdout.contains("worktree"), "{shell}");
        assert!(printed.stdout.contains("land"), "{shell}");
    }
    let script = env.root().join("nodwyn.bash");
    let bash = env.nodwyn(&env.root(), &["completions", "bash"]).success();
    write(&script, &bash.stdout);
    let loaded = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p nodwyn",
            script.display()
        ))
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{loaded:?}");
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("nodwyn"));
    let usage = env.nodwyn(&env.root(), &["completions", "tcsh"]);
    assert_eq!(usage.code, 2);
}

#[test]
fn messages_say_what_is_wrong_where_it_is() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // A form the person's prompts.scm never closes is named where it opens, inside the file.
    let prompts = env.home().join(".config/nodwyn/prompts.scm");
    write(&prompts, "(define (x) 1)\n\n(define (y)\n  (+ 1 2)\n");
    let refused = env.nodwyn(&repo, &["prompt"]).refused();
    assert!(refused.contains("prompts.scm:3:1"), "{refused}");
    assert!(refused.contains("never closed"), "{refused}");
    std::fs::remove_file(&prompts).unwrap();

    let made = env.new_worktree(&repo);
    let id = made["id"].as_str().unwrap();
    // Don't ask needs a terminal, and says so.
    let refused = env.nodwyn(&repo, &["session", "dont-ask", id]).refused();
    assert!(refused.contains("needs a terminal"), "{refused}");
    // A restore into a folder that does not exist says which folder.
    env.turn_dont_ask_on(&repo, id);
    for content in ["one", "two"] {
        env.nodwyn(
            &repo,
            &[
                "call",
                "--session",
                id,
                "fs-write",
                &format!("[\"a.txt\", \"{content}\"]"),
            ],
        )
        .success();
    }
    let missing = env.root().join("missing/a.txt");
    let refused = env
        .nodwyn(
            &repo,
            &[
                "versions",
                "restore",
                id,
                "1",
                "--to",
                missing.to_str().unwrap(),
            ],
        )
        .refused();
    assert!(
        refused.contains(&format!(
            "the folder {} does not exist",
            env.root().join("missing").display()
        )),
        "{refused}"
    );
}

#[test]
fn a_name_that_is_not_utf8_is_shown_as_git_quotes_it_and_taken_back() {
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let made = env.new_worktree(&repo);
    let (id, path) = (
        made["id"].as_str().unwrap(),
        std::path::PathBuf::from(made["path"].as_str().unwrap()),
    );
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(path.join(name), "one\ntwo\n").unwrap();
    let review = env.nodwyn_json(&repo, &["worktree", "diff", id]);
    let file = &review["files"][0];
    assert_eq!(file["path"], "\"caf\\351.txt\"", "{review}");
    assert_eq!(file["added"], 2, "{review}");
    assert!(
        file["hunks"].to_string().contains("+two"),
        "its diff is shown: {review}"
    );
    let human = env.nodwyn(&repo, &["worktree", "diff", id]).success();
    assert!(
        human.stdout.contains("\"caf\\351.txt\""),
        "{}",
        human.stdout
    );
    env.turn_dont_ask_on(&repo, id);
    let read = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                id,
                "fs-read",
                "[\"\\\"caf\\\\351.txt\\\"\"]",
                "--json",
            ],
        )
        .success()
        .json();
    assert_eq!(read["result"]["content"], "one\ntwo\n", "{read}");
    let listed = env
        .nodwyn(
            &repo,
            &["call", "--session", id, "fs-list", "[\".\"]", "--json"],
        )
        .success()
        .json();
    assert!(listed.to_string().contains("caf\\\\351.txt"), "{listed}");
    // Landing moves such names too: main gains one meanwhile, and the worktree follows.
    let theirs = std::ffi::OsStr::from_bytes(b"na\xefve.txt");
    std::fs::write(repo.join(theirs), "theirs\n").unwrap();
    env.commit_all(&repo, "a name that is not UTF-8 on main");
    env.nodwyn_json(&repo, &["land", id, "-m", "cafe"]);
    assert_eq!(std::fs::read(path.join(theirs)).unwrap(), b"theirs\n");
    assert_eq!(std::fs::read(path.join(name)).unwrap(), b"one\ntwo\n");
    assert_eq!(env.git(&path, &["status", "--porcelain"]), "");
}

#[test]
fn refusals_carry_a_stable_code_a_program_can_act_on() {
    let env = TestEnv::new();
    let (repo, _remote) = env.repo_with_remote("repo");
    let (id, wt) = env.session(&repo);
    let kind = |args: &[&str]| -> String {
        let run = env.nodwyn(&repo, args);
        assert_ne!(run.code, 0, "{}", run.stderr);
        let document: Value = serde_json::from_str(&run.stdout).unwrap();
        document["error"]["kind"].as_str().unwrap().to_owned()
    };
    // A question with nobody at a terminal to answer it.
    let args = serde_json::json!({"path": "a.txt", "content": "a"}).to_string();
    assert_eq!(
        kind(&["--json", "call", "--session", &id, "fs-write", &args]),
        "needs_person"
    );
    // A credential on its way out.
    std::fs::write(
        wt.join("config.txt"),
        format!("token = {}\n", crate::land::token()),
    )
    .unwrap();
    assert_eq!(
        kind(&["--json", "land", &id, "-m", "config"]),
        "credential_refused"
    );
}

#[test]
fn each_error_has_a_code_of_its_own_and_bad_input_exits_2() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let kind = |args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = env.nodwyn(&repo, &all);
        let document: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", run.stdout));
        (
            run.code,
            document["error"]["kind"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    assert_eq!(kind(&["completions", "bash"]), (2, "usage".to_owned()));
    let (id, _) = env.session(&repo);
    assert_eq!(
        kind(&["call", "--session", &id, "fs-read", "{not json"]),
        (2, "bad_arguments".to_owned())
    );
    assert_eq!(kind(&["run", "hello"]), (1, "no_model".to_owned()));
    assert_eq!(
        kind(&["allow", "push", "not a url"]),
        (2, "bad_url".to_owned())
    );
}

#[test]
fn outside_a_repository_a_listing_says_how_to_name_one() {
    let env = TestEnv::new();
    let plain = env.root().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    for args in [&["session", "list"][..], &["worktree", "list"]] {
        let refused = env.nodwyn(&plain, args).failed_with(1);
        assert!(
            refused.contains("is not in a git repository") && refused.contains("--repo DIR"),
            "{args:?}: {refused}"
        );
    }
}
