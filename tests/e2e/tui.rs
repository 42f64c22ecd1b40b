//! `nodwyn tui` in a pseudo-terminal (`script`), its screen read by a terminal emulator (the
//! `vt100` crate), which also answers the interface's question of where the cursor is, as a
//! terminal does: the chooser's first row and Enter opening a session in a new worktree whose
//! branch is in the title, a turn streaming, questions answered with `y` and `n`, Ctrl-C during a
//! long command, the daemon restarted under it with the draft kept, `--worktree --resume`
//! refused, the terminal put back after it, and the interface leaving a terminal that hung up.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nodwyn_standin::{StandIn, openai};
use nodwyn_tests::{TestEnv, nodwyn_binary, target_dir, write};
use serde_json::json;

/// How long a test waits for the screen to show something.
const WAIT: Duration = Duration::from_secs(30);

/// The window titles the interface set.
#[derive(Default)]
struct Titles(Vec<String>);

impl vt100::Callbacks for Titles {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.0.push(String::from_utf8_lossy(title).into_owned());
    }
}

/// `nodwyn tui` on a terminal of 30 rows and 100 columns.
struct Tty {
    child: Child,
    input: Arc<Mutex<ChildStdin>>,
    terminal: Arc<Mutex<vt100::Parser<Titles>>>,
    /// Every byte the program wrote.
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl Tty {
    fn start(env: &TestEnv, dir: &Path, args: &[&str]) -> Self {
        Self::start_with(env, dir, args, &[])
    }

    /// [`Tty::start`] with these environment variables besides.
    fn start_with(env: &TestEnv, dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Self {
        Self::start_after(env, dir, "", args, vars)
    }

    /// [`Tty::start_with`], the shell running `before` first.
    fn start_after(
        env: &TestEnv,
        dir: &Path,
        before: &str,
        args: &[&str],
        vars: &[(&str, &str)],
    ) -> Self {
        let mut line = format!(
            "{before}stty rows 30 cols 100; exec {} tui",
            nodwyn_binary().display()
        );
        for arg in args {
            line.push_str(&format!(" '{arg}'"));
        }
        let mut child = env
            .command(Path::new("script"), dir)
            .args(["-qec", &line, "/dev/null"])
            .env("TERM", "xterm-256color")
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script (util-linux) runs");
        let input = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let size = |n| std::num::NonZeroU16::new(n).unwrap();
        let terminal = Arc::new(Mutex::new(vt100::Parser::new_with_callbacks(
            size(30),
            size(100),
            1000,
            Titles::default(),
        )));
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let mut output = child.stdout.take().unwrap();
        let (answering, emulating, keeping) = (
            Arc::clone(&input),
            Arc::clone(&terminal),
            Arc::clone(&bytes),
        );
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n) = output.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let chunk = &buffer[..n];
                let mut all = keeping.lock().unwrap();
                let from = all.len().saturating_sub(3);
                all.extend_from_slice(chunk);
                let mut terminal = emulating.lock().unwrap();
                terminal.process(chunk);
                // A terminal answers "where is the cursor?" (`ESC [ 6 n`) at once.
                if all[from..].windows(4).any(|w| w == b"\x1b[6n") {
                    let (row, column) = terminal.screen().cursor_position();
                    let answer = format!("\x1b[{};{}R", row + 1, column + 1);
                    let _ = answering.lock().unwrap().write_all(answer.as_bytes());
                }
            }
        });
        Self {
            child,
            input,
            terminal,
            bytes,
        }
    }

    /// Types `keys` (`\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D).
    fn press(&self, keys: &str) {
        let mut input = self.input.lock().unwrap();
        input.write_all(keys.as_bytes()).unwrap();
        input.flush().unwrap();
    }

    /// What the screen shows, scrollback included.
    fn screen(&self) -> String {
        let mut terminal = self.terminal.lock().unwrap();
        let screen = terminal.screen_mut();
        screen.set_scrollback(usize::MAX);
        let mut shown = screen.contents();
        screen.set_scrollback(0);
        shown.push('\n');
        shown.push_str(&screen.contents());
        shown
    }

    /// The window's last title.
    fn title(&self) -> String {
        let terminal = self.terminal.lock().unwrap();
        terminal.callbacks().0.last().cloned().unwrap_or_default()
    }

    /// Waits until the screen shows `wanted`; what it shows then.
    #[track_caller]
    fn wait_for(&self, wanted: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(wanted) {
                return screen;
            }
            assert!(
                started.elapsed() < WAIT,
                "waited for {wanted:?}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Makes the terminal `rows` by `columns`, as a person resizing its window: the emulator's
    /// screen, and the pseudo-terminal's size (which signals the program).
    fn resize(&self, rows: u16, columns: u16) {
        self.terminal.lock().unwrap().screen_mut().set_size(
            std::num::NonZeroU16::new(rows).unwrap(),
            std::num::NonZeroU16::new(columns).unwrap(),
        );
        let pid = self.interface_pid();
        let tty = std::fs::read_link(format!("/proc/{pid}/fd/0")).unwrap();
        let status = std::process::Command::new("stty")
            .args(["-F", tty.to_str().unwrap(), "rows", &rows.to_string()])
            .args(["cols", &columns.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// The process id of `nodwyn tui` (`script`'s child).
    fn interface_pid(&self) -> u32 {
        let children = std::process::Command::new("pgrep")
            .args(["-P", &self.child.id().to_string()])
            .output()
            .unwrap();
        String::from_utf8_lossy(&children.stdout)
            .trim()
            .parse()
            .expect("script's child")
    }

    /// Keeps what the terminal shows now in `target/tui-screens/NAME.txt`, to be looked at.
    fn keep(&self, name: &str) {
        let screens = target_dir().join("tui-screens");
        std::fs::create_dir_all(&screens).unwrap();
        let shown = self.terminal.lock().unwrap().screen().contents();
        std::fs::write(screens.join(format!("{name}.txt")), shown).unwrap();
    }

    /// Waits for the program to end: its exit code.
    fn wait_exit(&mut self) -> Option<i32> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                started.elapsed() < WAIT,
                "nodwyn tui did not end:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Every byte written, as text.
    fn written(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn enter_opens_a_new_worktree_its_branch_in_the_title_and_questions_take_a_key() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "hello\n"}),
        ),
        openai::text("Wrote the note."),
        openai::call("fs-write", json!({"path": "other.txt", "content": "no\n"})),
        openai::text("Left other.txt alone."),
    ]);
    env.use_model(&model);
    // In colour (the test environment sets NO_COLOR; empty, it is unset).
    let mut tty = Tty::start_with(&env, &repo, &[], &[("NO_COLOR", "")]);
    // The chooser: a new worktree first, then the folder itself.
    let chooser = tty.wait_for("New session in a new worktree of ");
    assert!(chooser.contains("itself"), "{chooser}");
    tty.keep("chooser");
    tty.press("\r");
    let opened = tty.wait_for("· idle");
    assert!(opened.contains("nodwyn · nodwyn/"), "{opened}");
    assert!(
        tty.title().starts_with("nodwyn · nodwyn/"),
        "{}",
        tty.title()
    );
    assert!(
        opened.contains("Made the worktree") || opened.contains("session "),
        "{opened}"
    );
    // A question answered with y, then one with n.
    tty.press("write a note\r");
    tty.wait_for("The guard asks");
    tty.keep("question");
    tty.press("y");
    tty.wait_for("Wrote the note.");
    tty.wait_for("· idle");
    tty.press("write another\r");
    tty.wait_for("fs-write other.txt");
    tty.press("n");
    tty.wait_for("Left other.txt alone.");
    // The branch in the title names the worktree the note went to; the declined write is not.
    let branch = tty.title().rsplit(" · ").nth(1).unwrap().to_owned();
    let short = branch.trim_start_matches("nodwyn/");
    let worktree = repo.join(".nodwyn/worktrees").join(short);
    assert_eq!(
        std::fs::read_to_string(worktree.join("notes.txt")).unwrap(),
        "hello\n"
    );
    assert!(!worktree.join("other.txt").exists());
    assert!(!repo.join("notes.txt").exists());
    // The model's text stood behind its gutter.
    let screen = tty.screen();
    assert!(screen.contains("\u{2502} Wrote the note."), "{screen}");
    tty.keep("conversation");
    // Chat's slash commands: the changes, and the help.
    tty.press("/diff\r");
    tty.wait_for("added notes.txt (+1 -0)");
    tty.press("/help\r");
    tty.wait_for("/land MESSAGE");
    // Ctrl-D leaves, closing the session; the worktree with its work stays.
    tty.press("\x04");
    assert_eq!(tty.wait_exit(), Some(0), "{}", tty.screen());
    let written = tty.written();
    assert!(written.contains("its worktree stays"), "{written}");
    // In colour, as a terminal with NO_COLOR unset is drawn.
    assert!(!colours(&written).is_empty());
    // The terminal as it was: the cursor shown, the title put back.
    let end = &written[written.rfind("\x1b[?25h").expect("the cursor shown again")..];
    assert!(end.contains("\x1b[23;0t"), "{end:?}");
    drop(tty);
    // Later, the chooser offers the session under its branch: chosen, it goes on there.
    let tty = Tty::start(&env, &repo, &[]);
    let chooser = tty.wait_for(&format!("{branch}  closed"));
    assert!(
        chooser.contains("New session in a new worktree of "),
        "{chooser}"
    );
    tty.press("\x1b[B\x1b[B\r");
    tty.wait_for(&format!("nodwyn · {branch} · idle"));
    assert!(tty.title().contains(&branch), "{}", tty.title());
}

#[test]
fn a_folder_that_only_looks_like_a_repository_is_refused_in_the_engines_sentence() {
    let env = TestEnv::new();
    let fake = env.root().join("fake");
    write(&fake.join(".git"), "gitdir: /nowhere\n");
    let model = StandIn::start(Vec::new());
    env.use_model(&model);
    let mut tty = Tty::start(&env, &fake, &[]);
    tty.wait_for("New session in a new worktree of ");
    tty.press("\r");
    assert_ne!(tty.wait_exit(), Some(0));
    let written = tty.written();
    assert!(written.contains("not_a_git_repo"), "{written}");
}

#[test]
fn ctrl_c_interrupts_a_long_command_and_the_session_goes_on() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    write(
        &repo.join(".nodwyn/allow.toml"),
        "commands = [[\"sleep\"]]\n",
    );
    let model = StandIn::start(vec![
        openai::call("shell-exec", json!({"argv": ["sleep", "60"]})),
        openai::text("never said"),
    ]);
    env.use_model(&model);
    // NO_COLOR is set, as the test environment sets it.
    let mut tty = Tty::start(&env, &repo, &["--worktree"]);
    tty.wait_for("· idle");
    tty.press("wait a minute\r");
    tty.wait_for("call shell-exec");
    tty.wait_for("· working");
    let started = Instant::now();
    tty.press("\x03");
    tty.wait_for("turn interrupted");
    assert!(started.elapsed() < Duration::from_secs(20));
    // At an empty composer, Ctrl-C says how to leave.
    tty.wait_for("· idle");
    tty.press("\x03");
    tty.wait_for("Ctrl-D leaves");
    tty.press("\x04");
    assert_eq!(tty.wait_exit(), Some(0));
    // With NO_COLOR, no colour was drawn (reverse video and bold are not colours).
    let written = tty.written();
    assert_eq!(colours(&written), Vec::<String>::new());
}

/// The colours `written` sets: the parameters of its SGR sequences (`ESC [ ... m`) that choose a
/// foreground or background colour.
fn colours(written: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in written.match_indices("\x1b[") {
        let rest = &written[at + 2..];
        let Some(end) = rest.find(|c: char| ('\u{40}'..='\u{7e}').contains(&c)) else {
            continue;
        };
        if !rest[end..].starts_with('m') {
            continue;
        }
        for parameter in rest[..end].split(';') {
            if let Ok(n) = parameter.parse::<u32>()
                && matches!(n, 30..=38 | 40..=48 | 90..=97 | 100..=107)
            {
                found.push(rest[..=end].to_owned());
            }
        }
    }
    found
}

#[test]
fn worktree_and_resume_together_are_refused_in_one_sentence() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let refused = env
        .nodwyn(&repo, &["tui", "--worktree", "--resume", "1a2b3c4d"])
        .refused();
    assert!(
        refused.contains("a resumed session keeps its folder"),
        "{refused}"
    );
}

#[test]
fn through_the_daemon_a_restart_keeps_the_draft_and_the_session() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(vec![
        openai::call(
            "fs-write",
            json!({"path": "notes.txt", "content": "kept\n"}),
        ),
        openai::text("Still here."),
    ]);
    env.use_model(&model);
    let serve = |env: &TestEnv| env.serve(&repo, &[], None);
    let daemon = serve(&env);
    let mut tty = Tty::start(&env, &repo, &["--daemon", "--worktree"]);
    tty.wait_for("· idle");
    tty.press("half a thought");
    tty.wait_for("> half a thought");
    drop(daemon);
    tty.wait_for("reconnecting");
    let _daemon = serve(&env);
    tty.wait_for("connected again");
    let screen = tty.wait_for("· idle");
    assert!(screen.contains("> half a thought"), "{screen}");
    tty.press(", finished\r");
    // Its question, through the daemon, answered with a key.
    tty.wait_for("The guard asks");
    tty.press("y");
    tty.wait_for("Still here.");
    let asked = model.received()[0].body.to_string();
    assert!(asked.contains("half a thought, finished"), "{asked}");
    tty.press("\x04");
    assert_eq!(tty.wait_exit(), Some(0));
}

#[test]
fn a_resized_terminal_gets_its_pane_drawn_again_with_the_draft() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(Vec::new());
    env.use_model(&model);
    let mut tty = Tty::start(&env, &repo, &["--worktree"]);
    tty.wait_for("· idle");
    tty.press("a draft that stays");
    tty.wait_for("> a draft that stays");
    tty.resize(20, 60);
    // Drawn again at the new width: the short key hints, the status line and the draft.
    let screen = tty.wait_for("Enter sends · Ctrl-C interrupts · Ctrl-D leaves");
    let visible = tty.terminal.lock().unwrap().screen().contents();
    assert!(visible.contains("> a draft that stays"), "{screen}");
    assert_eq!(visible.matches("· idle").count(), 1, "{visible}");
    tty.keep("narrow");
    tty.press("\x04");
    assert_eq!(tty.wait_exit(), Some(0));
}

#[test]
fn a_terminal_that_hangs_up_is_left_even_where_hangups_are_ignored() {
    let env = TestEnv::new();
    let repo = env.repo("project");
    let model = StandIn::start(Vec::new());
    env.use_model(&model);
    for open_a_session in [false, true] {
        // As under `nohup`: SIGHUP ignored, so only the terminal itself says it is gone.
        let mut tty = Tty::start_after(&env, &repo, "trap '' HUP; ", &[], &[]);
        tty.wait_for("New session in a new worktree of ");
        if open_a_session {
            tty.press("\r");
            tty.wait_for("· idle");
        }
        let interface = Process(tty.interface_pid());
        // The window closes: `script`, holding the terminal's other side, is killed.
        tty.child.kill().unwrap();
        tty.child.wait().unwrap();
        let started = Instant::now();
        while interface.runs() {
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "nodwyn tui still runs without its terminal (session opened: {open_a_session})"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A process by id, killed when dropped if it still runs (a failed test leaves nothing behind).
struct Process(u32);

impl Process {
    /// Whether it runs: it exists and is not a zombie waiting for its parent.
    fn runs(&self) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", self.0))
            .ok()
            .and_then(|stat| {
                let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
                Some(state != 'Z')
            })
            .unwrap_or(false)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.runs() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &self.0.to_string()])
                .status();
        }
    }
}
