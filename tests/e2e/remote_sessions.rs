//! Remote sessions: a runner simulated on this machine (a clone of the person's remote in a
//! temporary folder with a HOME and data directory of its own) runs `nodwyn run --headless
//! --push-branch --export` against a real bare remote with the stand-in model; the person's
//! repository imports each export, reviews it and lands it. Besides: a question declined with
//! exit 3, a run refused where commands cannot be confined, a push to a URL nobody allowed, and
//! altered exports refused.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, write};
use serde_json::{Value, json};

/// A runner: its own environment, and a clone of `remote` in it whose allow.toml (the
/// workflow's own configuration, untracked) lets the agent write its files and, when `allowed`,
/// names `remote` as a push URL.
fn runner(remote: &Path, allowed: bool) -> (TestEnv, PathBuf) {
    let runner = TestEnv::new();
    let checkout = runner.root().join("checkout");
    runner.git(
        &runner.root(),
        &["clone", "-q", remote.to_str().unwrap(), "checkout"],
    );
    let push = match allowed {
        true => format!("push = [\"{}\"]\n", remote.display()),
        false => String::new(),
    };
    write(
        &checkout.join(".nodwyn/allow.toml"),
        &format!("{push}writes = [\"**\"]\n"),
    );
    write(&checkout.join(".git/info/exclude"), "/.nodwyn/allow.toml\n");
    (runner, checkout)
}

/// `nodwyn run --headless ...` on `runner` as GitHub Actions would run it (run id `run`).
fn headless(
    runner: &TestEnv,
    checkout: &Path,
    run: &str,
    extra: &[&str],
    task: &str,
) -> nodwyn_tests::Run {
    let mut args = vec!["run", "--headless"];
    args.extend_from_slice(extra);
    args.push(task);
    let output = runner
        .nodwyn_command(checkout, &args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_RUN_ID", run)
        .env("GITHUB_REPOSITORY", "person/project")
        .output()
        .unwrap();
    nodwyn_tests::Run::from_output(output)
}

/// A model that writes `path` and says it is done.
fn writer(path: &str) -> StandIn {
    StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": path, "content": format!("{path}\n")}),
        ),
        openai::text("Done."),
    ])
}

/// Runs a headless session writing `path` on a fresh runner of `remote`, pushes its branch and
/// exports it; the export, copied into `home`'s folder.
pub(crate) fn remote_session(home: &TestEnv, remote: &Path, path: &str, run: &str) -> PathBuf {
    let (runner, checkout) = runner(remote, true);
    let model = writer(path);
    runner.use_model(&model);
    let export = runner.root().join("export.json");
    let ran = headless(
        &runner,
        &checkout,
        run,
        &["--push-branch", "--export", export.to_str().unwrap()],
        &format!("write {path}"),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stderr.contains("pushed nodwyn/"), "{}", ran.stderr);
    let kept = home.root().join(format!("export-{run}.json"));
    std::fs::copy(&export, &kept).unwrap();
    kept
}

pub(crate) fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn three_headless_runs_come_home_and_land_one_after_another_as_one_chain() {
    let home = TestEnv::new();
    let (repo, remote) = home.repo_with_remote("project");
    let exports: Vec<PathBuf> = ["one", "two", "three"]
        .iter()
        .enumerate()
        .map(|(n, name)| remote_session(&home, &remote, &format!("{name}.txt"), &format!("7{n}")))
        .collect();
    // Only the sessions' branches reached the remote: its main is as it was.
    let branches = home.git(&remote, &["branch", "--format=%(refname:short)"]);
    assert_eq!(
        branches
            .lines()
            .filter(|b| b.starts_with("nodwyn/"))
            .count(),
        3
    );
    assert_eq!(home.git(&remote, &["rev-list", "--count", "main"]), "1");
    // The export: the log, the base, the branch and where it ran.
    let export = read_json(&exports[0]);
    assert_eq!(export["nodwyn_export"], 1);
    assert_eq!(export["ran_on"]["runner"], "github-actions");
    assert_eq!(export["ran_on"]["run_id"], "70");
    assert_eq!(export["records"][0]["type"], "session.start");
    let types: Vec<&str> = export["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["type"].as_str())
        .collect();
    for wanted in [
        "run.headless",
        "primitive.call",
        "git.push",
        "session.close",
    ] {
        assert!(types.contains(&wanted), "{wanted} in {types:?}");
    }
    // Home: each imported, listed, readable and reviewable.
    let mut ids = Vec::new();
    for file in &exports {
        let imported = home
            .nodwyn(
                &repo,
                &["--json", "session", "import", file.to_str().unwrap()],
            )
            .success()
            .json();
        let session = &imported[0];
        assert_eq!(session["commits"], 1, "{imported}");
        assert!(Path::new(session["path"].as_str().unwrap()).is_dir());
        ids.push(session["id"].as_str().unwrap().to_owned());
    }
    let listed = home.nodwyn_json(&repo, &["worktree", "list"]);
    let states: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|w| &w["remote"])
        .collect();
    assert_eq!(states.len(), 3, "{listed}");
    assert!(
        states.iter().all(|r| r["runner"] == "github-actions"),
        "{listed}"
    );
    let events = home
        .nodwyn(&repo, &["session", "events", &ids[0]])
        .success();
    assert!(
        events.stdout.contains("session.import"),
        "{}",
        events.stdout
    );
    let diff = home.nodwyn(&repo, &["worktree", "diff", &ids[1]]).success();
    assert!(diff.stdout.contains("two.txt"), "{}", diff.stdout);
    // Resumed here, a session is this machine's work: no longer listed as remote.
    home.nodwyn(&repo, &["worktree", "resume", &ids[2]])
        .success();
    let listed = home.nodwyn_json(&repo, &["worktree", "list"]);
    let resumed = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == ids[2].as_str())
        .unwrap();
    assert!(resumed.get("remote").is_none(), "{resumed}");
    assert_eq!(resumed["open"], true);
    home.nodwyn(&repo, &["worktree", "close", &ids[2]])
        .success();
    // Landed one after another onto the newest base: the remote's main a plain chain.
    let mut args = vec!["land", "--queue"];
    args.extend(ids.iter().map(String::as_str));
    home.nodwyn(&repo, &args).success();
    assert_eq!(home.git(&remote, &["rev-list", "--count", "main"]), "4");
    assert_eq!(home.git(&remote, &["rev-list", "--merges", "main"]), "");
    let files = home.git(&remote, &["ls-tree", "--name-only", "main"]);
    for file in ["one.txt", "two.txt", "three.txt"] {
        assert!(files.contains(file), "{files}");
    }
    // Imported again: refused, nothing changed.
    let again = home
        .nodwyn(&repo, &["session", "import", exports[0].to_str().unwrap()])
        .refused();
    assert!(again.contains("here already"), "{again}");
}

#[test]
fn a_question_nobody_can_answer_is_declined_and_the_run_exits_3() {
    let home = TestEnv::new();
    let (_repo, remote) = home.repo_with_remote("project");
    let (runner, checkout) = runner(&remote, true);
    let model = StandIn::start(vec![
        openai::call("shell-exec", json!({"argv": ["touch", "made.txt"]})),
        openai::text("Could not run it."),
    ]);
    runner.use_model(&model);
    let ran = headless(&runner, &checkout, "5", &[], "make a file");
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(ran.stderr.contains("could not be asked"), "{}", ran.stderr);
    // The model heard the call was declined; nothing ran.
    let said = serde_json::to_string(&model.received().last().unwrap().body).unwrap();
    assert!(
        said.contains("declined") || said.contains("refused"),
        "{said}"
    );
    let worktrees = runner.root().join("checkout/.nodwyn/worktrees");
    let made = std::fs::read_dir(&worktrees)
        .unwrap()
        .flatten()
        .any(|w| w.path().join("made.txt").exists());
    assert!(!made);
}

#[test]
fn a_headless_run_refuses_to_start_where_commands_cannot_be_confined() {
    let home = TestEnv::new();
    let (_repo, remote) = home.repo_with_remote("project");
    // The person's configuration turned the sandbox off.
    let (unconfined, checkout) = runner(&remote, true);
    let model = writer("a.txt");
    unconfined.use_model(&model);
    let config = unconfined.home().join(".config/nodwyn/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    write(&config, &format!("{text}[sandbox]\nmode = \"off\"\n"));
    let refused = headless(&unconfined, &checkout, "1", &[], "write a.txt").refused();
    assert!(refused.contains("[sandbox] mode"), "{refused}");
    // The kernel offers no Landlock (a filter makes its system calls fail as on an old kernel).
    let (without, checkout) = runner(&remote, true);
    without.use_model(&model);
    let mut command = without.nodwyn_command(&checkout, &["run", "--headless", "write a.txt"]);
    // SAFETY: only async-signal-safe calls (prctl) run between fork and exec.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(without_landlock);
    }
    let ran = nodwyn_tests::Run::from_output(command.output().unwrap());
    let refused = ran.refused();
    assert!(refused.contains("cannot confine"), "{refused}");
    assert!(model.received().is_empty(), "the model was never called");
    assert!(
        !checkout.join(".nodwyn/worktrees").exists(),
        "no session began"
    );
}

/// Makes Landlock's system calls (444-446 on x86-64 and arm64) fail with ENOSYS in this
/// process and what it runs, as on a kernel without Landlock.
fn without_landlock() -> std::io::Result<()> {
    const LOAD_NUMBER: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_IF_AT_LEAST: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const JUMP_IF_ABOVE: u16 = 0x25; // BPF_JMP | BPF_JGT | BPF_K
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000;
    let fail = 0x0005_0000 | libc::ENOSYS as u32;
    let filter = [
        libc::sock_filter {
            code: LOAD_NUMBER,
            jt: 0,
            jf: 0,
            k: 0,
        },
        libc::sock_filter {
            code: JUMP_IF_AT_LEAST,
            jt: 0,
            jf: 2,
            k: 444,
        },
        libc::sock_filter {
            code: JUMP_IF_ABOVE,
            jt: 1,
            jf: 0,
            k: 446,
        },
        libc::sock_filter {
            code: RETURN,
            jt: 0,
            jf: 0,
            k: fail,
        },
        libc::sock_filter {
            code: RETURN,
            jt: 0,
            jf: 0,
            k: ALLOW,
        },
    ];
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: plain prctl calls with a filter that outlives them.
    #[allow(unsafe_code)]
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[test]
fn the_branch_goes_only_to_a_url_the_allow_list_names() {
    let home = TestEnv::new();
    let (_repo, remote) = home.repo_with_remote("project");
    let (runner, checkout) = runner(&remote, false);
    let model = writer("a.txt");
    runner.use_model(&model);
    let ran = headless(&runner, &checkout, "2", &["--push-branch"], "write a.txt");
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is not in the push list"),
        "{}",
        ran.stderr
    );
    let branches = home.git(&remote, &["branch", "--format=%(refname:short)"]);
    assert_eq!(branches, "main", "nothing but main on the remote");
}

#[test]
fn an_altered_export_is_refused_and_nothing_is_imported() {
    let home = TestEnv::new();
    let (repo, remote) = home.repo_with_remote("project");
    let file = remote_session(&home, &remote, "a.txt", "9");
    let original = read_json(&file);
    let forged_person = {
        let mut export = original.clone();
        let records = export["records"].as_array_mut().unwrap();
        let at = records[1]["at"].clone();
        records.insert(
            2,
            json!({"at": at, "type": "session.dont_ask", "on": true, "by": "someone", "seal": "00"}),
        );
        export
    };
    let other_runner = {
        let mut export = original.clone();
        export["ran_on"]["machine"] = json!("elsewhere");
        export
    };
    let other_head = {
        let mut export = original.clone();
        export["head"] = original["base_commit"].clone();
        export
    };
    // Another base: the work would land on a branch its run never started from.
    let other_base = {
        let mut export = original.clone();
        export["base"] = json!("release");
        export
    };
    for (name, export, code) in [
        ("forged", forged_person, "export_forged"),
        ("runner", other_runner, "export_altered"),
        ("head", other_head, "export_altered"),
        ("base", other_base, "export_altered"),
    ] {
        let path = home.root().join(format!("{name}.json"));
        write(&path, &export.to_string());
        let ran = home.nodwyn(
            &repo,
            &["--json", "session", "import", path.to_str().unwrap()],
        );
        assert_eq!(ran.code, 1, "{name}: {}", ran.stderr);
        assert_eq!(ran.json()["error"]["kind"], code, "{name}: {}", ran.stderr);
    }
    let listed = home.nodwyn_json(&repo, &["session", "list"]);
    assert_eq!(listed.as_array().unwrap().len(), 0, "{listed}");
    // An export that would land on another branch than the one the person names is refused.
    let refused = home
        .nodwyn(
            &repo,
            &[
                "session",
                "import",
                "--base",
                "release",
                file.to_str().unwrap(),
            ],
        )
        .refused();
    assert!(
        refused.contains("would land on main, not on release"),
        "{refused}"
    );
    // Several at once: each on its own; the good one comes in, the altered one is named.
    let forged = home.root().join("forged.json");
    let ran = home.nodwyn(
        &repo,
        &[
            "session",
            "import",
            forged.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("1 of 2 exports were imported"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("imported session"), "{}", ran.stderr);
    let listed = home.nodwyn_json(&repo, &["session", "list"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let branches = home.git(&repo, &["branch", "--format=%(refname:short)"]);
    assert!(branches.starts_with("main\nnodwyn/"), "{branches}");
    // Not an export at all, and a missing file: one sentence each.
    write(&home.root().join("not.json"), "{\"hello\": 1}");
    let refused = home
        .nodwyn(
            &repo,
            &[
                "session",
                "import",
                home.root().join("not.json").to_str().unwrap(),
            ],
        )
        .refused();
    assert!(refused.contains("not a nodwyn export"), "{refused}");
    let refused = home
        .nodwyn(&repo, &["session", "import", "missing.json"])
        .refused();
    assert!(refused.contains("missing.json"), "{refused}");
}

#[test]
fn reviewing_an_imported_session_resumes_it_here_and_sends_the_note() {
    let home = TestEnv::new();
    let (repo, remote) = home.repo_with_remote("project");
    let file = remote_session(&home, &remote, "draft.txt", "12");
    let imported = home
        .nodwyn(
            &repo,
            &["--json", "session", "import", file.to_str().unwrap()],
        )
        .success()
        .json();
    let id = imported[0]["id"].as_str().unwrap().to_owned();
    let model = StandIn::start(vec![openai::text("Read the note.")]);
    home.use_model(&model);
    let reviewed = home
        .nodwyn(
            &repo,
            &[
                "worktree",
                "review",
                &id,
                "--note",
                "say why draft.txt exists",
            ],
        )
        .success();
    assert!(
        reviewed.stderr.contains("resumed session"),
        "{}",
        reviewed.stderr
    );
    let said = serde_json::to_string(&model.received()[0].body).unwrap();
    assert!(said.contains("say why draft.txt exists"), "{said}");
    let listed = home.nodwyn_json(&repo, &["session", "list"]);
    assert!(listed[0].get("remote").is_none(), "{listed}");
}
