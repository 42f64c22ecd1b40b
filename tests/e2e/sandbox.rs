//! `shell-exec` runs confined: the attacks of an agent holding one approved command (a `cargo
//! test` running code it wrote), each through the built binary, fail; ordinary work (git,
//! the session's files, the call's `TMPDIR`) goes on. `[sandbox] mode = "off"` in the person's
//! own configuration is the only way back to unconfined commands, and says so.

use std::path::{Path, PathBuf};

use nodwyn_tests::{TestEnv, write};
use serde_json::{Value, json};

/// A session with Don't ask on (the person approved commands for it), its id and worktree.
pub(crate) fn session(env: &TestEnv) -> (PathBuf, String, PathBuf) {
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    (repo, id, wt)
}

/// `shell-exec`'s arguments for running `script` with `sh -c`.
pub(crate) fn shell_exec(script: &str) -> String {
    json!({"argv": ["sh", "-c", script], "timeout_seconds": 20}).to_string()
}

/// Runs `script` with `sh -c` through `shell-exec`, as an agent's approved command.
pub(crate) fn run(env: &TestEnv, repo: &Path, id: &str, script: &str) -> Value {
    env.nodwyn(
        repo,
        &["call", "--session", id, "shell-exec", &shell_exec(script)],
    )
    .success()
    .json()
}

fn stderr(ran: &Value) -> &str {
    ran["stderr"].as_str().unwrap()
}

fn person_config(env: &TestEnv, text: &str) {
    write(&env.home().join(".config/nodwyn/config.toml"), text);
}

#[test]
fn a_command_cannot_reach_the_persons_switches_even_through_a_terminal() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    // The person approved `sh` commands for this repository, and nothing else.
    write(&repo.join(".nodwyn/allow.toml"), "commands = [[\"sh\"]]\n");
    let nodwyn = nodwyn_tests::nodwyn_binary().display().to_string();
    // The agent wrote this script; the approved command starts it. It waits in the background
    // for the call to end (and the session's lock to go), then answers nodwyn's questions on a
    // pseudo-terminal of its own, as if it were the person.
    write(
        &wt.join("attack.sh"),
        &format!(
            "export NODWYN_HOME='{data}'\n\
             setsid sh -c 'sleep 1\n\
               printf \"y\\n\" | script -qec \"\\\"$0\\\" session dont-ask $1\" /dev/null\n\
               printf \"y\\n\" | script -qec \"\\\"$0\\\" allow command rm\" /dev/null\n\
               touch \"$2\"' '{nodwyn}' '{id}' '{done}' >/dev/null 2>&1 &\n\
             echo started\n",
            data = env.data().display(),
            done = env.root().join("attack-done").display(),
        ),
    );
    let ran = run(&env, &repo, &id, "sh attack.sh");
    assert_eq!(ran["status"], 0, "{ran}");
    // Long enough for the background attack to have finished, had it survived the call.
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        !env.root().join("attack-done").exists(),
        "the attack outlived the call"
    );
    assert!(!env.has_record(&id, "session.dont_ask"), "{ran}");
    let allow = std::fs::read_to_string(repo.join(".nodwyn/allow.toml")).unwrap();
    assert_eq!(allow, "commands = [[\"sh\"]]\n", "{ran}");
}

#[test]
fn a_command_cannot_plant_hooks_or_change_git_configuration() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    let common = repo.join(".git");
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "printf '#!/bin/sh\\ntouch planted\\n' > '{hooks}/pre-commit'; \
             git config core.fsmonitor 'touch planted'; \
             git remote add evil /tmp/evil.git; \
             git config --file '{config}' core.hooksPath /tmp",
            hooks = common.join("hooks").display(),
            config = common.join("config").display(),
        ),
    );
    assert!(stderr(&ran).contains("Permission denied"), "{ran}");
    assert!(!common.join("hooks/pre-commit").exists(), "{ran}");
    let config = std::fs::read_to_string(common.join("config")).unwrap();
    for planted in ["fsmonitor", "evil", "hooksPath"] {
        assert!(!config.contains(planted), "{planted} in {config}");
    }
}

#[test]
fn a_command_reads_no_credential_file_and_no_other_process() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    write(&env.home().join(".ssh/id_ed25519"), "PRIVATE KEY\n");
    write(
        &env.home().join(".config/gh/hosts.yml"),
        "oauth_token: gho_x\n",
    );
    write(&env.home().join(".bashrc"), "alias ll='ls -l'\n");
    // A startup file exporting a token is a credential file; one with aliases is not.
    write(
        &env.home().join(".zshrc"),
        &format!(
            "export GITHUB_TOKEN=ghp_{}\n",
            "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z4A"
        ),
    );
    // Everything here lives under /tmp, which a command cannot list but reads by name.
    let shared = env.root().join("shared-note.txt");
    write(&shared, "read by its name\n");
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "cat ~/.ssh/id_ed25519; cat ~/.config/gh/hosts.yml; cat /proc/{}/environ; \
             cat /proc/1/cmdline; ls /tmp; cat ~/.bashrc; cat ~/.zshrc; cat '{}'; ls -a ~ ~/.ssh",
            // Another process of the person's (this test's): its environment is not to be read.
            std::process::id(),
            shared.display()
        ),
    );
    let out = ran["stdout"].as_str().unwrap();
    assert!(out.contains("read by its name"), "{ran}");
    // Folders holding a credential file are still listed: a name is not its content.
    assert!(
        out.contains(".bashrc") && out.contains("id_ed25519"),
        "{ran}"
    );
    assert!(
        !out.contains("PRIVATE KEY") && !out.contains("gho_x") && !out.contains("ghp_"),
        "{ran}"
    );
    assert!(
        out.contains("alias ll"),
        "the rest of the home folder is readable: {ran}"
    );
    for denied in [
        ".ssh/id_ed25519",
        "hosts.yml",
        "environ",
        "/proc/1/cmdline",
        "'/tmp'",
        ".zshrc",
    ] {
        assert!(
            stderr(&ran)
                .lines()
                .any(|l| l.contains(denied) && l.contains("Permission denied")),
            "{denied}: {ran}"
        );
    }
}

#[test]
fn a_command_writes_only_its_session_folder_and_its_own_temporary_folder() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "echo work > made.txt; echo tmp > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\"; \
             stat -c 'tmp mode %a' \"$TMPDIR\"; \
             echo x > '{main}/escaped.txt'; echo x > '{data}/escaped.txt'; \
             echo x > '{home}/escaped.txt'; echo x > /dev/tty; git status --short",
            main = repo.display(),
            data = env.data().display(),
            home = env.home().display(),
        ),
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("made.txt")).unwrap(),
        "work\n"
    );
    let out = ran["stdout"].as_str().unwrap();
    assert!(out.contains("tmp\n"), "{ran}");
    assert!(out.contains("tmp mode 700\n"), "the call's own: {ran}");
    assert!(out.contains("?? made.txt"), "git works inside: {ran}");
    for outside in [
        repo.join("escaped.txt"),
        env.data().join("escaped.txt"),
        env.home().join("escaped.txt"),
    ] {
        assert!(!outside.exists(), "{}: {ran}", outside.display());
    }
    assert_eq!(
        stderr(&ran).matches("Permission denied").count(),
        4,
        "the main checkout, the data directory, the home folder and the terminal: {ran}"
    );
    assert_eq!(ran["sandbox"], "on");
}

#[test]
fn a_command_reads_neither_the_main_checkout_nor_another_sessions_worktree() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    // The person's own `.env` in the main checkout, ignored by git, holding a passphrase no
    // scanner recognises; and another session's half-done work.
    write(&repo.join(".git/info/exclude"), ".env\n");
    write(
        &repo.join(".env"),
        "DB_PASSWORD=correct horse battery staple\n",
    );
    let (_other, other_wt) = env.session(&repo);
    write(
        &other_wt.join("draft.txt"),
        "another session's half-done edit\n",
    );
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "cat '{main}/.env'; cat '{other}/draft.txt'; ls '{main}'; \
             git status --short; git log --oneline | wc -l; cat README.md",
            main = repo.display(),
            other = other_wt.display(),
        ),
    );
    let out = ran["stdout"].as_str().unwrap();
    assert!(!out.contains("correct horse"), "{ran}");
    assert!(!out.contains("half-done"), "{ran}");
    assert_eq!(
        stderr(&ran).matches("Permission denied").count(),
        3,
        "the main checkout's files, the other worktree, the main checkout's listing: {ran}"
    );
    // Its own worktree, and git with the repository's history, work as before.
    assert!(out.ends_with("1\nhello\n"), "git reads the history: {ran}");
    assert!(wt.join("README.md").exists());
}

/// Whether a process whose command line holds `marker` is running.
/// Whether a process whose command line holds `marker` is running.
pub(crate) fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|line| String::from_utf8_lossy(&line).contains(marker))
    })
}

#[test]
fn nothing_a_command_starts_outlives_the_call_however_detached() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    // Unique durations, so the test finds only its own processes.
    let ran = run(
        &env,
        &repo,
        &id,
        "setsid sleep 1001.25 & nohup sleep 1001.5 >/dev/null 2>&1 & (sleep 1001.75 &); echo left",
    );
    assert_eq!(ran["status"], 0, "{ran}");
    for marker in ["1001.25", "1001.5", "1001.75"] {
        assert!(!running(marker), "sleep {marker} outlived the call");
    }
    let timed = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "shell-exec",
                &json!({"argv": ["sh", "-c", "setsid sleep 1002.25 & sleep 1002.5"], "timeout_seconds": 1})
                    .to_string(),
            ],
        )
        .success()
        .json();
    assert_eq!(timed["timed_out"], true, "{timed}");
    for marker in ["1002.25", "1002.5"] {
        assert!(!running(marker), "sleep {marker} outlived the time limit");
    }
}

#[test]
fn the_network_is_off_when_the_person_says_so_and_a_repository_cannot_say_anything() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2); print('connected')\""
    );
    let ran = run(&env, &repo, &id, &connect);
    assert!(
        ran["stdout"].as_str().unwrap().contains("connected"),
        "on by default: {ran}"
    );

    person_config(&env, "[sandbox]\nnetwork = false\n");
    let ran = run(&env, &repo, &id, &connect);
    assert!(
        !ran["stdout"].as_str().unwrap().contains("connected"),
        "{ran}"
    );
    assert!(stderr(&ran).contains("Operation not permitted"), "{ran}");
    // Nor UDP (a DNS query is enough to carry a secret out), which Landlock does not cover.
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(std::time::Duration::from_millis(500)))
        .unwrap();
    let port = udp.local_addr().unwrap().port();
    let ran = run(
        &env,
        &repo,
        &id,
        &format!(
            "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'out', ('127.0.0.1', {port}))\""
        ),
    );
    assert!(stderr(&ran).contains("Operation not permitted"), "{ran}");
    assert!(udp.recv(&mut [0; 8]).is_err(), "a datagram left: {ran}");

    // A repository's configuration may not turn it back on, or turn the sandbox off.
    write(
        &repo.join(".nodwyn/config.toml"),
        "[sandbox]\nmode = \"off\"\n",
    );
    let refused = env.nodwyn(&repo, &["worktree", "new"]).failed_with(1);
    assert!(refused.contains("only your own configuration"), "{refused}");
}

/// A Unix socket at `path` that answers every connection with `answer`, as a person's ssh-agent,
/// D-Bus or Docker would; it closes when the returned flag is set.
fn socket_answering(
    path: &Path,
    answer: &'static [u8],
) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::io::Write as _;
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.write_all(answer);
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    });
    stop
}

#[test]
fn a_command_cannot_reach_the_persons_services_through_their_unix_sockets() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    // The person's services keep sockets at paths anyone can name (`/run/user/UID/bus`, through
    // which `systemd-run --user` starts programs outside any sandbox; an ssh or gpg agent;
    // Docker's socket); Landlock does not govern connecting to one.
    let socket = env.home().join("agent.sock");
    let stop = socket_answering(&socket, b"what the person's agent would give\n");
    let connect = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print(s.recv(100))\"; \
         python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'pair'); print(b.recv(4))\"",
        socket.display()
    );
    let ran = run(&env, &repo, &id, &connect);
    let out = ran["stdout"].as_str().unwrap();
    assert!(!out.contains("person's agent"), "{ran}");
    assert!(stderr(&ran).contains("Operation not permitted"), "{ran}");
    assert!(
        out.contains("b'pair'"),
        "a socket pair joins only the command's own: {ran}"
    );

    // The person may allow them in their own configuration.
    person_config(&env, "[sandbox]\nunix_sockets = true\n");
    let ran = run(&env, &repo, &id, &connect);
    assert!(
        ran["stdout"].as_str().unwrap().contains("person's agent"),
        "{ran}"
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn with_the_sandbox_off_commands_run_unconfined_and_say_so_and_ask_mode_asks() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    person_config(&env, "[sandbox]\nmode = \"off\"\n");
    let ran = run(
        &env,
        &repo,
        &id,
        &format!("echo x > '{}/outside.txt'", repo.display()),
    );
    assert_eq!(ran["sandbox"], "off");
    assert!(repo.join("outside.txt").exists(), "{ran}");
    let events = env
        .nodwyn(&repo, &["session", "events", &id])
        .success()
        .stdout;
    assert!(events.contains("(sandbox off)"), "{events}");

    // "ask": as where the system cannot confine, each command is a security confirm, which
    // Don't ask does not answer.
    person_config(&env, "[sandbox]\nmode = \"ask\"\n");
    let refused = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "shell-exec",
                r#"{"argv": ["touch", "asked.txt"]}"#,
            ],
        )
        .refused();
    assert!(refused.contains("unconfined"), "{refused}");
    assert!(!wt.join("asked.txt").exists());
    let records = env.records(&id);
    let decision = records
        .iter()
        .rfind(|r| r["type"] == "guard.decision")
        .unwrap();
    assert_eq!(decision["answer"], "refuse", "{decision}");
}

#[test]
fn a_link_swapped_in_while_a_write_is_judged_never_sends_it_elsewhere() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (id, wt) = env.session(&repo);
    write(&repo.join(".nodwyn/allow.toml"), "writes = [\"src/**\"]\n");
    let hooks = repo.join(".git/hooks");
    let src = wt.join("src");
    // The attacker's process turns `src` into a link to the hooks folder and back, as fast as
    // it can, while the agent writes `src/pre-commit`, which the standing answer allows.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let racer = {
        let (stop, src, hooks) = (stop.clone(), src.clone(), hooks.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_dir_all(&src);
                let _ = std::os::unix::fs::symlink(&hooks, &src);
                std::thread::sleep(std::time::Duration::from_micros(700));
                let _ = std::fs::remove_file(&src);
                let _ = std::fs::create_dir(&src);
                std::thread::sleep(std::time::Duration::from_micros(700));
            }
        })
    };
    let args =
        json!({"path": "src/pre-commit", "content": "#!/bin/sh\ntouch planted\n"}).to_string();
    for _ in 0..60 {
        env.nodwyn(&repo, &["call", "--session", &id, "fs-write", &args]);
        if hooks.join("pre-commit").exists() {
            break;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    racer.join().unwrap();
    assert!(
        !hooks.join("pre-commit").exists(),
        "a write the guard judged as src/pre-commit landed in .git/hooks"
    );
}

#[test]
fn a_landing_refuses_a_git_configuration_planted_since_the_session_started() {
    let env = TestEnv::new();
    let (repo, remote) = env.repo_with_remote("shop");
    let (id, wt) = env.session(&repo);
    env.turn_dont_ask_on(&repo, &id);
    // With the sandbox off, an approved command can change the repository's configuration.
    person_config(&env, "[sandbox]\nmode = \"off\"\n");
    let marker = env.root().join("fsmonitor-ran");
    let evil = env.root().join("evil.git");
    env.git(
        &env.root(),
        &["init", "-q", "--bare", evil.to_str().unwrap()],
    );
    run(
        &env,
        &repo,
        &id,
        &format!(
            "git config core.fsmonitor 'touch {marker}'; git remote set-url --push origin '{evil}'; \
             printf '#!/bin/sh\\nexit 0\\n' > '{hooks}/pre-push'; chmod +x '{hooks}/pre-push'",
            marker = marker.display(),
            evil = evil.display(),
            hooks = repo.join(".git/hooks").display(),
        ),
    );
    let _ = std::fs::remove_file(&marker);
    write(&wt.join("feature.txt"), "work\n");

    let refused = env
        .nodwyn(&repo, &["land", &id, "-m", "Add the feature"])
        .failed_with(1);
    for named in [
        "core.fsmonitor",
        "remote.origin.pushurl",
        "hooks/pre-push",
        "--accept-config-change",
    ] {
        assert!(refused.contains(named), "{named}: {refused}");
    }
    assert!(!marker.exists(), "the planted fsmonitor ran");
    for refused in [
        env.nodwyn(&repo, &["call", "--session", &id, "git-status", "{}"])
            .refused(),
        env.nodwyn(&repo, &["worktree", "diff", &id]).failed_with(1),
    ] {
        assert!(refused.contains("core.fsmonitor"), "{refused}");
    }
    assert!(!marker.exists(), "the planted fsmonitor ran");
    let no_terminal = env
        .nodwyn(
            &repo,
            &[
                "land",
                &id,
                "-m",
                "Add the feature",
                "--accept-config-change",
            ],
        )
        .failed_with(1);
    assert!(no_terminal.contains("terminal"), "{no_terminal}");

    // The person takes the planted settings out: the landing goes, and names where it pushed.
    env.git(&repo, &["config", "--unset", "core.fsmonitor"]);
    env.git(&repo, &["config", "--unset", "remote.origin.pushurl"]);
    std::fs::remove_file(repo.join(".git/hooks/pre-push")).unwrap();
    let landed = env
        .nodwyn(&repo, &["land", &id, "-m", "Add the feature"])
        .success();
    assert!(
        landed.stdout.contains(remote.to_str().unwrap()),
        "{}",
        landed.stdout
    );

    // A change the person accepts on a terminal is the new normal.
    env.git(&repo, &["config", "alias.st", "status"]);
    write(&wt.join("more.txt"), "more\n");
    let refused = env
        .nodwyn(&repo, &["land", &id, "-m", "More"])
        .failed_with(1);
    assert!(refused.contains("alias.st"), "{refused}");
    let shown = env.nodwyn_on_terminal(
        &repo,
        &["land", &id, "-m", "More", "--accept-config-change"],
        "y",
    );
    assert!(shown.contains("alias.st was added"), "{shown}");
    assert_eq!(
        env.git(&remote, &["log", "-1", "--format=%s", "main"]),
        "More"
    );
    assert!(!marker.exists());
}

#[test]
fn a_small_crate_builds_and_runs_inside_the_sandbox() {
    let env = TestEnv::new();
    let (repo, id, wt) = session(&env);
    write(
        &wt.join("tiny/Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &wt.join("tiny/src/main.rs"),
        "fn main() { println!(\"built inside\"); }\n",
    );
    // The toolchain this test was built with; rustup's proxies find it through RUSTUP_HOME.
    let cargo = PathBuf::from(env!("CARGO"));
    let rustup_home = cargo
        .ancestors()
        .find(|folder| folder.file_name().is_some_and(|n| n == "toolchains"))
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    let mut command = env.nodwyn_command(
        &repo,
        &[
            "call",
            "--session",
            &id,
            "shell-exec",
            &json!({
                "argv": ["sh", "-c", format!("cd tiny && '{}' build --offline -q && ./target/debug/tiny", cargo.display())],
                "timeout_seconds": 300,
            })
            .to_string(),
        ],
    );
    if let Some(rustup_home) = rustup_home {
        command.env("RUSTUP_HOME", rustup_home);
    }
    let output = command.output().unwrap();
    let ran: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(ran["status"], 0, "{ran}");
    assert_eq!(ran["stdout"], "built inside\n", "{ran}");
    assert_eq!(ran["sandbox"], "on");
}

#[test]
fn the_person_may_add_writable_folders_but_not_one_over_a_credential_file() {
    let env = TestEnv::new();
    let (repo, id, _wt) = session(&env);
    let cache = env.home().join(".cache/tool");
    std::fs::create_dir_all(&cache).unwrap();
    write(&env.home().join(".ssh/id_ed25519"), "PRIVATE KEY\n");
    person_config(&env, "[sandbox]\nwritable = [\"~/.cache/tool\"]\n");
    let script = format!("echo cached > '{}/entry'", cache.display());
    let ran = run(&env, &repo, &id, &script);
    assert_eq!(ran["status"], 0, "{ran}");
    assert!(cache.join("entry").exists());

    person_config(&env, "[sandbox]\nwritable = [\"~\"]\n");
    let outcome = env.nodwyn(
        &repo,
        &[
            "--json",
            "call",
            "--session",
            &id,
            "shell-exec",
            &json!({"argv": ["sh", "-c", "touch ~/planted"]}).to_string(),
        ],
    );
    let document: Value = serde_json::from_str(&outcome.stdout).unwrap();
    let refused = outcome.failed_with(1);
    assert_eq!(
        document["error"]["kind"], "sandbox_unavailable",
        "{document}"
    );
    assert!(refused.contains("must stay hidden"), "{refused}");
    assert!(!env.home().join("planted").exists());

    person_config(&env, "[sandbox]\nwritable = [\"relative\"]\n");
    let refused = env
        .nodwyn(
            &repo,
            &[
                "call",
                "--session",
                &id,
                "shell-exec",
                r#"{"argv": ["true"]}"#,
            ],
        )
        .refused();
    assert!(refused.contains("not an absolute folder"), "{refused}");
}
