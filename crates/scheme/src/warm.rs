//! Engines made ahead of need. Making a hardened engine takes most of a fifth of a second
//! (steel compiles its prelude); a long-lived host (`nodwyn run`, `nodwyn chat`) asks for a few to
//! be kept ready with [`keep_warm`], so a turn's prompt starts in a few milliseconds. Each ready
//! engine waits on a thread of its own and serves exactly one interpreter, then is dropped, and
//! another is made in the background: no state passes from one script to the next.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SendError, Sender};
use std::sync::{Mutex, PoisonError};

use crate::error::Error;
use crate::interpreter::{STACK_SIZE, Start, THREAD_NAME, engine_thread};

/// Engine threads made ahead, each waiting for its interpreter.
static READY: Mutex<Vec<Sender<Start>>> = Mutex::new(Vec::new());

/// How many engines to keep ready (none unless a host asks).
static WANTED: AtomicUsize = AtomicUsize::new(0);

/// Keeps `count` engines ready from now on (0: none, the default; each interpreter then waits for
/// its engine to be made).
pub fn keep_warm(count: usize) {
    WANTED.store(count, Ordering::SeqCst);
    let mut ready = READY.lock().unwrap_or_else(PoisonError::into_inner);
    // Dropping a waiting thread's sender ends it.
    ready.truncate(count);
    top_up(&mut ready);
}

/// Gives `start` to a ready engine thread, or to a new one, and makes the next ready one.
pub(crate) fn serve(start: Start) -> Result<(), Error> {
    let mut ready = READY.lock().unwrap_or_else(PoisonError::into_inner);
    let mut start = start;
    while let Some(thread) = ready.pop() {
        match thread.send(start) {
            Ok(()) => {
                top_up(&mut ready);
                return Ok(());
            }
            // That thread is gone (its engine could not be made): try the next.
            Err(SendError(back)) => start = back,
        }
    }
    let thread = spawn()?;
    thread
        .send(start)
        .map_err(|_| Error::Crashed("it did not start".to_owned()))?;
    top_up(&mut ready);
    Ok(())
}

/// Makes engine threads until as many as wanted are ready.
fn top_up(ready: &mut Vec<Sender<Start>>) {
    while ready.len() < WANTED.load(Ordering::SeqCst) {
        match spawn() {
            Ok(thread) => ready.push(thread),
            Err(error) => {
                tracing::debug!(%error, "no engine could be made ahead");
                break;
            }
        }
    }
}

/// A new engine thread, already making its engine.
fn spawn() -> Result<Sender<Start>, Error> {
    let (starts, waiting) = mpsc::channel();
    std::thread::Builder::new()
        .name(THREAD_NAME.to_owned())
        .stack_size(STACK_SIZE)
        .spawn(move || engine_thread(&waiting))
        .map_err(|e| Error::Crashed(format!("could not start its thread: {e}")))?;
    Ok(starts)
}
