//! The sandbox tested as an attacker who writes the repository's Scheme files: each attempt to
//! reach outside must end in a Scheme error or a refusal, never in an effect and never in a
//! crash of the program embedding the engine.

use std::path::Path;
use std::time::Duration;

use nodwyn_scheme::{Error, Interpreter, Limits, NoSession, Source, Surroundings};

fn interpreter() -> Interpreter {
    Interpreter::start(Surroundings::default(), Limits::default()).expect("engine starts")
}

fn host() -> NoSession {
    NoSession {
        reason: "no session in this test".to_owned(),
    }
}

/// Runs `text` and returns the error's sentence; fails the test if it gave a value.
fn refused(interpreter: &mut Interpreter, text: &str) -> String {
    match interpreter.run(Source::expression(text), &mut host()) {
        Ok(value) => panic!("{text} gave {value:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn processes_cannot_be_spawned_by_any_route() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pwned");
    let mut interpreter = interpreter();
    let touch = format!("(command \"touch\" (list \"{}\"))", marker.display());
    for attack in [
        format!("(spawn-process {touch})"),
        format!("(require-builtin steel/process) (spawn-process {touch})"),
        format!("(require-builtin steel/process as p) (p.spawn-process {touch})"),
        "(%module-get% %-builtin-module-steel/process 'spawn-process)".to_owned(),
        format!("(define m (list 'spawn-process)) (spawn-process {touch})"),
        format!("(define-syntax go (syntax-rules () [(_ x) (spawn-process x)])) (go {touch})"),
        format!("(defmacro (evil stx) (begin (spawn-process {touch}) (quote 1))) (evil)"),
        format!("(begin-for-syntax (spawn-process {touch}))"),
        // The syntax-case form of define-syntax runs its body in steel's kernel while compiling.
        format!(
            "(define-syntax (evil stx) (spawn-process {touch}) (syntax-case stx () [(_) (quote 1)])) (evil)"
        ),
        // ... also when a macro's use site completes a define-syntax into that form.
        format!(
            "(define-syntax mk (syntax-rules () [(_ head) (define-syntax head (syntax-rules () () [(_ x) (spawn-process {touch})]))]))\n(mk (evil stx))\n(evil 1)"
        ),
        "(Engine::new)".to_owned(),
    ] {
        let sentence = refused(&mut interpreter, &attack);
        assert!(
            sentence.contains("available in nodwyn's Scheme"),
            "{attack}: {sentence}"
        );
    }
    assert!(!marker.exists(), "a process ran");
    // The engine is still there for the next script.
    let value = interpreter
        .run(Source::expression("(+ 1 2)"), &mut host())
        .unwrap();
    assert_eq!(value.text, "3");
}

#[test]
fn no_fresh_engine_through_eval_or_run() {
    let mut interpreter = interpreter();
    for attack in [
        "(eval! \"(+ 1 2)\")",
        "(run! 1 \"(+ 1 2)\")",
        "(eval '(+ 1 2))",
        "(eval-string \"(+ 1 2)\")",
    ] {
        let sentence = refused(&mut interpreter, attack);
        assert!(sentence.contains("not available"), "{attack}: {sentence}");
    }
}

#[test]
fn environment_variables_are_neither_read_nor_set() {
    let mut interpreter = interpreter();
    for attack in [
        "(env-var \"HOME\")",
        "(maybe-get-env-var \"HOME\")",
        "(set-env-var! \"NODWYN_TEST\" \"1\")",
        "(with-env-var (command \"true\" '()) \"A\" \"B\")",
        "(command-line)",
    ] {
        let sentence = refused(&mut interpreter, attack);
        assert!(sentence.contains("not available"), "{attack}: {sentence}");
    }
    assert!(std::env::var_os("NODWYN_TEST").is_none());
}

#[test]
fn files_and_sockets_cannot_be_opened() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.scm");
    std::fs::write(&secret, "(define stolen \"the secret\")").unwrap();
    let written = dir.path().join("written");
    let mut interpreter = interpreter();
    for attack in [
        format!("(require \"{}\")", secret.display()),
        format!("(load \"{}\")", secret.display()),
        format!("(open-input-file \"{}\")", secret.display()),
        format!("(open-output-file \"{}\")", written.display()),
        format!("(read-dir \"{}\")", dir.path().display()),
        format!("(file->string \"{}\")", secret.display()),
        "(tcp-connect \"127.0.0.1:22\")".to_owned(),
        "(require-builtin steel/tcp)".to_owned(),
        "(read-line)".to_owned(),
        "(read-line-from-port (stdin))".to_owned(),
        "(git-clone \"https://example.invalid/x\" \"/tmp/x\")".to_owned(),
    ] {
        refused(&mut interpreter, &attack);
    }
    assert!(!written.exists());
    let sentence = refused(&mut interpreter, "stolen");
    assert!(sentence.contains("stolen"), "{sentence}");
}

#[test]
fn deep_nesting_is_refused_not_a_crash() {
    let mut interpreter = interpreter();
    for depth in [1_000, 100_000] {
        let text = format!("{}1{}", "(list ".repeat(depth), ")".repeat(depth));
        let sentence = refused(&mut interpreter, &text);
        assert!(sentence.contains("nested more than"), "{sentence}");
    }
    // Nesting built at run time is data, not source: deep recursion runs on steel's own stack.
    let value = interpreter
        .run(
            Source::expression(
                "(define (down n) (if (= n 0) 0 (+ 1 (down (- n 1))))) (down 100000)",
            ),
            &mut host(),
        )
        .unwrap();
    assert_eq!(value.text, "100000");
}

#[test]
fn a_loop_that_never_ends_is_stopped_and_the_engine_survives() {
    let limits = Limits {
        time: Duration::from_millis(300),
        ..Limits::default()
    };
    let mut interpreter = Interpreter::start(Surroundings::default(), limits).unwrap();
    let error = interpreter
        .run(Source::expression("(let loop () (loop))"), &mut host())
        .unwrap_err();
    assert!(matches!(error, Error::TimeLimit { .. }), "{error}");
    assert!(error.to_string().contains("stopped after 0.3 s"), "{error}");
    let value = interpreter
        .run(
            Source::expression("(string-append \"still\" \" here\")"),
            &mut host(),
        )
        .unwrap();
    assert_eq!(value.text, "still here");
}

#[test]
fn the_host_can_interrupt_a_running_script() {
    let mut interpreter = interpreter();
    let interrupter = interpreter.interrupter();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        interrupter.interrupt();
    });
    let error = interpreter
        .run(
            Source::expression("(define (spin n) (spin (+ n 1))) (spin 0)"),
            &mut host(),
        )
        .unwrap_err();
    stopper.join().unwrap();
    assert!(matches!(error, Error::Interrupted), "{error}");
}

#[test]
fn a_file_error_names_file_line_and_column() {
    let mut interpreter = interpreter();
    let source = Source::file(
        Path::new("/repo/.nodwyn/init.scm"),
        "(define (ok) 1)\n\n  (define (broken) (car '()))\n(broken)\n".to_owned(),
    );
    let error = interpreter.run(source, &mut host()).unwrap_err();
    assert!(
        error.to_string().starts_with("/repo/.nodwyn/init.scm:3:"),
        "{error}"
    );
    let unclosed = Source::file(
        Path::new("/repo/p.scm"),
        "(define (a)\n  (list 1 2)\n".to_owned(),
    );
    let error = interpreter.run(unclosed, &mut host()).unwrap_err();
    assert!(error.to_string().starts_with("/repo/p.scm:"), "{error}");
}

#[test]
fn one_call_cannot_ask_for_all_the_memory() {
    let mut interpreter = interpreter();
    for (attack, name) in [
        ("(expt 2 100000000000)", "expt"),
        ("(arithmetic-shift 1 100000000000)", "arithmetic-shift"),
        ("(make-string 10000000000 #\\a)", "make-string"),
        ("(make-vector 10000000000 0)", "make-vector"),
        (
            "(let double ([s \"ab\"]) (double (string-append s s)))",
            "string-append",
        ),
        (
            "(let double ([l (list 1 2)]) (double (append l l)))",
            "append",
        ),
        (
            "(define v (mutable-vector 1 2)) (let double () (vector-append! v v) (double))",
            "vector-append!",
        ),
        (
            "(string-replace (make-string 1000000 #\\a) \"a\" (make-string 1000 #\\b))",
            "string-replace",
        ),
    ] {
        let sentence = refused(&mut interpreter, attack);
        assert!(sentence.contains(name), "{attack}: {sentence}");
    }
    let sentence = refused(&mut interpreter, "(expt 2 100000000000)");
    assert!(
        sentence.contains("larger than nodwyn's Scheme allows (4096)"),
        "{sentence}"
    );
    let value = interpreter
        .run(
            Source::expression("(list (expt 2 10) (string-length (make-string 3 #\\a)))"),
            &mut host(),
        )
        .unwrap();
    assert_eq!(value.json, Some(serde_json::json!([1024, 3])));
}

#[test]
fn a_panic_inside_steel_ends_that_engine_not_the_program() {
    let mut interpreter = interpreter();
    // steel negates without checking; with overflow checks on (debug and test builds) it panics.
    let outcome = interpreter.run(
        Source::expression("(abs -9223372036854775808)"),
        &mut host(),
    );
    if cfg!(debug_assertions) {
        let error = outcome.unwrap_err();
        assert!(matches!(error, Error::Crashed(_)), "{error}");
        let again = interpreter
            .run(Source::expression("(+ 1 2)"), &mut host())
            .unwrap_err();
        assert!(
            again.to_string().contains("nothing more runs in it"),
            "{again}"
        );
        // A new engine works.
        let value = self::interpreter()
            .run(Source::expression("(+ 1 2)"), &mut host())
            .unwrap();
        assert_eq!(value.text, "3");
    }
}

#[test]
fn catching_the_interrupt_does_not_keep_a_loop_alive() {
    let limits = Limits {
        time: Duration::from_millis(300),
        ..Limits::default()
    };
    let mut interpreter = Interpreter::start(Surroundings::default(), limits).unwrap();
    let started = std::time::Instant::now();
    let error = interpreter
        .run(
            Source::expression(
                "(define (stubborn) (with-handler (lambda (e) (stubborn)) (let spin () (spin)))) (stubborn)",
            ),
            &mut host(),
        )
        .unwrap_err();
    assert!(matches!(error, Error::TimeLimit { .. }), "{error}");
    // Stopped by the interrupt itself, not abandoned after the grace period.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let value = interpreter
        .run(Source::expression("(+ 1 1)"), &mut host())
        .unwrap();
    assert_eq!(value.text, "2");
}

#[test]
fn memory_a_loop_builds_up_is_bounded_too() {
    let limits = Limits {
        time: Duration::from_secs(60),
        memory: 64 << 20,
    };
    let mut interpreter = Interpreter::start(Surroundings::default(), limits).unwrap();
    let started = std::time::Instant::now();
    let error = interpreter
        .run(
            Source::expression("(let grow ([l (list)]) (grow (cons (make-string 64 #\\x) l)))"),
            &mut host(),
        )
        .unwrap_err();
    assert!(matches!(error, Error::MemoryLimit { .. }), "{error}");
    assert!(error.to_string().contains("more than 64 MiB"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

/// Every global a script can name whose name says it touches output or ports, each reviewed:
/// wrapped to print to stderr, refused, or harmless (it writes only to a port the script made,
/// or only reads). A steel upgrade that brings a new such name fails here until it is reviewed.
#[test]
fn every_global_that_could_write_output_is_wrapped_refused_or_reviewed() {
    const REFUSED: &[&str] = &[
        "open-output-file",
        "with-output-to-file",
        "call-with-output-file",
        "child-stdout",
        "child-stderr",
        "with-stdout",
        "with-stdout-piped",
        "with-stderr",
        "with-stderr-piped",
        "set-piped-stdout!",
        "set-stdout-piped!",
        "wait->stdout",
    ];
    const HARMLESS: &[&str] = &[
        "port?",
        "input-port?",
        "output-port?",
        "open-output-string",
        "open-output-bytevector",
        "get-output-string",
        "get-output-bytevector",
        "call-with-output-string",
        "with-output-to-string",
        "call-with-port",
        "close-port",
        "close-input-port",
        "close-output-port",
        "flush-output-port",
        "current-error-port",
        "current-input-port",
        "current-output-port",
        "stdout",
        "port->string",
        "port->bytes",
        "read-port-to-string",
        "read-port-to-bytes",
        "read-line-from-port",
        "module->exports",
        "write-line!",
    ];
    let wrapped: Vec<&str> = nodwyn_scheme::sandbox::PRINTING
        .iter()
        .copied()
        .chain(
            nodwyn_scheme::sandbox::WRITING_TO_STDOUT
                .iter()
                .map(|(n, _)| *n),
        )
        .collect();
    let engine = nodwyn_scheme::sandbox::hardened_engine();
    let words = [
        "display", "print", "write", "newline", "stdout", "stderr", "output", "port", "flush",
    ];
    let mut unreviewed: Vec<String> = engine
        .globals()
        .iter()
        .map(|name| name.resolve().to_owned())
        // Internal names (`%...`, `#%...`, `##...`) are refused in a script before it compiles.
        .filter(|name| !name.starts_with('%') && !name.starts_with('#'))
        .filter(|name| !name.ends_with("__doc__"))
        .filter(|name| words.iter().any(|w| name.contains(w)))
        .filter(|name| {
            let name = name.as_str();
            !wrapped.contains(&name) && !REFUSED.contains(&name) && !HARMLESS.contains(&name)
        })
        .collect();
    unreviewed.sort();
    unreviewed.dedup();
    assert!(unreviewed.is_empty(), "not reviewed: {unreviewed:?}");
    let mut interpreter = interpreter();
    let never = std::env::temp_dir().join("nodwyn-sandbox-never-written");
    for name in REFUSED {
        let call = format!("({name} \"{}\" (lambda args 1))", never.display());
        let sentence = refused(&mut interpreter, &call);
        assert!(sentence.contains("not available"), "{name}: {sentence}");
    }
    assert!(!never.exists());
}

#[test]
fn a_macro_that_defines_a_primitives_name_is_refused_and_the_primitive_stays() {
    let surroundings = Surroundings {
        primitives: vec![nodwyn_scheme::PrimitiveSignature {
            name: "fs-read".to_owned(),
            description: "Reads a file.".to_owned(),
            params: vec!["path".to_owned()],
            gathers_strings: false,
            worktree_only: false,
        }],
        worktree: None,
        instructions: Vec::new(),
    };
    let mut interpreter = Interpreter::start(surroundings, Limits::default()).expect("starts");
    for attack in [
        "(define-syntax sneak (syntax-rules () [(_ name) (define name (lambda args \"forged\"))]))\n(sneak fs-read)",
        "(define-syntax sneak (syntax-rules () [(_ name) (set! name (lambda args \"forged\"))]))\n(sneak fs-read)",
        "(define-syntax sneak (syntax-rules () [(_ name) (define name (lambda args #f))]))\n(sneak worktree)",
        "(define-syntax sneak (syntax-rules () [(_ name) (define name (lambda args '()))]))\n(sneak primitives)",
    ] {
        let source = Source::file(Path::new("/repo/.nodwyn/prompts.scm"), attack.to_owned());
        let refused = match interpreter.run(source, &mut host()) {
            Ok(value) => panic!("{attack} gave {value:?}"),
            Err(error) => error.to_string(),
        };
        assert!(refused.contains("nodwyn's own"), "{attack}: {refused}");
        // The real procedures are still there: fs-read asks the host (which has no session).
        let real = refused_call(&mut interpreter, "(fs-read \"x\")");
        assert!(real.contains("no session in this test"), "{attack}: {real}");
        let tree = interpreter
            .run(Source::expression("(worktree)"), &mut host())
            .unwrap();
        assert_eq!(tree.json, Some(serde_json::Value::Bool(false)), "{attack}");
    }
}

fn refused_call(interpreter: &mut Interpreter, text: &str) -> String {
    refused(interpreter, text)
}
