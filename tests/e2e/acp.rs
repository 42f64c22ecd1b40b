//! `nodwyn acp` driven by a real ACP client written by others (the Python
//! `agent-client-protocol` SDK, `tests/acp_client/client.py`), with the stand-in model: a thread opens a
//! worktree, a write is shown as an edit with its diff and lands in the worktree only, a question
//! declined writes nothing, a credential read is refused, a cancel ends a long command, and the
//! agent never uses the editor's files or terminals though the editor offers both.

use std::path::Path;
use std::time::{Duration, Instant};

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, python_client, write};
use serde_json::{Value, json};

fn configure(env: &TestEnv, server: &StandIn) {
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        &format!(
            "[model]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n",
            server.url()
        ),
    );
}

/// A repository `project` of `env`, and the stand-in model, configured, scripted to write
/// `notes.txt` and then say `then`; it answers while the value lives.
fn writing_a_note(env: &TestEnv, then: &str) -> (std::path::PathBuf, StandIn) {
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text(then),
    ]);
    configure(env, &model);
    (repo, model)
}

/// Runs the client in `dir`, answering questions `answer`, with `prompts`: what it recorded.
fn client(env: &TestEnv, dir: &Path, answer: &str, prompts: &[&str]) -> Value {
    client_of(env, dir, answer, prompts, &[], None)
}

/// [`client`], with `arguments` for `nodwyn acp`, loading session `loading` if given.
fn client_of(
    env: &TestEnv,
    dir: &Path,
    answer: &str,
    prompts: &[&str],
    arguments: &[&str],
    loading: Option<&str>,
) -> Value {
    let mut args = vec![answer.to_owned(), json!(prompts).to_string()];
    args.extend(arguments.iter().map(|a| (*a).to_owned()));
    let vars: Vec<(&str, &str)> = loading.map(|s| ("NODWYN_LOAD", s)).into_iter().collect();
    python_client(env, dir, "acp_client/client.py", &args, &vars)
}

/// The updates of `turn` of kind `kind`.
fn of_kind<'a>(run: &'a Value, turn: usize, kind: &str) -> Vec<&'a Value> {
    run["turns"][turn]["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// The text the agent said in `turn`.
fn said(run: &Value, turn: usize) -> String {
    of_kind(run, turn, "agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap_or_default())
        .collect()
}

#[test]
fn an_editor_thread_works_in_its_own_worktree_and_sees_each_edit_as_a_diff() {
    let env = TestEnv::new();
    let (repo, _model) = writing_a_note(&env, "Wrote the note.");
    let run = client(&env, &repo, "allow", &["write a note"]);

    assert_eq!(run["initialize"]["protocolVersion"], 1, "{run}");
    assert_eq!(
        run["initialize"]["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    // The thread's first words say where it works.
    let first = of_kind(&run, 0, "agent_message_chunk")[0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(first.contains("its own worktree"), "{first}");
    assert!(first.contains("on branch nodwyn/"), "{first}");

    let calls = of_kind(&run, 0, "tool_call");
    assert_eq!(calls.len(), 1, "{run:#}");
    assert_eq!(calls[0]["kind"], "edit");
    assert_eq!(calls[0]["title"], "fs-write notes.txt");
    let location = calls[0]["locations"][0]["path"].as_str().unwrap();
    assert!(location.contains("/.nodwyn/worktrees/"), "{location}");
    assert!(location.ends_with("/notes.txt"), "{location}");

    let done = of_kind(&run, 0, "tool_call_update")
        .into_iter()
        .find(|u| u["status"] == "completed")
        .cloned()
        .unwrap_or_else(|| panic!("{run:#}"));
    let diff = &done["content"][0];
    assert_eq!(diff["type"], "diff", "{done}");
    assert_eq!(diff["newText"], "hello\n");
    assert_eq!(diff["path"], location);
    assert!(diff.get("oldText").is_none(), "a new file: {diff}");
    assert_eq!(run["turns"][0]["stop"], "end_turn");
    assert!(said(&run, 0).contains("Wrote the note."), "{run:#}");

    // The question went to the editor's permission prompt, with nodwyn's reason.
    let permission = &run["permissions"][0];
    let options: Vec<&str> = permission["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    // A file at the top of the worktree may be allowed for the rest of the session too.
    assert_eq!(options, ["allow_once", "allow_always", "reject_once"]);
    assert_eq!(
        permission["tool_call"]["toolCallId"],
        calls[0]["toolCallId"]
    );

    // The file is in the worktree, not in the person's checkout.
    assert_eq!(std::fs::read_to_string(location).unwrap(), "hello\n");
    assert!(!repo.join("notes.txt").exists());
    assert_eq!(
        run["used"],
        json!([]),
        "the editor's fs and terminal are not used"
    );
}

#[test]
fn a_declined_question_writes_nothing_and_a_credential_read_is_refused() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    write(&repo.join(".env"), "TOKEN=hunter2-secret\n");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text("It was declined."),
        openai::call("fs-read", json!({"path": ".env"})),
        openai::text("That was refused."),
    ]);
    configure(&env, &model);
    let run = client(&env, &repo, "reject", &["write a note", "read .env"]);

    let failed = |turn: usize| -> Vec<Value> {
        of_kind(&run, turn, "tool_call_update")
            .into_iter()
            .filter(|u| u["status"] == "failed")
            .cloned()
            .collect()
    };
    let declined = failed(0);
    assert_eq!(declined.len(), 1, "{run:#}");
    assert!(
        declined[0]["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] != "diff"),
        "no diff for what did not run: {declined:?}"
    );
    let calls = of_kind(&run, 0, "tool_call");
    let location = calls[0]["locations"][0]["path"].as_str().unwrap();
    assert!(!Path::new(location).exists(), "nothing written");

    let refused = failed(1);
    assert_eq!(refused.len(), 1, "{run:#}");
    let text = refused[0]["content"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains(".env"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    // Refused by the rules: nobody was asked about it.
    assert_eq!(run["permissions"].as_array().unwrap().len(), 1, "{run:#}");
    assert_eq!(run["turns"][1]["stop"], "end_turn");
}

#[test]
fn a_cancel_ends_a_long_command_and_the_prompt_answers_cancelled() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    write(
        &repo.join(".nodwyn/allow.toml"),
        "commands = [[\"sleep\"]]\n",
    );
    // Untracked: a committed allow.toml could be anyone's, and gives no standing answer.
    let model = StandIn::start(vec![
        openai::call("shell-exec", json!({"argv": ["sleep", "97"]})),
        openai::text("Not reached."),
    ]);
    configure(&env, &model);
    // The clock starts once the client's Python is ready (made on first use).
    nodwyn_tests::mcp_python();
    let started = Instant::now();
    let run = client(&env, &repo, "cancel", &["wait a minute"]);
    assert_eq!(run["turns"][0]["stop"], "cancelled", "{run:#}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the command did not run on: {:?}",
        started.elapsed()
    );
    let ps = std::process::Command::new("pgrep")
        .args(["-f", "sleep 97"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&ps.stdout).trim().is_empty() || !ps.status.success(),
        "a sleep 97 still runs"
    );
}

#[test]
fn a_permission_request_nobody_answers_is_declined_at_the_timeout() {
    let env = TestEnv::new();
    let (repo, _model) = writing_a_note(&env, "Nobody answered.");
    // The clock starts once the client's Python is ready (made on first use).
    nodwyn_tests::mcp_python();
    let started = Instant::now();
    let run = client_of(
        &env,
        &repo,
        "ignore",
        &["write a note"],
        &["--permission-timeout", "2"],
        None,
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(run["turns"][0]["stop"], "end_turn", "{run:#}");
    let failed: Vec<&Value> = of_kind(&run, 0, "tool_call_update")
        .into_iter()
        .filter(|u| u["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{run:#}");
    let calls = of_kind(&run, 0, "tool_call");
    let location = calls[0]["locations"][0]["path"].as_str().unwrap();
    assert!(!Path::new(location).exists(), "nothing written");
    // The log says nobody answered, as a daemon's unanswered question is recorded.
    let session = run["session"].as_str().unwrap();
    let events = env.nodwyn_json(&repo, &["session", "events", session]);
    let unanswered = events
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "approval.timed_out")
        .unwrap_or_else(|| panic!("{events:#}"));
    assert!(
        unanswered["action"].as_str().unwrap().contains("notes.txt"),
        "{unanswered}"
    );
}

#[test]
fn a_thread_loaded_in_a_new_process_is_told_again_and_goes_on() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text("Wrote the note."),
        openai::text("Still here."),
    ]);
    configure(&env, &model);
    let first = client(&env, &repo, "allow", &["write a note"]);
    let session = first["session"].as_str().unwrap();

    // The editor restarted: a new `nodwyn acp` loads the thread.
    let again = client_of(&env, &repo, "allow", &["are you there"], &[], Some(session));
    let loaded = again["loaded"].as_array().unwrap();
    let kinds: Vec<&str> = loaded
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk",
            "available_commands_update"
        ],
        "{loaded:#?}"
    );
    assert_eq!(loaded[0]["content"]["text"], "write a note");
    assert_eq!(loaded[1]["kind"], "edit");
    assert_eq!(loaded[2]["status"], "completed");
    assert_eq!(loaded[3]["content"]["text"], "Wrote the note.");
    assert_eq!(again["turns"][0]["stop"], "end_turn");
    assert!(said(&again, 0).contains("Still here."), "{again:#}");
    // The model was given the thread's conversation again.
    let received = model.received();
    let asked = received.last().unwrap().body.to_string();
    assert!(asked.contains("write a note"), "{asked}");
}

#[test]
fn the_threads_commands_review_and_land_its_work_and_dont_ask_is_the_persons_choice() {
    let env = TestEnv::new();
    let (repo, model) = writing_a_note(&env, "Wrote the note.");
    let run = client(
        &env,
        &repo,
        "allow",
        &[
            "write a note",
            "/worktree",
            "/diff",
            "/review",
            "/land",
            "/land Add the note",
            "@mode dont-ask",
            "@list",
            "@mode loud",
        ],
    );

    // The thread offers nodwyn's commands and modes.
    let offered = of_kind(&run, 0, "available_commands_update");
    let names: Vec<&str> = offered[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["land", "diff", "review", "worktree"], "{run:#}");
    assert_eq!(run["opened"]["modes"]["currentModeId"], "ask", "{run:#}");
    let modes: Vec<&str> = run["opened"]["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["ask", "dont-ask"]);

    let worktree = said(&run, 1);
    assert!(worktree.contains("works in its worktree"), "{worktree}");
    assert!(worktree.contains("on branch nodwyn/"), "{worktree}");
    let diff = said(&run, 2);
    assert!(diff.starts_with("```diff\nadded notes.txt"), "{diff}");
    assert!(diff.contains("\n+hello\n"), "{diff}");
    let review = of_kind(&run, 3, "tool_call");
    assert_eq!(review[0]["kind"], "read", "{run:#}");
    assert_eq!(review[0]["title"], "review: 1 file(s) changed");
    let shown = &of_kind(&run, 3, "tool_call_update")[0]["content"][0];
    assert_eq!(shown["type"], "diff", "{shown}");
    assert_eq!(shown["newText"], "hello");
    assert!(shown["path"].as_str().unwrap().ends_with("/notes.txt"));
    assert_eq!(said(&run, 4), "Give the commit message: /land MESSAGE");

    // `/land` lands what was reviewed, by the guarded step, on the person's main.
    let landed = said(&run, 5);
    assert!(landed.contains("landed 1 commit(s)"), "{landed}");
    assert_eq!(run["turns"][5]["stop"], "end_turn");
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "hello\n"
    );
    let subject = env.git(&repo, &["log", "-1", "--format=%s", "main"]);
    assert_eq!(subject.trim(), "Add the note");
    // The commands never reached the model: two calls made the note.
    assert_eq!(model.received().len(), 2);

    // Don't ask is recorded as the person's, through this editor.
    assert_eq!(run["turns"][6]["answer"], json!({}), "{run:#}");
    let session = run["session"].as_str().unwrap();
    let events = env.nodwyn_json(&repo, &["session", "events", session]);
    let dont_ask = events
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "session.dont_ask")
        .unwrap_or_else(|| panic!("{events:#}"));
    assert_eq!(dont_ask["on"], true);
    let by = dont_ask["by"].as_str().unwrap();
    assert!(
        by.starts_with("the person, through nodwyn acp") && by.ends_with("in nodwyn-tests 0.1"),
        "{by}"
    );

    let listed = &run["turns"][7]["answer"]["sessions"];
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == session),
        "{listed}"
    );
    let refused = run["turns"][8]["answer"]["error"].as_str().unwrap();
    assert!(refused.contains("no mode \"loud\""), "{refused}");

    // Loaded again in a new process, the thread shows the mode its session is in.
    let again = client_of(&env, &repo, "allow", &[], &[], Some(session));
    assert_eq!(
        again["opened"]["modes"]["currentModeId"], "dont-ask",
        "{again:#}"
    );
}

#[test]
fn with_no_model_configured_the_first_prompt_says_how_to_configure_one() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let run = client(&env, &repo, "allow", &["hello"]);
    assert_eq!(run["turns"][0]["stop"], "end_turn", "{run:#}");
    let answer = said(&run, 0);
    assert!(
        answer.contains("nodwyn: no model is configured: add a [model] section to"),
        "{answer}"
    );
}

#[test]
fn a_folder_outside_git_is_worked_in_itself_and_the_home_folder_is_refused() {
    let env = TestEnv::new();
    let loose = env.root().join("loose");
    std::fs::create_dir_all(&loose).unwrap();
    let model = StandIn::start(vec![openai::text("Here.")]);
    configure(&env, &model);
    let run = client(&env, &loose, "allow", &["hello"]);
    let first = said(&run, 0);
    assert!(
        first.starts_with(&format!(
            "nodwyn session {} works in {} itself.",
            run["session"].as_str().unwrap(),
            loose.display()
        )),
        "{first}"
    );
    assert!(first.ends_with("Here."), "{first}");

    let home = client(&env, &env.home(), "allow", &["hello"]);
    let refused = home["refused"]
        .as_str()
        .unwrap_or_else(|| panic!("{home:#}"));
    assert!(refused.contains("home folder"), "{refused}");
}

#[test]
fn install_adds_nodwyn_to_zed_and_jetbrains_keeping_what_was_there() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let zed = env.home().join(".config/zed/settings.json");
    let jetbrains = env.home().join(".jetbrains/acp.json");
    write(
        &zed,
        r#"{"theme": "One Dark", "agent_servers": {"other": {"command": "other-agent"}}}"#,
    );
    write(
        &jetbrains,
        r#"{"default_mcp_settings": {"use_custom_mcp": true}}"#,
    );

    // A dry run writes nothing.
    let dry = env
        .nodwyn(&repo, &["acp", "install", "zed", "--dry-run"])
        .success();
    assert!(dry.stdout.contains("would write"), "{}", dry.stdout);
    assert!(!std::fs::read_to_string(&zed).unwrap().contains("nodwyn"));

    for editor in ["zed", "jetbrains"] {
        let run = env.nodwyn(&repo, &["acp", "install", editor]).success();
        assert!(run.stdout.contains("wrote"), "{}", run.stdout);
    }
    let zed_now: Value = serde_json::from_str(&std::fs::read_to_string(&zed).unwrap()).unwrap();
    assert_eq!(zed_now["theme"], "One Dark");
    assert_eq!(zed_now["agent_servers"]["other"]["command"], "other-agent");
    assert_eq!(zed_now["agent_servers"]["nodwyn"]["args"], json!(["acp"]));
    assert_eq!(zed_now["agent_servers"]["nodwyn"]["type"], "custom");
    let jet_now: Value =
        serde_json::from_str(&std::fs::read_to_string(&jetbrains).unwrap()).unwrap();
    assert_eq!(jet_now["default_mcp_settings"]["use_custom_mcp"], true);
    let command = jet_now["agent_servers"]["nodwyn"]["command"]
        .as_str()
        .unwrap();
    assert!(command.ends_with("nodwyn"), "{command}");

    // A settings file with comments is not rewritten: the sentence says what to add.
    let commented = "// Zed settings\n{\"theme\": \"One Dark\",}\n";
    write(&zed, commented);
    let said = env.nodwyn(&repo, &["acp", "install", "zed"]).failed_with(1);
    assert!(said.contains("allows comments"), "{said}");
    assert!(said.contains("\"agent_servers\""), "{said}");
    assert_eq!(std::fs::read_to_string(&zed).unwrap(), commented);
}

/// Runs `acpx` (a client by others, from npm) against `nodwyn acp` in `dir`, answering
/// permission requests as `answering` (`--approve-all`, `--deny-all`), with `--format json`:
/// its exit code and every message of the connection, in order.
fn acpx_exec(env: &TestEnv, dir: &Path, answering: &str, prompt: &str) -> (i32, Vec<Value>) {
    let agent = format!("{} acp", nodwyn_tests::nodwyn_binary().display());
    let run = nodwyn_tests::acpx(
        env,
        dir,
        &[
            "--agent", &agent, answering, "--format", "json", "exec", prompt,
        ],
    );
    let messages = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    (run.code, messages)
}

/// `messages` as JSON Lines with what changes from run to run named instead: the session's
/// id and worktree, the test's folder, the permission requests' ids and nodwyn's version.
fn golden(env: &TestEnv, messages: &[Value]) -> String {
    let session = messages
        .iter()
        .find_map(|m| m["result"]["sessionId"].as_str())
        .unwrap()
        .to_owned();
    let short = session.rsplit('-').next().unwrap().to_owned();
    let mut lines = Vec::new();
    let mut permissions = Vec::new();
    for message in messages {
        if message["method"] == "session/request_permission" {
            permissions.push(message["id"].as_str().unwrap().to_owned());
        }
        let mut line = message.to_string();
        for (number, id) in permissions.iter().enumerate() {
            line = line.replace(id, &format!("PERMISSION-{}", number + 1));
        }
        lines.push(
            line.replace(&session, "SESSION")
                .replace(&short, "ID")
                .replace(&env.root().display().to_string(), "/TMP")
                .replace(
                    &format!("\"version\":\"{}\"", env!("CARGO_PKG_VERSION")),
                    "\"version\":\"VERSION\"",
                ),
        );
    }
    lines.join("\n")
}

/// The file the thread's first tool call is about, absolute in its worktree.
fn written(messages: &[Value]) -> String {
    messages
        .iter()
        .find_map(|m| m["params"]["update"]["locations"][0]["path"].as_str())
        .unwrap_or_else(|| panic!("{messages:#?}"))
        .to_owned()
}

#[test]
fn acpx_drives_a_whole_thread_as_the_golden_transcript_shows() {
    let env = TestEnv::new();
    let (repo, _model) = writing_a_note(&env, "Wrote the note.");
    let (code, messages) = acpx_exec(&env, &repo, "--approve-all", "write a note");
    assert_eq!(code, 0, "{messages:#?}");
    insta::assert_snapshot!("acpx_approve_all", golden(&env, &messages));
    // The note is in the thread's worktree, not in the person's checkout.
    assert!(!repo.join("notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(written(&messages)).unwrap(),
        "hello\n"
    );
    // acpx offered its files and terminals; nodwyn asked for neither.
    assert_eq!(
        messages[0]["params"]["clientCapabilities"]["terminal"],
        true
    );
    let asked: Vec<&str> = messages
        .iter()
        .filter(|m| m.get("id").is_some())
        .filter_map(|m| m["method"].as_str())
        .filter(|m| m.starts_with("fs/") || m.starts_with("terminal/"))
        .collect();
    assert_eq!(asked, Vec::<&str>::new());
}

#[test]
fn acpx_denying_all_leaves_the_worktree_untouched_and_the_thread_goes_on() {
    let env = TestEnv::new();
    let (repo, _model) = writing_a_note(&env, "It was declined.");
    let (code, messages) = acpx_exec(&env, &repo, "--deny-all", "write a note");
    insta::assert_snapshot!("acpx_deny_all", golden(&env, &messages));
    let failed = messages
        .iter()
        .find(|m| m["params"]["update"]["status"] == "failed")
        .unwrap_or_else(|| panic!("{messages:#?}"));
    assert!(
        failed["params"]["update"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] != "diff"),
        "{failed}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m["result"]["stopReason"] == "end_turn"),
        "{messages:#?}"
    );
    assert!(!Path::new(&written(&messages)).exists());
    // acpx says a denied permission in its exit code.
    assert_eq!(code, 5, "{messages:#?}");
}

#[test]
fn allow_always_answers_the_rest_of_the_session_for_what_it_names_and_never_a_security_confirm() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let write_to = |path: &str| openai::call("fs-write", json!({"path": path, "content": "x\n"}));
    let model = StandIn::start(vec![
        write_to("docs/a.md"),
        write_to("docs/b.md"),
        openai::text("Wrote two."),
        write_to("notes.txt"),
        write_to(".nodwyn/allow.toml"),
        openai::text("Asked twice."),
    ]);
    configure(&env, &model);
    let run = client(&env, &repo, "always", &["write docs", "write more"]);

    let permissions = run["permissions"].as_array().unwrap();
    let offered = |at: usize| -> Vec<(String, String)> {
        permissions[at]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["kind"].as_str().unwrap().to_owned(),
                    o["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    // docs/a.md is asked, with "always" named for its folder; docs/b.md is not asked again.
    let first = offered(0);
    assert_eq!(
        first
            .iter()
            .map(|(kind, _)| kind.as_str())
            .collect::<Vec<_>>(),
        ["allow_once", "allow_always", "reject_once"],
        "{run:#}"
    );
    assert_eq!(
        first[1].1,
        "Allow writes under `docs/`, for the rest of this session"
    );
    // notes.txt is outside it, and allow.toml is a security confirm: asked, never "always".
    assert_eq!(permissions.len(), 3, "{run:#}");
    assert!(
        permissions[1]["tool_call"]["title"]
            .as_str()
            .unwrap()
            .contains("notes.txt")
    );
    let security = offered(2);
    assert!(
        security.iter().all(|(kind, _)| kind != "allow_always"),
        "{security:?}"
    );
    assert!(security[0].1.contains("security confirm"), "{security:?}");

    // Both docs were written; the log keeps the person's answer, sealed, and says who gave it.
    let calls = of_kind(&run, 0, "tool_call");
    for call in &calls {
        let path = call["locations"][0]["path"].as_str().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "x\n", "{path}");
    }
    let session = run["session"].as_str().unwrap();
    let events = env.nodwyn_json(&repo, &["session", "events", session]);
    let always: Vec<&Value> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "session.allow_always")
        .collect();
    assert_eq!(always.len(), 2, "notes.txt's answer too: {events:#}");
    assert_eq!(always[0]["write"], "docs/**");
    let by = always[0]["by"].as_str().unwrap();
    assert!(by.starts_with("the person, through nodwyn acp "), "{by}");
    assert!(by.ends_with(", in nodwyn-tests 0.1"), "{by}");
    assert!(always[0]["seal"].is_string());
    let decided: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "guard.decision" && r["action"] == "fs-write docs/b.md")
        .map(|r| r["why"].as_str().unwrap())
        .collect();
    assert_eq!(
        decided,
        ["a standing answer the person gave for this session covers it"]
    );
}

#[test]
fn the_models_reasoning_is_a_thought_and_its_refusal_a_stop_reason() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::reasoning_then("The repository is empty, so say so.", "It is empty."),
        openai::refusal("I can't help with that."),
    ]);
    configure(&env, &model);
    let run = client(&env, &repo, "allow", &["what is here", "something bad"]);

    let thought: String = of_kind(&run, 0, "agent_thought_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(thought, "The repository is empty, so say so.");
    let answer = said(&run, 0);
    assert!(answer.ends_with("It is empty."), "{answer}");
    assert!(!answer.contains("so say so"), "{answer}");
    assert_eq!(run["turns"][0]["stop"], "end_turn");

    assert_eq!(run["turns"][1]["stop"], "refusal", "{run:#}");
    assert!(said(&run, 1).contains("I can't help with that."), "{run:#}");
}

#[test]
fn a_strategys_plan_is_the_editors_plan_and_the_agent_marks_its_steps() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    write(
        &repo.join(".nodwyn/init.scm"),
        "(define-plan \"Read the task\" \"Write the note\")\n",
    );
    env.commit_all(&repo, "a strategy with a plan");
    let mark = |marks: Value| openai::call("plan", json!({ "steps": marks }));
    let model = StandIn::start(vec![
        mark(json!([{"step": 1, "status": "completed"}, {"step": 2, "status": "in_progress"}])),
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        mark(json!([{"step": 2, "status": "completed"}])),
        openai::text("Done."),
    ]);
    configure(&env, &model);
    // "allow" approves the strategy (asked as a permission) and the write.
    let run = client(&env, &repo, "allow", &["write a note"]);

    let plans: Vec<Vec<(String, String)>> = of_kind(&run, 0, "plan")
        .iter()
        .map(|update| {
            update["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|entry| {
                    (
                        entry["content"].as_str().unwrap().to_owned(),
                        entry["status"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        })
        .collect();
    let step = |name: &str, status: &str| (name.to_owned(), status.to_owned());
    assert_eq!(
        plans,
        [
            vec![
                step("Read the task", "pending"),
                step("Write the note", "pending")
            ],
            vec![
                step("Read the task", "completed"),
                step("Write the note", "in_progress")
            ],
            vec![
                step("Read the task", "completed"),
                step("Write the note", "completed")
            ],
        ],
        "{run:#}"
    );
    assert_eq!(run["turns"][0]["stop"], "end_turn");
    // The model was offered the tool, its steps numbered.
    let asked = &model.received()[0].body;
    let tool = asked["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "plan")
        .unwrap_or_else(|| panic!("{asked:#}"));
    let description = tool["function"]["description"].as_str().unwrap();
    assert!(
        description.ends_with("The plan: 1. Read the task 2. Write the note"),
        "{description}"
    );
}
