//! The one way nodwyn asks the person a question on the terminal: the guard's confirms, a
//! strategy's approval, a standing answer, a changed configuration.
//!
//! An answer counts only when it was typed for the question, after the question appeared.
//! Whatever was typed before (keys pressed while a model streamed, a `yes` typed ahead with the
//! message, a `y` given to a question the model's own text spelled out) waits in the terminal's
//! input queue, where a question that simply read a line would take it as the answer. So the
//! queue is discarded when the question is shown, and the person is told when something was.
//! And a paste of several lines answers nothing: an answer is one line typed on its own, so when
//! more input arrived with it, all of it is discarded and the question asked again.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

/// How many times a question is asked before it counts as declined.
const TRIES: usize = 3;

/// How long after an answer's line more input must arrive for the two to be one paste.
const PASTE_WINDOW: Duration = Duration::from_millis(30);

/// Asks `prompt` (already escaped) on stderr and reads the answer from stdin: yes, no, or
/// `None` when stdin ended.
pub(crate) fn yes_or_no(prompt: &str) -> Option<bool> {
    match ask_while(prompt, false, || true) {
        Asked::Answered(answer) => Some(answer),
        Asked::Always => Some(true),
        Asked::Ended | Asked::Settled => None,
    }
}

/// What came of a question asked while something else could settle it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked {
    /// The person answered.
    Answered(bool),
    /// The person answered `a` (always), where the question offered it.
    Always,
    /// Standard input ended.
    Ended,
    /// It was settled elsewhere (another client answered) before the person did.
    Settled,
}

/// [`yes_or_no`], looking every 100 ms whether `still_open` says the question still waits (a
/// daemon's question another client may answer first); where `always` is offered, `a` (or
/// `always`) is an answer too.
pub(crate) fn ask_while(prompt: &str, always: bool, mut still_open: impl FnMut() -> bool) -> Asked {
    let stdin = std::io::stdin();
    let mut stderr = std::io::stderr();
    let discarded = discard_waiting_input(&stdin);
    if discarded > 0 {
        let _ = writeln!(
            stderr,
            "nodwyn: {discarded} byte(s) typed before this question were discarded: answer it now"
        );
    }
    for _ in 0..TRIES {
        let _ = stderr.write_all(prompt.as_bytes());
        let _ = stderr.flush();
        while !input_waits(&stdin, Duration::from_millis(100)) {
            if !still_open() {
                let _ = writeln!(stderr);
                return Asked::Settled;
            }
        }
        let mut answer = String::new();
        match stdin.lock().read_line(&mut answer) {
            Ok(0) | Err(_) => return Asked::Ended,
            Ok(_) => {}
        }
        if more_input_arrives(&stdin) {
            discard_waiting_input(&stdin);
            let _ = writeln!(
                stderr,
                "nodwyn: that answer came with more lines (a paste?), so it answers nothing; type y or n"
            );
            continue;
        }
        if answer.trim() == "/exit" {
            // In a conversation, `/exit` at a question declines it and ends the conversation.
            EXIT_ASKED.store(true, std::sync::atomic::Ordering::SeqCst);
            return Asked::Answered(false);
        }
        if always && matches!(answer.trim(), "a" | "A" | "always") {
            return Asked::Always;
        }
        return Asked::Answered(matches!(answer.trim(), "y" | "Y" | "yes"));
    }
    Asked::Answered(false)
}

/// Whether standard input has something to read within `wait` (always, when it is no
/// terminal: a read then simply blocks or ends).
pub(crate) fn input_waits(stdin: &std::io::Stdin, wait: Duration) -> bool {
    if !stdin.is_terminal() {
        return true;
    }
    let mut fds = [rustix::event::PollFd::new(
        stdin,
        rustix::event::PollFlags::IN,
    )];
    let timeout = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: wait.as_nanos().min(999_999_999) as i64,
    };
    matches!(rustix::event::poll(&mut fds, Some(&timeout)), Ok(n) if n > 0)
}

/// Whether a question was answered `/exit`: the conversation asking it ends once its turn has.
static EXIT_ASKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a question was answered `/exit` (see [`yes_or_no`]).
pub(crate) fn exit_asked() -> bool {
    EXIT_ASKED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Discards what waits in the terminal's input queue; returns how many bytes did.
fn discard_waiting_input(stdin: &std::io::Stdin) -> usize {
    if !stdin.is_terminal() {
        return 0;
    }
    let waiting = rustix::io::ioctl_fionread(stdin).unwrap_or(0);
    let _ = rustix::termios::tcflush(stdin, rustix::termios::QueueSelector::IFlush);
    waiting as usize
}

/// Whether input is waiting now or arrives within [`PASTE_WINDOW`].
fn more_input_arrives(stdin: &std::io::Stdin) -> bool {
    if !stdin.is_terminal() {
        return false;
    }
    let waiting = || rustix::io::ioctl_fionread(stdin).unwrap_or(0) > 0;
    if waiting() {
        return true;
    }
    std::thread::sleep(PASTE_WINDOW);
    waiting()
}
