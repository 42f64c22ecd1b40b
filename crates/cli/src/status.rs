//! The live status line of a run on a terminal: what runs and for how long, or that the model is
//! being waited for, so thirty seconds of a test run or of a model thinking are not silence.
//!
//! It is drawn on stderr's last line, from a thread of its own, once a second, after the first
//! second (a quick call never flickers it), and erased before anything else is written there.
//! Never with `--json` or when stderr is not a terminal. While the model's text leaves a line
//! open, nothing is drawn over it.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How long something runs before the line shows it, and how often it is drawn again.
const TICK: Duration = Duration::from_secs(1);

/// The longest description shown (a line longer than the terminal would wrap, and could not be
/// erased whole).
const LONGEST: usize = 60;

/// The status line of one view.
pub(crate) struct StatusLine {
    shown: Arc<Mutex<Shown>>,
}

#[derive(Default)]
struct Shown {
    /// What runs, since when; `None` shows nothing.
    what: Option<(String, Instant)>,
    /// Whether the line is on the terminal now.
    drawn: bool,
    /// Whether the model's text left its line open (nothing may be drawn over it).
    held: bool,
}

impl StatusLine {
    /// A status line, drawn only when `enabled` and stderr is a terminal.
    pub(crate) fn new(enabled: bool) -> Self {
        let shown = Arc::new(Mutex::new(Shown::default()));
        if enabled && std::io::stderr().is_terminal() {
            let weak = Arc::downgrade(&shown);
            std::thread::spawn(move || tick(&weak));
        }
        Self { shown }
    }

    /// Shows `what` as running from now.
    pub(crate) fn set(&self, what: impl Into<String>) {
        let mut what: String = what.into();
        if what.chars().count() > LONGEST {
            what = format!("{}...", what.chars().take(LONGEST).collect::<String>());
        }
        let mut shown = self.lock();
        shown.what = Some((what, Instant::now()));
    }

    /// Shows nothing any more.
    pub(crate) fn clear(&self) {
        let mut shown = self.lock();
        shown.what = None;
        erase(&mut shown);
    }

    /// Runs `write` (which writes to stderr) with the line erased first and not drawn meanwhile;
    /// `held` afterwards says whether `write` left a line open.
    pub(crate) fn around<T>(&self, write: impl FnOnce() -> (T, bool)) -> T {
        let mut shown = self.lock();
        erase(&mut shown);
        let (result, held) = write();
        shown.held = held;
        result
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Draws the line once a second while the view lives.
fn tick(shown: &Weak<Mutex<Shown>>) {
    loop {
        std::thread::sleep(TICK);
        let Some(shown) = shown.upgrade() else {
            return;
        };
        let mut shown = shown.lock().unwrap_or_else(|e| e.into_inner());
        if shown.held {
            continue;
        }
        let Some((what, since)) = &shown.what else {
            continue;
        };
        let seconds = since.elapsed().as_secs();
        if seconds < TICK.as_secs() {
            continue;
        }
        let line = nodwyn_text::escape_line(&format!("· {what} ({seconds} s)"));
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K{line}");
        let _ = stderr.flush();
        shown.drawn = true;
    }
}

/// Takes the line off the terminal if it is there.
fn erase(shown: &mut Shown) {
    if shown.drawn {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K");
        let _ = stderr.flush();
        shown.drawn = false;
    }
}
