//! `nodwyn mcp` driven by a real MCP client written by others (the Python `mcp` SDK,
//! `tests/mcp/client.py`): a whole session, elicitations answered yes and no, a client that
//! cannot be asked, a call with no session, and a client killed mid-call.

use std::path::Path;

use nodwyn_tests::{TestEnv, nodwyn_binary, python_client, write};
use serde_json::{Value, json};

/// Runs the client in `dir` with `scenario` (`yes`, `no`, `none`, `hang`) and these calls.
fn client(env: &TestEnv, dir: &Path, scenario: &str, calls: Value) -> Value {
    python_client(
        env,
        dir,
        "mcp/client.py",
        &[scenario.to_owned(), calls.to_string()],
        &[],
    )
}

fn result(run: &Value, index: usize) -> (&str, bool, &str) {
    let r = &run["results"][index];
    (
        r["tool"].as_str().unwrap(),
        r["is_error"].as_bool().unwrap(),
        r["text"].as_str().unwrap(),
    )
}

#[test]
fn an_agent_works_a_whole_session_through_mcp_and_lands_on_the_remote() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    write(&repo.join(".env"), "TOKEN=hunter2-secret\n");
    write(
        &repo.join(".nodwyn/allow.toml"),
        &format!("push = [{:?}]\n", remote.to_str().unwrap()),
    );
    let run = client(
        &env,
        &repo,
        "yes",
        json!([
            ["worktree_create", {"name": "notes"}],
            ["worktree_create", {}],
            ["fs_write", {"path": "notes.txt", "content": "hello\n"}],
            ["fs_read", {"path": ".env"}],
            ["shell_exec", {"argv": ["cat", "notes.txt"]}],
            ["worktree_land", {"message": "Add notes"}],
            ["worktree_status", {}],
            ["worktree_discard", {}],
        ]),
    );
    // Every tool has a valid object schema; git-land is the surface's worktree_land.
    let tools = run["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in [
        "worktree_create",
        "worktree_land",
        "fs_read",
        "shell_exec",
        "git_diff",
        "scheme",
    ] {
        assert!(names.contains(&expected), "{names:?}");
    }
    for tool in tools {
        assert_eq!(tool["schema"]["type"], "object", "{tool}");
        assert!(tool["schema"]["properties"].is_object(), "{tool}");
    }
    let (_, failed, created) = result(&run, 0);
    assert!(!failed, "{created}");
    let created: Value = serde_json::from_str(created).unwrap();
    assert!(
        created["branch"]
            .as_str()
            .unwrap()
            .starts_with("nodwyn/notes-")
    );
    let (_, failed, text) = result(&run, 1);
    assert!(failed && text.starts_with("already_active: "), "{text}");
    assert!(!result(&run, 2).1, "{}", result(&run, 2).2);
    let (_, failed, text) = result(&run, 3);
    assert!(failed && text.starts_with("refused_by_guard: "), "{text}");
    assert!(!text.contains("hunter2"));
    let (_, failed, text) = result(&run, 4);
    assert!(!failed && text.contains("hello"), "{text}");
    let (_, failed, text) = result(&run, 5);
    assert!(!failed, "{text}");
    assert_eq!(env.git(&remote, &["show", "main:notes.txt"]), "hello");
    let (_, failed, text) = result(&run, 6);
    assert!(!failed && text.contains("\"dirty\": false"), "{text}");
    let (_, failed, text) = result(&run, 7);
    assert!(!failed, "{text}");
    assert!(!Path::new(created["path"].as_str().unwrap()).exists());

    // The person was asked through the client, and the log says so.
    let asked = run["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert!(asked[0].as_str().unwrap().contains("fs-write notes.txt"));
    assert!(asked[2].as_str().unwrap().contains("git-land"), "{asked:?}");
    let records = env.records(created["id"].as_str().unwrap());
    let approved = records
        .iter()
        .find(|r| r["type"] == "guard.decision" && r["by"] == "person")
        .unwrap();
    assert!(
        approved["why"]
            .as_str()
            .unwrap()
            .ends_with("(answered through the MCP client)"),
        "{approved}"
    );
}

#[test]
fn the_persons_no_refuses_and_a_client_that_cannot_ask_needs_a_person() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let calls = json!([
        ["fs_read", {"path": "README.md"}],
        ["worktree_create", {}],
        ["fs_write", {"path": "a.txt", "content": "a\n"}],
    ]);
    let run = client(&env, &repo, "no", calls.clone());
    let (_, failed, text) = result(&run, 0);
    assert!(failed && text.starts_with("no_active_session: "), "{text}");
    assert!(text.contains("worktree_create"), "{text}");
    let (_, failed, text) = result(&run, 2);
    assert!(failed && text.starts_with("declined: "), "{text}");
    assert_eq!(run["asked"].as_array().unwrap().len(), 1);

    let run = client(&env, &repo, "none", calls);
    let (_, failed, text) = result(&run, 2);
    assert!(failed && text.starts_with("needs_person: "), "{text}");
    assert!(run["asked"].as_array().unwrap().is_empty());

    // Outside a git repository there is no worktree to make.
    let plain = env.root().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let run = client(&env, &plain, "none", json!([["worktree_create", {}]]));
    let (_, failed, text) = result(&run, 0);
    assert!(failed && text.starts_with("not_a_git_repo: "), "{text}");
}

#[test]
fn a_client_killed_mid_call_leaves_the_session_resumable_and_nothing_lost() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join(".nodwyn/allow.toml"),
        "writes = [\"**\"]\ncommands = [[\"sleep\"]]\n",
    );
    let run = client(
        &env,
        &repo,
        "hang",
        json!([
            ["worktree_create", {}],
            ["fs_write", {"path": "kept.txt", "content": "kept\n"}],
            ["shell_exec", {"argv": ["sleep", "64.75"]}],
        ]),
    );
    let created: Value = serde_json::from_str(result(&run, 0).2).unwrap();
    let id = created["id"].as_str().unwrap();
    assert!(!result(&run, 1).1, "{}", result(&run, 1).2);

    let run = client(
        &env,
        &repo,
        "none",
        json!([
            ["worktree_resume", {"session": id}],
            ["fs_read", {"path": "kept.txt"}],
            ["worktree_discard", {}],
            ["worktree_discard", {"force": true}],
        ]),
    );
    let (_, failed, text) = result(&run, 1);
    assert!(!failed && text.contains("kept"), "{text}");
    // Discarding would lose kept.txt: refused, and forcing it needs a person.
    let (_, failed, text) = result(&run, 2);
    assert!(
        failed && text.starts_with("worktree_dirty: ") && text.contains("kept.txt"),
        "{text}"
    );
    let (_, failed, text) = result(&run, 3);
    assert!(failed && text.starts_with("needs_person: "), "{text}");
    assert!(
        Path::new(created["path"].as_str().unwrap())
            .join("kept.txt")
            .exists()
    );

    // A server of another repository cannot take the session up.
    let other = env.repo("other");
    let run = client(
        &env,
        &other,
        "none",
        json!([["worktree_resume", {"session": id}]]),
    );
    let (_, failed, text) = result(&run, 0);
    assert!(failed && text.starts_with("other_repository: "), "{text}");
    // The command the killed client left running ended with its server.
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        !std::process::Command::new("pgrep")
            .args(["-f", "^sleep 64.75$"])
            .status()
            .unwrap()
            .success()
    });
    assert!(gone, "the call's command outlived its client");
}

#[test]
fn claude_codes_own_tools_are_judged_by_the_guard_through_permission_prompt() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join(".env"), "TOKEN=hunter2-secret\n");
    let prompt = |tool: &str, input: Value| json!(["permission_prompt", {"tool_name": tool, "input": input}]);
    let run = client(
        &env,
        &repo,
        "yes",
        json!([
            prompt("Read", json!({"file_path": "README.md"})),
            ["worktree_create", {}],
            prompt("Read", json!({"file_path": ".env"})),
            prompt(
                "Edit",
                json!({"file_path": "README.md", "old_string": "hello", "new_string": "hi"})
            ),
            prompt("Bash", json!({"command": "make test"})),
            prompt("WebFetch", json!({"url": "https://example.com"})),
        ]),
    );
    let answer = |index: usize| -> Value {
        let (_, failed, text) = result(&run, index);
        assert!(!failed, "{text}");
        serde_json::from_str(text).unwrap()
    };
    assert_eq!(answer(0)["behavior"], "deny");
    assert!(
        answer(0)["message"]
            .as_str()
            .unwrap()
            .starts_with("no_active_session")
    );
    assert_eq!(answer(2)["behavior"], "deny");
    assert!(
        answer(2)["message"]
            .as_str()
            .unwrap()
            .contains("credential file")
    );
    assert_eq!(answer(3)["behavior"], "allow");
    assert_eq!(answer(3)["updatedInput"]["new_string"], "hi");
    // Claude Code's Bash runs outside nodwyn's sandbox: a security confirm, which the client
    // of the agent asking cannot answer (it could answer its own questions), so it is denied
    // without asking, saying how a person can run it.
    assert_eq!(answer(4)["behavior"], "deny");
    assert!(
        answer(4)["message"]
            .as_str()
            .unwrap()
            .contains("client of the agent asking for it cannot give"),
        "{}",
        answer(4)
    );
    let asked = run["asked"].as_array().unwrap();
    assert!(
        !asked
            .iter()
            .any(|a| a.as_str().unwrap().starts_with("nodwyn security confirm")),
        "{asked:?}"
    );
    assert_eq!(answer(5)["behavior"], "deny");
    // Judged, never run by nodwyn: the file is untouched.
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "hello\n"
    );
}

#[test]
fn install_merges_each_agents_configuration_and_keeps_what_was_there() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // What the person had.
    write(
        &repo.join(".mcp.json"),
        r#"{"mcpServers": {"other": {"command": "other-server"}}}"#,
    );
    write(
        &repo.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["WebFetch"]}, "model": "opus"}"#,
    );
    write(
        &env.home().join(".codex/config.toml"),
        "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other-server\"\n",
    );
    let mut shown = String::new();
    for (agent, scope) in [
        ("claude", "project"),
        ("codex", "user"),
        ("gemini", "project"),
        ("cursor", "user"),
    ] {
        let run = env
            .nodwyn(&repo, &["mcp", "install", agent, "--scope", scope])
            .success();
        shown.push_str(&format!(
            "$ nodwyn mcp install {agent} --scope {scope}\n{}\n",
            run.stdout
        ));
    }
    let binary = nodwyn_binary().display().to_string();
    insta::assert_snapshot!(env.normalise(&shown).replace(&binary, "[NODWYN]"));
    // The shared settings stay as the person had them; the deny rules are the person's own.
    assert_eq!(
        std::fs::read_to_string(repo.join(".claude/settings.json")).unwrap(),
        r#"{"permissions": {"deny": ["WebFetch"]}, "model": "opus"}"#
    );
    let status = env.git(&repo, &["status", "--porcelain", "--", ".claude"]);
    assert!(
        !status.contains("settings.local.json"),
        "kept out of commits: {status}"
    );
    for file in [
        repo.join(".mcp.json"),
        repo.join(".claude/settings.local.json"),
        env.home().join(".codex/config.toml"),
        repo.join(".gemini/settings.json"),
        env.home().join(".cursor/mcp.json"),
    ] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
    // Installing again changes nothing; a file that is not JSON is refused, not overwritten.
    let before = std::fs::read_to_string(repo.join(".claude/settings.local.json")).unwrap();
    env.nodwyn(&repo, &["mcp", "install", "claude"]).success();
    assert_eq!(
        std::fs::read_to_string(repo.join(".claude/settings.local.json")).unwrap(),
        before
    );
    // With nodwyn on the PATH, the shared .mcp.json names it portably.
    std::os::unix::fs::symlink(nodwyn_binary(), env.bin().join("nodwyn")).unwrap();
    env.nodwyn(&repo, &["mcp", "install", "claude"]).success();
    let servers: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(
        servers["mcpServers"]["nodwyn"],
        serde_json::json!({"command": "nodwyn", "args": ["mcp"], "type": "stdio"}),
        "{servers}"
    );
    assert!(servers["mcpServers"]["other"].is_object(), "{servers}");
    write(&repo.join(".cursor/mcp.json"), "{ not json");
    let refused = env.nodwyn(&repo, &["mcp", "install", "cursor"]).refused();
    assert!(
        refused.contains("is not JSON") && refused.contains("nothing was written"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".cursor/mcp.json")).unwrap(),
        "{ not json"
    );
    // A dry run writes nothing.
    let dry = env
        .nodwyn(
            &repo,
            &["mcp", "install", "gemini", "--scope", "user", "--dry-run"],
        )
        .success();
    assert!(dry.stdout.starts_with("would write "), "{}", dry.stdout);
    assert!(!env.home().join(".gemini/settings.json").exists());
}

#[test]
fn the_persons_judge_model_answers_before_an_mcp_client_is_asked() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let judge = nodwyn_standin::StandIn::start(vec![
        nodwyn_standin::openai::text("ALLOW: a note in the worktree"),
        nodwyn_standin::openai::text("REFUSE: not this one"),
    ]);
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        &format!(
            "[models.judge]\nbase_url = \"{}/v1\"\nname = \"judge\"\n\n[judge]\nmodel = \"judge\"\n",
            judge.url()
        ),
    );
    // The client cannot ask its person: without the judge both writes would need one.
    let run = client(
        &env,
        &repo,
        "none",
        json!([
            ["worktree_create", {}],
            ["fs_write", {"path": "a.txt", "content": "a\n"}],
            ["fs_write", {"path": "b.txt", "content": "b\n"}],
        ]),
    );
    let (_, failed, text) = result(&run, 1);
    assert!(!failed, "{text}");
    let (_, failed, text) = result(&run, 2);
    assert!(
        failed && text.starts_with("refused_by_guard: ") && text.contains("not this one"),
        "{text}"
    );
    assert!(run["asked"].as_array().unwrap().is_empty());
    assert_eq!(judge.received().len(), 2);
}

#[test]
fn an_mcp_client_cannot_take_over_the_persons_session_nor_answer_a_security_confirm() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    write(&wt.join("mine.txt"), "the person's work in progress\n");
    env.turn_dont_ask_on(&repo, &id);
    // The person's own session: not the client's to resume.
    let run = client(
        &env,
        &repo,
        "yes",
        json!([["worktree_resume", {"session": id}]]),
    );
    let (_, failed, text) = result(&run, 0);
    assert!(failed && text.starts_with("not_handed_over: "), "{text}");
    assert!(text.contains("nodwyn session hand"), "{text}");

    // Handed over by the person, it resumes, without the person's Don't ask; and the client
    // that answers its own questions cannot settle a security confirm.
    env.nodwyn_on_terminal(&repo, &["session", "hand", &id], "");
    let run = client(
        &env,
        &repo,
        "yes",
        json!([
            ["worktree_resume", {"session": id}],
            ["fs_write", {"path": "a.txt", "content": "a\n"}],
            ["fs_write", {"path": ".nodwyn/allow.toml", "content": "commands = [[\"rm\"]]\n"}],
            ["worktree_discard", {"force": true}],
        ]),
    );
    let (_, failed, text) = result(&run, 0);
    assert!(!failed && text.contains("Don't ask was on"), "{text}");
    let asked = run["asked"].as_array().unwrap();
    assert_eq!(
        asked.len(),
        1,
        "Don't ask carried over, or a security confirm was asked: {asked:?}"
    );
    assert!(!result(&run, 1).1, "{}", result(&run, 1).2);
    let (_, failed, text) = result(&run, 2);
    assert!(failed && text.starts_with("needs_person: "), "{text}");
    assert!(text.contains("cannot give"), "{text}");
    assert!(!wt.join(".nodwyn/allow.toml").exists());
    let (_, failed, text) = result(&run, 3);
    assert!(failed && text.starts_with("needs_person: "), "{text}");
    assert!(
        wt.join("mine.txt").exists(),
        "the person's work was discarded"
    );
}

#[test]
fn the_persons_always_answers_do_not_carry_over_to_an_mcp_connection() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    // The person, at a terminal, allows writes under docs/ for the rest of the session.
    let args = json!({"path": "docs/a.md", "content": "a\n"}).to_string();
    let shown = env.nodwyn_on_terminal(&repo, &["call", "--session", &id, "fs-write", &args], "a");
    assert!(shown.contains("[y/N/a]"), "{shown}");
    assert!(wt.join("docs/a.md").exists(), "{shown}");
    env.nodwyn_on_terminal(&repo, &["session", "hand", &id], "");

    // A connection the session is handed to does not inherit them: with nobody to ask there,
    // the write needs a person.
    let run = client(
        &env,
        &repo,
        "none",
        json!([
            ["worktree_resume", {"session": id}],
            ["fs_write", {"path": "docs/b.md", "content": "b\n"}],
        ]),
    );
    let (_, failed, text) = result(&run, 1);
    assert!(failed && text.starts_with("needs_person: "), "{text}");
    assert!(!wt.join("docs/b.md").exists());
    // And the connection is told.
    let (_, failed, text) = result(&run, 0);
    assert!(!failed, "{text}");
    assert!(text.contains("is asked again here"), "{text}");
}

#[test]
fn an_elicitation_shows_control_characters_and_line_breaks_escaped() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let run = client(
        &env,
        &repo,
        "no",
        json!([
            ["worktree_create", {}],
            ["shell_exec", {"argv": ["sh", "-c", "true\nnodwyn confirm, session x: fs-read README.md\n\u{1b}[2K\u{202e}"]}],
        ]),
    );
    let asked = run["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{run}");
    let message = asked[0].as_str().unwrap();
    assert_eq!(message.lines().count(), 3, "a line was forged: {message}");
    assert!(
        !message.contains('\u{1b}') && !message.contains('\u{202e}'),
        "{message}"
    );
}

#[test]
fn the_budget_of_irreversible_actions_is_the_connections_whatever_it_resumes() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("repo");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    write(
        &repo.join(".nodwyn/allow.toml"),
        &format!(
            "push = [{:?}]\nwrites = [\"**\"]\n",
            remote.to_str().unwrap()
        ),
    );
    // A session of the connection's own, closed and resumed between landings.
    let made = client(
        &env,
        &repo,
        "none",
        json!([["worktree_create", {"name": "budget"}], ["worktree_close", {}]]),
    );
    let id = serde_json::from_str::<Value>(result(&made, 0).2).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut calls = Vec::new();
    for n in 0..4 {
        calls.push(json!(["worktree_resume", {"session": id}]));
        calls.push(json!(["fs_write", {"path": format!("n{n}.txt"), "content": "n\n"}]));
        calls.push(json!(["worktree_land", {"message": format!("landing {n}")}]));
        calls.push(json!(["worktree_close", {}]));
    }
    let run = client(&env, &repo, "yes", Value::Array(calls));
    let landings: Vec<(bool, String)> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["tool"] == "worktree_land")
        .map(|r| {
            (
                r["is_error"].as_bool().unwrap(),
                r["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(landings.len(), 4, "{run}");
    assert!(
        landings[..3].iter().all(|(failed, _)| !failed),
        "{landings:?}"
    );
    assert!(landings[3].0, "a fourth landing went through: {landings:?}");
}
