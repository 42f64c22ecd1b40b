//! Engines kept warm: each serves one interpreter only, so nothing a script defines or changes
//! reaches the next, and a host that stops keeping them loses nothing.

use nodwyn_scheme::{Interpreter, Limits, NoSession, Source, Surroundings, keep_warm};

fn host() -> NoSession {
    NoSession {
        reason: "no session in this test".to_owned(),
    }
}

fn run(interpreter: &mut Interpreter, text: &str) -> Result<String, String> {
    interpreter
        .run(Source::expression(text), &mut host())
        .map(|value| value.text)
        .map_err(|error| error.to_string())
}

#[test]
fn an_engine_kept_warm_serves_one_interpreter_and_nothing_passes_to_the_next() {
    keep_warm(2);
    let mut first = Interpreter::start(Surroundings::default(), Limits::default()).unwrap();
    // A script leaves a definition and changes a procedure every script has.
    run(
        &mut first,
        "(define secret 42) (define (string-append . args) \"poisoned\")",
    )
    .unwrap();
    assert_eq!(run(&mut first, "secret").unwrap(), "42");
    assert_eq!(
        run(&mut first, "(string-append \"a\" \"b\")").unwrap(),
        "poisoned"
    );
    drop(first);
    for _ in 0..4 {
        let mut next = Interpreter::start(Surroundings::default(), Limits::default()).unwrap();
        let unbound = run(&mut next, "secret").unwrap_err();
        assert!(unbound.contains("secret"), "{unbound}");
        assert_eq!(run(&mut next, "(string-append \"a\" \"b\")").unwrap(), "ab");
    }
    // Kept or not, an interpreter starts and runs.
    keep_warm(0);
    let mut cold = Interpreter::start(Surroundings::default(), Limits::default()).unwrap();
    assert_eq!(run(&mut cold, "(+ 1 2)").unwrap(), "3");
}
