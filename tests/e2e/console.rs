//! `nodwyn serve --web`: the console's listener over real sockets, as a browser's neighbourhood
//! would try it. A request naming another host is refused (421, DNS rebinding), one without the
//! token (401: a cookie carrying it is no key, since browsers send a port's cookies to every
//! port), a POST or WebSocket from another origin (403), a POST a form could send (415); the
//! page comes with the headers that keep it to itself; the WebSocket, opened with the token as
//! its subprotocol, speaks nodwyn's protocol, replaying a session after a cursor; and in a real
//! Chromium a question is answered from the page.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, browser_driver, target_dir, write};
use serde_json::{Value, json};

/// A daemon serving the console; killed when dropped.
struct Console {
    child: Child,
    addr: String,
    token: String,
}

impl Drop for Console {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Console {
    /// A daemon on the default socket of `env`, serving the console.
    fn start(env: &TestEnv, dir: &Path) -> Self {
        let mut child = env
            .nodwyn_command(dir, &["serve", "--web"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut printed = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut printed)
            .unwrap();
        let url = printed
            .trim()
            .strip_prefix("console: http://")
            .unwrap_or_else(|| panic!("{printed:?}"));
        let (addr, token) = url.split_once("/#token=").unwrap();
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        assert_eq!(token.len(), 64, "{token}");
        Self {
            child,
            addr: addr.to_owned(),
            token: token.to_owned(),
        }
    }

    /// Sends `request` (its head; `Host` is the console's unless the head names one) and
    /// returns the status, the headers (lowercase names) and the body.
    fn http(&self, request: &str, body: &str) -> (u16, Vec<(String, String)>, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let host = if request.contains("\nHost: ") {
            String::new()
        } else {
            format!("Host: {}\r\n", self.addr)
        };
        let head = request.replace('\n', "\r\n");
        write!(
            stream,
            "{head}\r\n{host}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(": "))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
            .collect();
        (status, headers, body.to_owned())
    }

    /// The subprotocol that carries the token.
    fn protocol(&self) -> String {
        format!("nodwyn.{}", self.token)
    }

    /// Opens the WebSocket with `origin` and these headers, or says how it was refused.
    fn socket(
        &self,
        origin: &str,
        headers: &[(&'static str, String)],
    ) -> Result<tungstenite::WebSocket<TcpStream>, u16> {
        use tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{}/ws", self.addr)
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
        for (name, value) in headers {
            request.headers_mut().insert(*name, value.parse().unwrap());
        }
        let stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        match tungstenite::client(request, stream) {
            Ok((socket, _)) => Ok(socket),
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
                Err(response.status().as_u16())
            }
            Err(other) => panic!("{other:?}"),
        }
    }
}

/// `nodwyn run --daemon --worktree "write a note"` in `dir`, with nobody at a terminal, so its
/// question waits for a client of the daemon: the run, and its session's id.
fn waiting_run(env: &TestEnv, dir: &Path) -> (Child, String) {
    let mut running = env
        .nodwyn_command(dir, &["run", "--daemon", "--worktree", "write a note"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(running.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let session = first
        .split_whitespace()
        .find(|word| word.len() > 8 && word.contains('T') && word.contains('-'))
        .unwrap_or_else(|| panic!("{first:?}"))
        .to_owned();
    (running, session)
}

/// Runs the browser driver's `scenario` against `console`, following session `short`: what it
/// saw. Its screenshots go to `target/console-screenshots/`.
fn drive(scenario: &str, console: &Console, short: &str) -> Value {
    let driver = browser_driver();
    let shots = target_dir().join("console-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    // The driver runs beside its packages, so Node finds them; a copy of its own for each run,
    // as tests run side by side.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let script = driver
        .parent()
        .unwrap()
        .join(format!("drive-{}-{run}.mjs", std::process::id()));
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("console_client/drive.mjs"),
        &script,
    )
    .unwrap();
    let url = format!("http://{}/#token={}", console.addr, console.token);
    let output = std::process::Command::new(driver.join(".bin/node"))
        .arg(&script)
        .args([scenario, url.as_str(), short, shots.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&script);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Sends a request over `socket` and reads until its answer, keeping every notification.
fn request(
    socket: &mut tungstenite::WebSocket<TcpStream>,
    id: u64,
    method: &str,
    params: Value,
    seen: &mut Vec<Value>,
) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    socket
        .send(tungstenite::Message::Text(message.to_string().into()))
        .unwrap();
    loop {
        let tungstenite::Message::Text(text) = socket.read().unwrap() else {
            continue;
        };
        let message: Value = serde_json::from_str(text.as_str()).unwrap();
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
        seen.push(message);
    }
}

#[test]
fn the_console_refuses_what_a_web_page_could_send_and_serves_its_page_with_its_guards() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let console = Console::start(&env, &repo);

    let (status, headers, body) = console.http("GET / HTTP/1.1", "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<title>nodwyn</title>"), "{body}");
    let policy = header(&headers, "content-security-policy");
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(
        policy.contains(&format!("connect-src 'self' ws://{}", console.addr)),
        "{policy}"
    );
    assert_eq!(header(&headers, "x-frame-options"), "DENY");
    assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
    let (_, headers, _) = console.http("GET /app.js HTTP/1.1", "");
    assert!(header(&headers, "content-type").starts_with("text/javascript"));

    // DNS rebinding: a name that resolves here is still not this console's.
    let (status, headers, body) = console.http("GET / HTTP/1.1\nHost: attacker.example:80", "");
    assert_eq!(status, 421, "{body}");
    assert_eq!(
        header(&headers, "x-frame-options"),
        "DENY",
        "refusals carry the headers too"
    );

    // A POST: another origin, then a type a form can send.
    let bearer = format!("\nAuthorization: Bearer {}", console.token);
    let (status, _, _) = console.http(
        &format!(
            "POST /anything HTTP/1.1{bearer}\nOrigin: http://attacker.example\nContent-Type: application/json"
        ),
        "{}",
    );
    assert_eq!(status, 403);
    let (status, _, _) = console.http(
        &format!("POST /anything HTTP/1.1{bearer}\nContent-Type: text/plain"),
        "{}",
    );
    assert_eq!(status, 415);

    // The WebSocket: no token, a forged one, the token as a cookie (which a browser would also
    // send to a server on any other port here), another origin, then the console's own.
    let origin = format!("http://{}", console.addr);
    let protocol = |value: String| vec![("Sec-WebSocket-Protocol", value)];
    assert_eq!(console.socket(&origin, &[]).err(), Some(401));
    assert_eq!(
        console
            .socket(&origin, &protocol("nodwyn.forged".to_owned()))
            .err(),
        Some(401)
    );
    let cookie = vec![("Cookie", format!("nodwyn_console={}", console.token))];
    assert_eq!(console.socket(&origin, &cookie).err(), Some(401));
    assert_eq!(
        console
            .socket("http://attacker.example", &protocol(console.protocol()))
            .err(),
        Some(403)
    );
    assert!(
        console
            .socket(&origin, &protocol(console.protocol()))
            .is_ok()
    );
    // Every other path needs the token.
    let (status, _, _) = console.http("GET /anything HTTP/1.1", "");
    assert_eq!(status, 401);
    let (_, headers, _) = console.http("GET / HTTP/1.1", "");
    assert_eq!(
        header(&headers, "cross-origin-opener-policy"),
        "same-origin"
    );
}

#[test]
fn the_consoles_websocket_speaks_the_protocol_and_replays_after_a_cursor() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let (id, _) = env.session(&repo);
    let short = id[id.len() - 8..].to_owned();
    let console = Console::start(&env, &repo);
    let origin = format!("http://{}", console.addr);
    let mut socket = console
        .socket(&origin, &[("Sec-WebSocket-Protocol", console.protocol())])
        .unwrap();
    let mut seen = Vec::new();

    let hello = request(
        &mut socket,
        1,
        "hello",
        json!({"client": "a test's browser"}),
        &mut seen,
    );
    assert!(hello.get("result").is_some(), "{hello}");
    let listed = request(&mut socket, 2, "repository.list", json!({}), &mut seen);
    let repositories = listed["result"]["repositories"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(repositories.len(), 1, "{listed}");
    assert!(
        repositories[0].as_str().unwrap().ends_with("/project"),
        "{listed}"
    );
    let sessions = request(
        &mut socket,
        3,
        "session.list",
        json!({"repo": repositories[0]}),
        &mut seen,
    );
    let session = sessions["result"]["sessions"][0]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(session.ends_with(&short), "{sessions}");

    // After the first record, exactly the ones that follow it.
    let records = env.records(&short);
    assert!(records.len() >= 2, "{records:?}");
    let subscribed = request(
        &mut socket,
        4,
        "session.subscribe",
        json!({"session": session, "after": 1}),
        &mut seen,
    );
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    while seen.len() < records.len() - 1 {
        let tungstenite::Message::Text(text) = socket.read().unwrap() else {
            continue;
        };
        seen.push(serde_json::from_str(text.as_str()).unwrap());
    }
    let seqs: Vec<u64> = seen
        .iter()
        .filter_map(|m| m["params"]["seq"].as_u64())
        .collect();
    let expected: Vec<u64> = (2..=records.len() as u64).collect();
    assert_eq!(seqs, expected, "{seen:#?}");
}

#[test]
fn in_a_real_browser_a_question_is_answered_from_the_console_and_html_stays_text() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "<script>alert(1)</script>\n"}),
        ),
        openai::text("Wrote the note with <b>bold</b> text."),
    ]);
    env.use_model(&model);
    let console = Console::start(&env, &repo);
    // A run from another terminal, whose question waits for a client that can answer it.
    let (mut running, session) = waiting_run(&env, &repo);
    let short = &session[session.len() - 8..];

    let seen = drive("answer", &console, short);
    assert!(seen.get("failure").is_none(), "{seen:#}");
    assert_eq!(seen["errors"], json!([]), "{seen:#}");
    // The token left the address bar, and no cookie holds it; a reload connects again.
    assert!(
        !seen["addressAfterLoad"].as_str().unwrap().contains("token"),
        "{seen:#}"
    );
    assert_eq!(seen["cookies"], 0, "{seen:#}");
    assert_eq!(seen["sessionsAfterReload"], 1, "{seen:#}");
    assert_eq!(seen["followedAfterReload"], 1, "{seen:#}");
    assert_eq!(seen["folderShownWhileFollowing"], false, "{seen:#}");
    let question = seen["question"].as_str().unwrap();
    assert!(question.contains("fs-write notes.txt"), "{question}");
    assert_eq!(seen["questionsLeft"], 0, "{seen:#}");
    // In the queue before its session was followed, and once only after.
    assert_eq!(seen["queuedBeforeFollowing"], 1, "{seen:#}");
    assert_eq!(seen["questionsWhileFollowing"], 1, "{seen:#}");
    // A desktop notification named the session that waited, and what it waited on.
    let notified = seen["notified"].to_string();
    assert!(notified.contains("nodwyn: nodwyn/"), "{notified}");
    assert!(
        notified.contains("waiting for you: fs-write notes.txt"),
        "{notified}"
    );
    let conversation = seen["conversation"].as_str().unwrap();
    assert!(
        conversation.contains("Wrote the note with <b>bold</b> text."),
        "{conversation}"
    );
    assert!(
        conversation.contains("<script>alert(1)</script>"),
        "{conversation}"
    );
    assert_eq!(seen["elementsFromText"], 0, "{seen:#}");
    // Worktree events in words.
    assert!(
        conversation.contains("Made the worktree ") && conversation.contains(" on nodwyn/"),
        "{conversation}"
    );

    // The run went on with the page's answer, and the file is in the session's worktree.
    assert!(running.wait().unwrap().success());
    let written = repo.join(format!(".nodwyn/worktrees/{short}/notes.txt"));
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "<script>alert(1)</script>\n"
    );
    let decided: Vec<Value> = env
        .records(short)
        .into_iter()
        .filter(|r| r["type"] == "guard.decision")
        .collect();
    assert!(
        decided[0]["why"]
            .as_str()
            .unwrap()
            .contains("answered through nodwyn's web console"),
        "{decided:?}"
    );
}

#[test]
fn nodwyn_console_starts_a_daemon_when_none_runs_and_then_finds_it() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let repo = env.repo("project");
    let first = env.nodwyn_json(&repo, &["console", "--no-open"]);
    let published = env.data().join("console.json");
    let pid = serde_json::from_str::<Value>(&std::fs::read_to_string(&published).unwrap()).unwrap()
        ["pid"]
        .as_u64()
        .unwrap();
    // Ended however the test ends.
    struct Stop(u64);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &self.0.to_string()])
                .status();
        }
    }
    let stop = Stop(pid);
    assert_eq!(first["started"], true, "{first}");
    let url = first["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.contains("/#token="),
        "{url}"
    );
    // The page a browser is opened on leads to the address, so the token is in no command line.
    let leading = env.data().join("console.html");
    for file in [&published, &leading] {
        assert_eq!(
            std::fs::metadata(file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    assert!(std::fs::read_to_string(&leading).unwrap().contains(url));

    let again = env.nodwyn_json(&repo, &["console", "--no-open"]);
    assert_eq!(again["started"], false, "{again}");
    assert_eq!(again["url"], first["url"]);
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // Stopped, the daemon takes its address with it.
    drop(stop);
    let started = std::time::Instant::now();
    while published.exists() || leading.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "console.json stayed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_agents_command_holding_the_token_answers_no_question_through_the_console() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    // The intruder's own command is allowed by a standing answer, so nobody is asked about it.
    write(
        &repo.join(".nodwyn/allow.toml"),
        "commands = [[\"python3\"]]\n",
    );
    let asked = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text("Done."),
    ]);
    // The intruder's model is told what to run once the other session is known.
    let attacker = StandIn::start(Vec::new());
    write(
        &env.home().join(".config/nodwyn/config.toml"),
        &format!(
            "[model]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n[models.attacker]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n",
            asked.url(),
            attacker.url()
        ),
    );
    let console = Console::start(&env, &repo);
    // The session whose question waits: a run with nobody at a terminal.
    let (mut waiting, session) = waiting_run(&env, &repo);
    // Another session's agent runs the intruder, the token in hand.
    let port = console.addr.rsplit(':').next().unwrap().to_owned();
    let intruder = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("console_client/intruder.py"),
    )
    .unwrap();
    attacker.push([
        openai::call(
            "shell-exec",
            json!({"argv": ["python3", "-c", intruder, port, console.token, session]}),
        ),
        openai::text("Tried."),
    ]);
    let ran = env.nodwyn(
        &repo,
        &[
            "run",
            "--daemon",
            "--no-worktree",
            "--model",
            "attacker",
            "try it",
        ],
    );
    // The intruder reached the question and sent its answer...
    let result = &attacker.received()[1].body;
    assert!(
        result
            .to_string()
            .contains("sent an allow for fs-write notes.txt"),
        "{}\n{result:#}",
        ran.stderr
    );
    // ...which counted for nothing: nothing was written, the question still waits, and the
    // person declines it.
    let short = session[session.len() - 8..].to_owned();
    let note = repo.join(format!(".nodwyn/worktrees/{short}/notes.txt"));
    std::thread::sleep(Duration::from_millis(500));
    assert!(!note.exists(), "the intruder's allow counted");
    let origin = format!("http://{}", console.addr);
    let mut person = console
        .socket(&origin, &[("Sec-WebSocket-Protocol", console.protocol())])
        .unwrap();
    let mut seen = Vec::new();
    request(
        &mut person,
        1,
        "session.subscribe",
        json!({"session": session}),
        &mut seen,
    );
    let question = loop {
        if let Some(question) = seen.iter().find(|m| m["method"] == "approval.request") {
            break question.clone();
        }
        let tungstenite::Message::Text(text) = person.read().unwrap() else {
            continue;
        };
        seen.push(serde_json::from_str(text.as_str()).unwrap());
    };
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"decision": "decline"}});
    person
        .send(tungstenite::Message::Text(answer.to_string().into()))
        .unwrap();
    assert!(waiting.wait().unwrap().success());
    let short = &session[session.len() - 8..];
    assert!(
        !repo
            .join(format!(".nodwyn/worktrees/{short}/notes.txt"))
            .exists()
    );
    let decided: Vec<Value> = env
        .records(short)
        .into_iter()
        .filter(|r| r["type"] == "guard.decision")
        .collect();
    assert_eq!(decided[0]["answer"], "refuse", "{decided:?}");
    assert!(
        decided[0]["why"].as_str().unwrap().starts_with("declined"),
        "{decided:?}"
    );
}

#[test]
fn in_a_real_browser_a_message_sent_from_the_page_is_answered_and_its_work_landed() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text("Wrote the note."),
    ]);
    env.use_model(&model);
    let (id, _) = env.session(&repo);
    let console = Console::start(&env, &repo);
    let seen = drive("compose", &console, &id[id.len() - 8..]);
    assert!(seen.get("failure").is_none(), "{seen:#}");
    assert_eq!(seen["errors"], json!([]), "{seen:#}");
    assert_eq!(seen["messageAfterSend"], "", "{seen:#}");
    // Reloaded mid-turn: the question still waited, and the person's message was shown once.
    assert_eq!(seen["questionsAfterReload"], 1, "{seen:#}");
    assert_eq!(seen["turnsShown"], 1, "{seen:#}");
    assert!(
        seen["question"]
            .as_str()
            .unwrap()
            .contains("fs-write notes.txt"),
        "{seen:#}"
    );
    // The model got the page's message.
    let asked = model.received()[0].body.to_string();
    assert!(asked.contains("write a note"), "{asked}");
    let refused = seen["refused"].as_str().unwrap();
    assert!(refused.contains("needs a commit message"), "{refused}");
    assert!(
        seen["landed"].as_str().unwrap().contains("landed"),
        "{seen:#}"
    );
    assert_eq!(env.git(&repo, &["show", "main:notes.txt"]), "hello");
}

#[test]
fn the_pages_own_rules_pass_nodes_test_runner() {
    let node = browser_driver().join(".bin/node");
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/server/web");
    let output = std::process::Command::new(node)
        .arg("--test")
        .arg(web.join("text.test.mjs"))
        .arg(web.join("review.test.mjs"))
        .arg(web.join("words.test.mjs"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains("# fail 0"), "{said}");
    let passed: u32 = said
        .lines()
        .find_map(|line| line.strip_prefix("# pass "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    // The text rules and the review's logic (diff pairing, comment order, stale replies).
    assert!(passed >= 11, "{said}");
}

#[test]
fn connections_that_say_nothing_cannot_take_the_daemons_file_handles() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let console = Console::start(&env, &repo);
    let handles = || {
        std::fs::read_dir(format!("/proc/{}/fd", console.child.id()))
            .unwrap()
            .count()
    };
    let before = handles();
    // A process on this machine opens connection after connection, and says nothing.
    // (More than the console holds, fewer than the system queues for it.)
    let addr: std::net::SocketAddr = console.addr.parse().unwrap();
    let idle: Vec<TcpStream> = (0..150)
        .map(|_| TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let held = handles() - before;
    assert!(held <= 70, "the daemon holds {held} more handles");
    // Once they go, the console answers again.
    drop(idle);
    let (status, _, _) = console.http("GET / HTTP/1.1", "");
    assert_eq!(status, 200);
}

#[test]
fn in_a_real_browser_a_review_with_comments_reaches_the_agent_as_one_message() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    write(&repo.join("app.txt"), "one\ntwo\nthree\nfour\n");
    env.commit_all(&repo, "app");
    let (id, worktree) = env.session(&repo);
    let short = &id[id.len() - 8..];
    // Committed work in the session's branch, and a credential file beside it.
    write(&worktree.join("app.txt"), "one\nTWO\nthree\nfour\n");
    env.commit_all(&worktree, "shout two");
    write(&worktree.join(".env"), "API_TOKEN=not-for-the-page\n");
    // Meanwhile the base moved on, changing the same line.
    write(&repo.join("app.txt"), "one\n2\nthree\nfour\n");
    env.commit_all(&repo, "number two");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "first\nsecond\n"}),
        ),
        openai::text("Wrote the notes."),
        openai::text("Thanks for the review."),
    ]);
    env.use_model(&model);
    let console = Console::start(&env, &repo);
    let seen = drive("review", &console, short);
    assert!(seen.get("failure").is_none(), "{seen:#}");
    assert_eq!(seen["errors"], json!([]), "{seen:#}");
    // Not sent while the session answers, and the page says it waits.
    assert_eq!(seen["sendWhileAnswering"], "disabled", "{seen:#}");
    assert!(
        seen["waits"].as_str().unwrap().contains("waits"),
        "{seen:#}"
    );
    // The scopes: everything since the base; what is not committed; what the last turn did.
    let files = |key: &str| seen[key].as_str().unwrap().to_owned();
    assert!(files("sinceBase").contains("app.txt"), "{seen:#}");
    // The sidebar tells the commit the branch has that its base lacks.
    assert!(
        seen["sidebar"].as_str().unwrap().contains("1 ahead"),
        "{seen:#}"
    );
    assert!(files("sinceBase").contains("notes.txt"), "{seen:#}");
    assert!(!files("sinceBase").contains(".env"), "{seen:#}");
    assert!(files("uncommitted").contains("notes.txt"), "{seen:#}");
    assert!(!files("uncommitted").contains("app.txt"), "{seen:#}");
    assert!(files("lastTurn").contains("notes.txt"), "{seen:#}");
    assert!(!files("lastTurn").contains("app.txt"), "{seen:#}");
    // Beside the diff, the guard: the credential file left out, the question and its answer.
    let verdicts = seen["verdicts"].as_str().unwrap();
    assert!(verdicts.contains("Left out: .env"), "{verdicts}");
    assert!(
        verdicts.contains("You allowed: fs-write notes.txt"),
        "{verdicts}"
    );
    assert!(verdicts.contains("finds nothing"), "{verdicts}");
    // The draft outlived closing the review; two comments were kept.
    assert_eq!(
        seen["draftAfterReopening"], "half-written thought",
        "{seen:#}"
    );
    assert_eq!(seen["commentCount"], "2 comments", "{seen:#}");
    let split = seen["sideBySide"].as_str().unwrap();
    assert!(split.contains("two") && split.contains("TWO"), "{split}");
    assert_eq!(seen["reviewOpenAfterSending"], false, "{seen:#}");
    // One message with the note and both comments, in the order of file and line, the
    // unfinished draft not among them.
    let received = model.received();
    assert_eq!(received.len(), 3, "{received:?}");
    let asked = received[2].body.to_string();
    for said in [
        "Review of your changes (2 comments)",
        "Nearly there.",
        "Keep the old wording here.",
        "Say why, not <b>what</b>.",
    ] {
        assert!(asked.contains(said), "{said} not in {asked}");
    }
    assert!(!asked.contains("half-written"), "{asked}");
    let review = &asked[asked.find("Review of your changes").unwrap()..];
    assert!(
        review.find("app.txt").unwrap() < review.find("notes.txt").unwrap(),
        "{review}"
    );
    // The landing was refused in its own words, and the base kept its own change.
    let landing = seen["landing"].as_str().unwrap();
    assert!(landing.starts_with("merge_conflict: "), "{landing}");
    assert_eq!(
        env.git(&repo, &["show", "main:app.txt"]),
        "one\n2\nthree\nfour"
    );
    // Remove, with a landing stopped in the worktree, is refused in its words; the work stays.
    let removal = seen["removal"].as_str().unwrap();
    assert!(removal.starts_with("landing_in_progress: "), "{removal}");
    assert!(worktree.join("app.txt").exists(), "{removal}");
}

#[test]
fn in_a_real_browser_sessions_start_from_the_page_in_a_worktree_or_in_the_folder() {
    let env = TestEnv::new();
    let alpha = env.repo("alpha");
    let beta = env.repo("beta");
    let model = StandIn::start(vec![
        openai::call("fs-write", json!({"path": "notes.txt", "content": "a\n"})),
        openai::text("Wrote the note."),
        openai::call("fs-write", json!({"path": "notes.txt", "content": "b\n"})),
        openai::text("Wrote the note."),
    ]);
    env.use_model(&model);
    let console = Console::start(&env, &alpha);
    let folders = format!("{}|{}", alpha.display(), beta.display());
    let seen = drive("start", &console, &folders);
    assert!(seen.get("failure").is_none(), "{seen:#}");
    assert_eq!(seen["errors"], json!([]), "{seen:#}");
    assert_eq!(seen["checkedAtFirst"], json!([true, true]), "{seen:#}");
    // The first in a worktree (titled by its branch), the second in the folder itself.
    let titles = seen["titles"].as_array().unwrap();
    assert!(
        titles[0].as_str().unwrap().starts_with("nodwyn/"),
        "{seen:#}"
    );
    assert_eq!(titles[1], beta.display().to_string(), "{seen:#}");
    assert!(!alpha.join("notes.txt").exists());
    let worktrees = std::fs::read_dir(alpha.join(".nodwyn/worktrees"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("notes.txt"))
        .filter(|notes| notes.exists())
        .count();
    assert_eq!(worktrees, 1);
    assert_eq!(
        std::fs::read_to_string(beta.join("notes.txt")).unwrap(),
        "b\n"
    );
    // The tab kept "In a worktree" unchecked for the folder it was unchecked for.
    assert_eq!(seen["keptForFolder"], false, "{seen:#}");
    assert_eq!(seen["sessions"], 2, "{seen:#}");
}
