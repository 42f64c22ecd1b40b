//! An approved strategy's `(on-call call)` as the guard's judge: it may refuse a call the rules
//! would let run (never allow one they would not), it sees the session's latest calls with a
//! command's exit code, a broken hook refuses rather than lets through, an unapproved strategy
//! judges nothing, and the strategy's own calls are not put to it.

mod common;

use common::{Approves, git};

use std::path::Path;
use std::sync::Arc;

use nodwyn_core::Store;
use nodwyn_core::host::HostSettings;
use nodwyn_core::prim::Registry;
use nodwyn_core::scripts::strategy;
use nodwyn_core::turn::SessionRuntime;
use serde_json::json;

/// Refuses a write outside `tests/` unless the latest `shell-exec` exited non-zero.
const RED_FIRST: &str = r#"
(define (field alist key) (let ([e (assoc key alist)]) (if e (cdr e) #f)))
(define (red? calls)
  (let ([runs (filter (lambda (c) (equal? (field c "primitive") "shell-exec")) calls)])
    (and (not (null? runs))
         (let ([exit (field (last runs) "exit")]) (and exit (not (= exit 0)))))))
(define (on-call call)
  (let ([code (filter (lambda (p) (not (starts-with? p "tests/"))) (field call "writes"))])
    (if (or (null? code) (red? (field call "recent-calls")))
        #f
        (string-append "no failing test before changing " (car code)))))
"#;

/// A repository whose `.nodwyn/init.scm` is `init`, a session in its checkout, and whether the
/// person approved the strategy.
fn session(temp: &Path, init: &str, approved: bool) -> Arc<SessionRuntime> {
    let repo = temp.join("repo");
    std::fs::create_dir_all(repo.join(".nodwyn")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join(".nodwyn/init.scm"), init).unwrap();
    std::fs::write(repo.join(".nodwyn/allow.toml"), "writes = [\"**\"]\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let store = Store::new(temp.join("data"));
    if approved {
        let found = strategy::read_strategy(&repo, None).unwrap().unwrap();
        strategy::approve(&store, &repo, &found.sha256).unwrap();
    }
    let id = nodwyn_core::open::open_in_folder(&store, &repo, None)
        .unwrap()
        .id
        .to_string();
    SessionRuntime::open(
        store,
        &id,
        Arc::new(Registry::builtin()),
        HostSettings::default(),
        nodwyn_core::services::Services::default(),
    )
    .unwrap()
}

fn write(path: &str) -> serde_json::Value {
    json!({"path": path, "content": "x\n"})
}

fn run(script: &str) -> serde_json::Value {
    json!({"script": script})
}

#[test]
fn the_strategy_refuses_what_the_rules_allow_until_a_test_has_failed() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = session(temp.path(), RED_FIRST, true);
    let mut turn = runtime.start_turn().unwrap();
    let refused = turn
        .call("fs-write", &write("src/lib.rs"), &mut Approves)
        .unwrap_err();
    assert_eq!(refused.code(), "refused_by_guard");
    assert!(
        refused
            .to_string()
            .contains("the strategy refuses: no failing test before changing src/lib.rs"),
        "{refused}"
    );
    assert!(!temp.path().join("repo/src/lib.rs").exists());
    // A test may always be written; a failing run lets the code change; a passing run stops it.
    turn.call("fs-write", &write("tests/check.sh"), &mut Approves)
        .unwrap();
    turn.call("shell-exec", &run("exit 3"), &mut Approves)
        .unwrap();
    let session = runtime.session().unwrap();
    let last = session.recent_calls.back().unwrap();
    assert_eq!(
        (
            last.primitive.as_str(),
            last.ok,
            last.exit,
            last.action.as_deref()
        ),
        ("shell-exec", Some(true), Some(3), Some("shell-exec exit 3"))
    );
    let allowed = turn
        .call("fs-write", &write("src/lib.rs"), &mut Approves)
        .unwrap();
    assert_eq!(
        allowed.decision.decision,
        nodwyn_core::guard::Decision::Allow
    );
    turn.call("shell-exec", &run("true"), &mut Approves)
        .unwrap();
    let again = turn
        .call("fs-write", &write("src/main.rs"), &mut Approves)
        .unwrap_err();
    assert!(again.to_string().contains("src/main.rs"), "{again}");
}

#[test]
fn an_unapproved_strategy_judges_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = session(temp.path(), RED_FIRST, false);
    let mut turn = runtime.start_turn().unwrap();
    turn.call("fs-write", &write("src/lib.rs"), &mut Approves)
        .unwrap();
}

#[test]
fn a_broken_on_call_refuses_rather_than_lets_through() {
    for init in [
        "(define (on-call call) 42)",
        "(define (on-call call) (car '()))",
        // Primitives do not run while a call waits on the strategy.
        "(define (on-call call) (fs-read \"README.md\") #f)",
    ] {
        let temp = tempfile::tempdir().unwrap();
        let runtime = session(temp.path(), init, true);
        let mut turn = runtime.start_turn().unwrap();
        let refused = turn.call("fs-list", &json!({}), &mut Approves).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("the strategy's (on-call) failed"),
            "{init}: {refused}"
        );
    }
}

#[test]
fn the_strategy_never_allows_what_the_rules_refuse() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = session(temp.path(), "(define (on-call call) #f)", true);
    let mut turn = runtime.start_turn().unwrap();
    let refused = turn
        .call("fs-read", &json!({"path": ".env"}), &mut Approves)
        .unwrap_err();
    assert_eq!(refused.code(), "refused_by_guard");
    assert!(!refused.to_string().contains("strategy"), "{refused}");
}

#[test]
fn the_strategys_own_calls_are_not_put_to_it() {
    let temp = tempfile::tempdir().unwrap();
    let init = "(define (on-call call) \"everything is refused\")\n(define (on-turn task) (fs-write \"plan.md\" task) #f)";
    let runtime = session(temp.path(), init, true);
    let options = nodwyn_core::scripts::ScriptOptions::default();
    nodwyn_core::scripts::on_turn(
        &runtime.scripting(&options, None),
        &runtime.session().unwrap(),
        &mut Approves,
        "the plan",
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(temp.path().join("repo/plan.md")).unwrap(),
        "the plan"
    );
    let mut turn = runtime.start_turn().unwrap();
    let refused = turn.call("fs-list", &json!({}), &mut Approves).unwrap_err();
    assert!(
        refused.to_string().contains("everything is refused"),
        "{refused}"
    );
}

#[test]
fn an_engine_is_kept_for_the_next_call_until_the_strategy_changes_or_its_hook_fails() {
    let temp = tempfile::tempdir().unwrap();
    // Counts its calls in the engine: the second call in one engine is refused.
    let counting = "(define calls 0)\n(define (on-call call) (set! calls (+ calls 1)) (if (> calls 1) \"seen before\" #f))\n";
    let runtime = session(temp.path(), counting, true);
    let mut turn = runtime.start_turn().unwrap();
    turn.call("fs-list", &json!({}), &mut Approves).unwrap();
    let refused = turn.call("fs-list", &json!({}), &mut Approves).unwrap_err();
    assert!(refused.to_string().contains("seen before"), "{refused}");

    // Changed (and approved again), the strategy starts in an engine of its own.
    let repo = temp.path().join("repo");
    std::fs::write(
        repo.join(".nodwyn/init.scm"),
        format!("{counting};; changed\n"),
    )
    .unwrap();
    let store = runtime.store();
    let found = strategy::read_strategy(&repo, None).unwrap().unwrap();
    strategy::approve(store, &repo, &found.sha256).unwrap();
    turn.call("fs-list", &json!({}), &mut Approves).unwrap();

    // An engine whose hook failed is not kept: the next call starts afresh, and fails the same.
    let failing = "(define calls 0)\n(define (on-call call) (set! calls (+ calls 1)) (if (= calls 1) (car '()) #f))\n";
    std::fs::write(repo.join(".nodwyn/init.scm"), failing).unwrap();
    let found = strategy::read_strategy(&repo, None).unwrap().unwrap();
    strategy::approve(store, &repo, &found.sha256).unwrap();
    for _ in 0..2 {
        let refused = turn.call("fs-list", &json!({}), &mut Approves).unwrap_err();
        assert!(refused.to_string().contains("failed"), "{refused}");
    }
}
