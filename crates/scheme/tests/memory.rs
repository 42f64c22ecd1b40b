//! A script's memory limit is its own engine's: with the counting allocator installed (as the
//! nodwyn program installs it), memory another thread takes meanwhile (another session's turn in
//! the same daemon) does not stop the script, and what the script itself builds still does.

use std::sync::mpsc;
use std::time::Duration;

use nodwyn_scheme::{
    CountingAllocator, Error, Interpreter, Limits, NoSession, Source, Surroundings,
};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn host() -> NoSession {
    NoSession {
        reason: "no session in this test".to_owned(),
    }
}

fn limited() -> Interpreter {
    let limits = Limits {
        time: Duration::from_secs(60),
        memory: 64 << 20,
    };
    Interpreter::start(Surroundings::default(), limits).unwrap()
}

#[test]
fn memory_another_thread_takes_does_not_stop_a_script_and_the_scripts_own_does() {
    let mut interpreter = limited();
    // Another thread takes 256 MiB, touched, while the script counts for a while (a few seconds).
    let (starting, started) = mpsc::channel();
    let (done, finished) = mpsc::channel::<()>();
    let other = std::thread::spawn(move || {
        started.recv().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let held = vec![1u8; 256 << 20];
        finished.recv().unwrap();
        held.iter().map(|b| u64::from(*b)).sum::<u64>()
    });
    starting.send(()).unwrap();
    let counted = interpreter.run(
        Source::expression("(let count ([i 0]) (if (< i 20000000) (count (+ i 1)) i))"),
        &mut host(),
    );
    done.send(()).unwrap();
    assert_eq!(other.join().unwrap(), 256 << 20);
    assert_eq!(counted.unwrap().text, "20000000");

    let error = interpreter
        .run(
            Source::expression("(let grow ([l (list)]) (grow (cons (make-string 64 #\\x) l)))"),
            &mut host(),
        )
        .unwrap_err();
    assert!(matches!(error, Error::MemoryLimit { .. }), "{error}");
}
