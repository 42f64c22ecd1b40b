//! `nodwyn prompt` and `nodwyn eval`: the Scheme layer through the real binary, with nodwyn's
//! prompts, a person's and a repository's overrides, a repository's init.scm approved by hash,
//! and every primitive through the guard.

use std::path::PathBuf;

use nodwyn_tests::{TestEnv, write};

fn user_prompts(env: &TestEnv) -> PathBuf {
    env.home().join(".config/nodwyn/prompts.scm")
}

#[test]
fn the_agent_is_told_the_repositorys_instructions_and_the_persons_own_first() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("AGENTS.md"),
        "Run `make check` before you finish.\n",
    );
    write(&repo.join(".gitignore"), "AGENTS.override.md\n");
    env.commit_all(&repo, "instructions");
    write(&repo.join("AGENTS.override.md"), "Answer in French.\n");
    let (id, wt) = env.session(&repo);
    // The ignored override came into the worktree without .worktreeinclude.
    assert_eq!(
        std::fs::read_to_string(wt.join("AGENTS.override.md")).unwrap(),
        "Answer in French.\n"
    );
    let prompt = env
        .nodwyn(&repo, &["prompt", "--session", &id])
        .success()
        .stdout;
    let mine = prompt
        .find("From AGENTS.override.md:\nAnswer in French.")
        .unwrap();
    let theirs = prompt
        .find("From AGENTS.md:\nRun `make check` before you finish.")
        .unwrap();
    assert!(mine < theirs, "{prompt}");
    // A prompts.scm can take the section out.
    write(
        &env.home().join(".config/nodwyn/prompts.scm"),
        "(define (instructions-section) \"\")\n",
    );
    let prompt = env
        .nodwyn(&repo, &["prompt", "--session", &id])
        .success()
        .stdout;
    assert!(!prompt.contains("make check"), "{prompt}");

    // A link in the instructions' place is not followed: the agent is not told what it points at.
    let other = env.repo("other");
    write(
        &env.home().join(".aws/credentials"),
        "[default]\nregion = x\n",
    );
    std::os::unix::fs::symlink(env.home().join(".aws/credentials"), other.join("AGENTS.md"))
        .unwrap();
    let run = env.nodwyn(&other, &["prompt"]).success();
    assert!(!run.stdout.contains("region"), "{}", run.stdout);
    assert!(run.stderr.contains("AGENTS.md is a link"), "{}", run.stderr);
}

#[test]
fn the_default_prompt_has_a_worktree_section_only_in_a_worktree_session() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    let prompt = env
        .nodwyn(&repo, &["prompt", "--session", &id])
        .success()
        .stdout;
    let branch = format!("nodwyn/{id}");
    assert!(prompt.starts_with("You are a coding agent"), "{prompt}");
    assert!(prompt.contains(&format!(
        "You work on the branch {branch} in {}",
        wt.display()
    )));
    assert!(prompt.contains("git archive HEAD | tar -x -C"), "{prompt}");
    assert!(
        prompt.contains("- git-land message [strategy] [include]:"),
        "{prompt}"
    );
    let outside = env.nodwyn(&repo, &["prompt"]).success().stdout;
    assert!(!outside.contains("Your worktree"), "{outside}");
    assert!(!outside.contains("git-land"), "{outside}");
    assert!(outside.contains("How to work:"), "{outside}");
}

#[test]
fn a_users_override_applies_everywhere() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // Kept among the person's dotfiles and linked into place, as dotfiles often are.
    let dotfile = env.home().join("dotfiles/prompts.scm");
    write(
        &dotfile,
        "(define (working-rules)\n  (lines (default-working-rules) \"- Answer in French.\"))\n",
    );
    std::fs::create_dir_all(user_prompts(&env).parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfile, user_prompts(&env)).unwrap();
    let prompt = env.nodwyn(&repo, &["prompt"]).success().stdout;
    assert!(prompt.contains("- Never write credentials"), "{prompt}");
    assert!(prompt.contains("- Answer in French.\n"), "{prompt}");
}

#[test]
fn a_repositorys_scheme_file_is_never_read_through_a_link() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let secret = env.home().join(".ssh/id_ed25519");
    write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    std::os::unix::fs::symlink(&secret, repo.join(".nodwyn/prompts.scm")).unwrap();
    let refused = env.nodwyn(&repo, &["prompt"]).refused();
    assert!(
        refused.contains("prompts.scm is a link, so it was not read"),
        "{refused}"
    );
    assert!(!refused.contains("PRIVATE KEY"), "{refused}");
}

#[test]
fn a_repositorys_override_comes_from_the_sessions_worktree() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/prompts.scm"),
        "(define (identity) \"You maintain the parser of this compiler.\")\n",
    );
    env.commit_all(&repo, "prompts");
    let (id, _) = env.session(&repo);
    let composed = env.nodwyn_json(&repo, &["prompt", "--session", &id]);
    let prompt = composed["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("You maintain the parser of this compiler.\n\nHow to work:"));
    assert_eq!(composed["loaded"][0]["kind"], "repository");
}

#[test]
fn with_both_overrides_the_repositorys_wins_and_the_users_stays() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &user_prompts(&env),
        "(define (identity) \"You are my assistant.\")\n(define (working-rules) \"- user rule\")\n",
    );
    write(
        &repo.join(".nodwyn/prompts.scm"),
        "(define (working-rules) (lines (default-working-rules) \"- repository rule\"))\n",
    );
    let composed = env.nodwyn_json(&repo, &["prompt"]);
    let prompt = composed["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("You are my assistant."), "{prompt}");
    assert!(prompt.contains("- repository rule"), "{prompt}");
    assert!(!prompt.contains("- user rule"), "{prompt}");
    let kinds: Vec<&str> = composed["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user", "repository"]);
}

#[test]
fn an_override_with_a_syntax_error_names_its_file_and_line() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let file = repo.join(".nodwyn/prompts.scm");
    write(
        &file,
        "(define (identity) \"ok\")\n\n(define (tool-section) (string-append \"a\" b))\n",
    );
    let refused = env.nodwyn(&repo, &["prompt"]).refused();
    assert!(
        refused.starts_with(&format!("nodwyn: {}:3:", file.display())),
        "{refused}"
    );
    std::fs::remove_file(&file).unwrap();
    let script = repo.join("broken.scm");
    write(&script, "(define x 1)\n(define y\n  (list 1 2)\n");
    let refused = env
        .nodwyn(&repo, &["eval", "--file", script.to_str().unwrap()])
        .refused();
    assert!(refused.contains("broken.scm:"), "{refused}");
}

#[test]
fn a_primitive_the_guard_refuses_is_a_scheme_error_with_its_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    let refused = env
        .nodwyn(
            &repo,
            &["eval", "--session", &id, "(fs-write \"a.txt\" \"x\")"],
        )
        .refused();
    assert!(
        refused.contains("fs-write a.txt was refused") && refused.contains("no terminal"),
        "{refused}"
    );
    assert!(!wt.join("a.txt").exists());
    // On a terminal the person is asked, and the answer decides.
    let shown = env.nodwyn_on_terminal(
        &repo,
        &[
            "eval",
            "--session",
            &id,
            "(field (fs-write \"a.txt\" \"x\") \"path\")",
        ],
        "y",
    );
    assert!(
        shown.contains("nodwyn confirm") && shown.contains("allow it?"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(wt.join("a.txt")).unwrap(), "x");
    // The script can catch it.
    let caught = env
        .nodwyn(
            &repo,
            &[
                "eval",
                "--session",
                &id,
                "(with-handler (lambda (e) (string-append \"caught: \" (error-object-message e))) (shell-exec \"cargo\" \"test\"))",
            ],
        )
        .success()
        .stdout;
    assert!(
        caught.starts_with("caught: shell-exec cargo test was refused"),
        "{caught}"
    );
    // A read inside the worktree is allowed and gives an association list.
    write(&wt.join("notes.txt"), "a note\n");
    let read = env.nodwyn_json(
        &repo,
        &["eval", "--session", &id, "(fs-read \"notes.txt\")"],
    );
    assert_eq!(read["value"]["content"], "a note\n");
    let types = env.record_types(&id);
    for expected in [
        "primitive.call",
        "guard.decision",
        "primitive.result",
        "scheme.eval",
    ] {
        assert!(types.iter().any(|t| t == expected), "{types:?}");
    }
}

#[test]
fn a_runaway_loop_is_stopped_and_the_session_goes_on() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, _) = env.session(&repo);
    let refused = env
        .nodwyn(
            &repo,
            &[
                "eval",
                "--session",
                &id,
                "--time-limit",
                "0.5",
                "(let loop () (loop))",
            ],
        )
        .refused();
    assert!(
        refused.contains("stopped after 0.5 s of Scheme time"),
        "{refused}"
    );
    let records = env.records(&id);
    let last = records.last().unwrap();
    assert_eq!(last["type"], "scheme.eval");
    assert_eq!(last["ok"], false);
    let after = env
        .nodwyn(
            &repo,
            &["eval", "--session", &id, "(field (worktree) \"branch\")"],
        )
        .success()
        .stdout;
    assert_eq!(after.trim(), format!("nodwyn/{id}"));
}

#[test]
fn init_scm_runs_only_once_a_person_approved_its_content() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/init.scm"),
        "(define (strategy-version) \"v1\")\n\
         (define-agent 'reviewer \"Review; change nothing.\")\n\
         ;; A procedure of the strategy's own, composed from a primitive.\n\
         (define (readme-shout) (string-upcase (field (fs-read \"README.md\") \"content\")))\n\
         (define (strategy-write) (fs-write \"s.txt\" \"x\"))\n",
    );
    env.commit_all(&repo, "strategy");
    let (id, wt) = env.session(&repo);
    // No terminal: it does not run, and the note says how to approve it.
    let run = env
        .nodwyn(&repo, &["eval", "--session", &id, "(agents)"])
        .success();
    assert_eq!(run.stdout.trim(), "()");
    assert!(
        run.stderr.contains("init.scm was not run"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("on a terminal"), "{}", run.stderr);
    // Declined on a terminal: still not run.
    let shown = env.nodwyn_on_terminal(&repo, &["eval", "--session", &id, "(agents)"], "n");
    assert!(shown.contains("run it?"), "{shown}");
    assert!(shown.contains("| (define (strategy-version)"), "{shown}");
    assert!(shown.contains("you declined it"), "{shown}");
    // Approved on a terminal: it runs, and from then on without asking.
    let shown = env.nodwyn_on_terminal(
        &repo,
        &["eval", "--session", &id, "(strategy-version)"],
        "y",
    );
    assert!(shown.contains("v1"), "{shown}");
    assert!(env.has_record(&id, "strategy.approve"));
    let again = env
        .nodwyn(&repo, &["eval", "--session", &id, "(strategy-version)"])
        .success();
    assert_eq!(again.stdout.trim(), "v1");
    assert!(!again.stderr.contains("not run"), "{}", again.stderr);
    let shout = env
        .nodwyn(&repo, &["eval", "--session", &id, "(readme-shout)"])
        .success();
    assert_eq!(shout.stdout, "HELLO\n\n");
    // Approving the strategy approves none of its calls: a write still needs a person.
    let refused = env
        .nodwyn(&repo, &["eval", "--session", &id, "(strategy-write)"])
        .refused();
    assert!(refused.contains("fs-write s.txt was refused"), "{refused}");
    assert!(!wt.join("s.txt").exists());
    let agent = env
        .nodwyn(&repo, &["prompt", "--session", &id, "--agent", "reviewer"])
        .success()
        .stdout;
    assert!(agent.contains("Review; change nothing."), "{agent}");
    // Changed content is asked about again.
    write(
        &wt.join(".nodwyn/init.scm"),
        "(define (strategy-version) \"v2\")\n",
    );
    let changed = env
        .nodwyn(&repo, &["eval", "--session", &id, "(strategy-version)"])
        .refused();
    assert!(changed.contains("strategy-version"), "{changed}");
    let shown = env.nodwyn_on_terminal(
        &repo,
        &["eval", "--session", &id, "(strategy-version)"],
        "y",
    );
    assert!(shown.contains("run it?") && shown.contains("v2"), "{shown}");
}

#[test]
fn on_session_start_runs_when_a_worktree_session_starts() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/init.scm"),
        "(define (on-session-start) (fs-read \"README.md\"))\n",
    );
    env.commit_all(&repo, "strategy");
    let (first, _) = env.session(&repo);
    assert!(!env.has_record(&first, "primitive.call"));
    // Approving it once (by its content) lets the next session's start run it.
    env.nodwyn_on_terminal(&repo, &["prompt", "--session", &first], "y");
    let (second, _) = env.session(&repo);
    let records = env.records(&second);
    let call = records
        .iter()
        .find(|r| r["type"] == "primitive.call")
        .expect("on-session-start called a primitive");
    assert_eq!(call["primitive"], "fs-read");
    // A hook that only a prompts file defines does not run, even with the strategy approved.
    let (third, wt) = env.session(&repo);
    write(
        &wt.join(".nodwyn/init.scm"),
        "(define (strategy-version) 1)\n",
    );
    write(
        &wt.join(".nodwyn/prompts.scm"),
        "(define (on-session-start) (fs-read \"README.md\"))\n",
    );
    env.commit_all(&wt, "a hook in the prompts file");
    env.nodwyn_on_terminal(&repo, &["prompt", "--session", &third], "y");
    // A sibling of that worktree starts from its commit, with the same (approved) files.
    let (fourth, _) = env.session(&wt);
    assert!(
        !env.has_record(&fourth, "primitive.call"),
        "a prompts file's hook ran"
    );
}

#[test]
fn a_strategy_cannot_write_standing_answers_or_turn_dont_ask_on() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, _) = env.session(&repo);
    let (other, _) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let allow = repo.join(".nodwyn/allow.toml");
    let refused = env
        .nodwyn(
            &repo,
            &[
                "eval",
                "--session",
                &id,
                &format!("(fs-write \"{}\" \"[shell]\")", allow.display()),
            ],
        )
        .refused();
    assert!(refused.contains("standing answers"), "{refused}");
    assert!(!allow.exists());
    // Under Don't ask the shell runs, but turning Don't ask on needs a terminal it does not have.
    let ran = env.nodwyn_json(
        &repo,
        &[
            "eval",
            "--session",
            &id,
            &format!(
                "(shell-exec \"{}\" \"session\" \"dont-ask\" \"{other}\")",
                nodwyn_tests::nodwyn_binary().display()
            ),
        ],
    );
    assert_eq!(ran["value"]["status"], 1, "{ran}");
    let said = ran["value"]["stderr"].as_str().unwrap();
    assert!(said.contains("only taken on a terminal"), "{said}");
    assert!(
        !env.has_record(&other, "session.dont_ask"),
        "the other session's Don't ask was turned on"
    );
}

#[test]
fn a_script_reads_nothing_from_standard_input() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let run = env
        .nodwyn_with_stdin(
            &repo,
            &[
                "eval",
                "--json",
                "(read-line-from-port (current-input-port))",
            ],
            "typed by the person\n",
        )
        .success();
    assert!(
        !run.stdout.contains("typed by the person"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_panic_inside_steel_is_one_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // steel negates without checking; with overflow checks on (as in this test build) it panics.
    let run = env.nodwyn(&repo, &["eval", "(abs -9223372036854775808)"]);
    if cfg!(debug_assertions) {
        let refused = run.refused();
        assert_eq!(
            refused.trim_end(),
            "nodwyn: the Scheme engine failed (steel panicked: attempt to negate with overflow); nothing more runs in it"
        );
    }
}

#[test]
fn bad_input_gets_one_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let refused = env
        .nodwyn(&repo, &["eval", "--time-limit", "0", "(+ 1 2)"])
        .refused();
    assert!(refused.contains("--time-limit 0"), "{refused}");
    let refused = env
        .nodwyn(&repo, &["eval", "--session", "deadbeef", "(+ 1 2)"])
        .refused();
    assert!(
        refused.contains("no session has the id or name deadbeef"),
        "{refused}"
    );
    let refused = env
        .nodwyn(&repo, &["eval", "(require \"/etc/passwd\")"])
        .refused();
    assert!(refused.contains("`require` is not available"), "{refused}");
    let refused = env
        .nodwyn(&repo, &["eval", "(fs-read \"README.md\")"])
        .refused();
    assert!(refused.contains("give --session ID"), "{refused}");
    let refused = env
        .nodwyn(&repo, &["prompt", "--agent", "nobody"])
        .refused();
    assert!(refused.contains("no sub-agent `nobody`"), "{refused}");
    let refused = env
        .nodwyn_with_stdin(&repo, &["eval", "--file", "-"], "(define x 1)\n(car x)\n")
        .refused();
    assert!(refused.starts_with("nodwyn: <stdin>:2:2: "), "{refused}");
    let refused = env
        .nodwyn(&repo, &["eval", "--file", "/nonexistent.scm"])
        .refused();
    assert!(
        refused.contains("could not read /nonexistent.scm"),
        "{refused}"
    );
}

#[test]
fn a_repositorys_prompts_only_read_even_under_dont_ask() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/prompts.scm"),
        "(define (identity) (string-append \"About: \" (field (fs-read \"README.md\") \"content\")))\n\
         (define (tool-section) (begin (fs-write \"pwned.txt\" \"x\") \"\"))\n",
    );
    env.commit_all(&repo, "prompts");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    let refused = env.nodwyn(&repo, &["prompt", "--session", &id]).refused();
    assert!(
        refused.contains("fs-write cannot run here")
            && refused.contains("only primitives that read"),
        "{refused}"
    );
    assert!(!wt.join("pwned.txt").exists());
    // Reading is fine: without the writing part the prompt composes.
    write(
        &wt.join(".nodwyn/prompts.scm"),
        "(define (identity) (string-append \"About: \" (field (fs-read \"README.md\") \"content\")))\n",
    );
    let prompt = env
        .nodwyn(&repo, &["prompt", "--session", &id])
        .success()
        .stdout;
    assert!(prompt.starts_with("About: hello\n"), "{prompt}");
}

#[test]
fn what_scheme_prints_goes_to_stderr_and_cannot_forge_the_json() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/prompts.scm"),
        "(display \"{\\\"prompt\\\": \\\"forged\\\"}\")\n(write-string \"more\" (current-output-port))\n",
    );
    let run = env.nodwyn(&repo, &["prompt", "--json"]).success();
    let composed = run.json();
    assert!(
        composed["prompt"]
            .as_str()
            .unwrap()
            .starts_with("You are a coding agent")
    );
    assert!(
        run.stderr.contains("{\"prompt\": \"forged\"}more"),
        "{}",
        run.stderr
    );
    let run = env
        .nodwyn(
            &repo,
            &["eval", "(begin (displayln \"working...\") (+ 40 2))"],
        )
        .success();
    assert_eq!(run.stdout, "42\n");
    assert!(run.stderr.contains("working..."), "{}", run.stderr);
}

#[test]
fn nothing_a_script_writes_reaches_stdout_ahead_of_the_json_document() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    for expression in [
        "(stdout-simple-displayln \"{\\\"forged\\\": true}\")",
        "(write-byte 123)",
        "(write-bytes (bytes 123 125))",
        "(write-u8 123)",
        "(write-bytevector (bytes 123 125))",
        "(write-string \"{}\")",
        "(display \"{}\")",
    ] {
        let run = env.nodwyn(&repo, &["eval", "--json", expression]).success();
        let document: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
            panic!(
                "{expression}: stdout is not one document ({e}): {}",
                run.stdout
            )
        });
        assert!(document["value"].is_null(), "{expression}: {document}");
    }
}

#[test]
fn a_session_whose_approved_strategy_changed_or_vanished_refuses_every_call() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let init = "(define (on-call call)\n  (if (equal? (cdr (assoc \"primitive\" call)) \"git-land\") \"no landings here\" #f))\n";
    write(&repo.join(".nodwyn/init.scm"), init);
    env.commit_all(&repo, "strategy");
    let (id, wt) = env.session(&repo);
    env.nodwyn_on_terminal(&repo, &["eval", "--session", &id, "1"], "y");
    env.turn_dont_ask_on(&repo, &id);
    let call = |args: &[&str]| {
        let mut all = vec!["call", "--session", id.as_str()];
        all.extend_from_slice(args);
        env.nodwyn(&repo, &all)
    };
    // The strategy holds: its rule refuses a landing.
    let refused = call(&["git-land", r#"["m"]"#]).refused();
    assert!(refused.contains("no landings here"), "{refused}");
    // A confined command cannot change it.
    let ran = call(&[
        "shell-exec",
        r#"{"argv": ["sh", "-c", "echo >> .nodwyn/init.scm"]}"#,
    ])
    .success()
    .json();
    assert!(
        ran["stderr"].as_str().unwrap().contains("Read-only"),
        "{ran}"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join(".nodwyn/init.scm")).unwrap(),
        init
    );
    // Changed all the same (a person's pull, an editor): every call is refused, not let through.
    write(&wt.join(".nodwyn/init.scm"), &format!("{init}\n"));
    let refused = call(&["git-land", r#"["m"]"#]).refused();
    assert!(
        refused.contains("has changed since it was approved"),
        "{refused}"
    );
    let refused = call(&["fs-read", r#"["README.md"]"#]).refused();
    assert!(refused.contains("every call is refused"), "{refused}");
    // Gone: the same.
    std::fs::remove_file(wt.join(".nodwyn/init.scm")).unwrap();
    let refused = call(&["fs-read", r#"["README.md"]"#]).refused();
    assert!(refused.contains("is gone"), "{refused}");
    // Approved again by the person, the session goes on.
    write(&wt.join(".nodwyn/init.scm"), &format!("{init}\n"));
    env.nodwyn_on_terminal(&repo, &["prompt", "--session", &id], "y");
    call(&["fs-read", r#"["README.md"]"#]).success();
}
