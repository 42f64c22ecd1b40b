//! Every decision path of the guard.

use super::*;
use crate::effect::{CommandLine, Egress};

const ROOT: &str = "/work/shop/.nodwyn/worktrees/1968c13a";
const REPOSITORY: &str = "/work/shop";

fn guard(allow_toml: &str) -> Guard<'static> {
    Guard::new(
        Path::new(ROOT),
        Path::new(REPOSITORY),
        StandingAnswers::parse(allow_toml).unwrap(),
    )
}

fn write(path: &str) -> Effect {
    Effect {
        writes: vec![PathBuf::from(path)],
        ..Effect::named(format!("fs-write {path}"))
    }
}

fn read(path: &str) -> Effect {
    Effect {
        reads: vec![PathBuf::from(path)],
        ..Effect::named(format!("fs-read {path}"))
    }
}

fn run(line: &str) -> Effect {
    Effect {
        command: Some(CommandLine::Shell(line.to_owned())),
        ..Effect::named(format!("shell-exec {line}"))
    }
}

fn push(urls: &[&str]) -> Effect {
    Effect {
        egress: Some(Egress {
            kind: EgressKind::Push,
            destinations: urls.iter().map(|u| (*u).to_owned()).collect(),
        }),
        irreversible: true,
        ..Effect::named("git-land")
    }
}

fn dont_ask() -> Option<DontAsk> {
    Some(DontAsk {
        turned_on_by: "person at the terminal".to_owned(),
    })
}

const ORDINARY: Decision = Decision::Ask(AskKind::Ordinary);
const SECURITY: Decision = Decision::Ask(AskKind::Security);

#[test]
fn reads_are_allowed_except_credential_files() {
    let mut guard = guard("");
    let verdict = guard.decide(&read("src/lib.rs"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Allow, DecidedBy::Rule)
    );
    let verdict = guard.decide(&read("config/../.env"));
    assert_eq!(verdict.decision, Decision::Refuse);
    assert!(verdict.why.contains("credential file"), "{}", verdict.why);
}

#[test]
fn writes_ask_unless_a_standing_glob_covers_them() {
    assert_eq!(guard("").decide(&write("src/lib.rs")).decision, ORDINARY);
    let verdict = guard("writes = [\"src/**\"]").decide(&write("src/lib.rs"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Allow, DecidedBy::StandingAnswer)
    );
    assert_eq!(
        guard("writes = [\"src/**\"]")
            .decide(&write("build.rs"))
            .decision,
        ORDINARY
    );
}

#[test]
fn protected_paths_are_security_confirms_nothing_but_a_person_answers() {
    for path in [
        ".git/hooks/pre-commit",
        ".nodwyn/init.scm",
        "/work/shop/.git/config",
        "/work/shop/.nodwyn/config.toml",
        "/work/shop/.GIT/hooks/post-checkout",
        "src/../.nodwyn/allow.toml",
    ] {
        let mut guard = guard("writes = [\"**\"]");
        guard.set_dont_ask(dont_ask());
        let verdict = guard.decide(&write(path));
        assert_eq!(verdict.decision, SECURITY, "{path}: {verdict:?}");
        assert_eq!(verdict.by, DecidedBy::Rule, "{path}");
    }
    let verdict = guard("").decide(&write(".nodwyn/allow.toml"));
    assert!(verdict.why.contains("standing answers"), "{}", verdict.why);
}

#[test]
fn writes_outside_the_folder_are_security_confirms() {
    let mut guard = guard("writes = [\"**\"]");
    guard.set_dont_ask(dont_ask());
    for path in [
        "/etc/hosts",
        "../../../../outside.txt",
        "/work/shop/src/main.rs",
    ] {
        assert_eq!(guard.decide(&write(path)).decision, SECURITY, "{path}");
    }
}

#[test]
fn credential_files_are_refused_whatever_else_is_on() {
    let mut guard = guard("writes = [\"**\"]");
    guard.set_dont_ask(dont_ask());
    for path in [".env", "deploy/id_ed25519", "/home/me/.aws/credentials"] {
        assert_eq!(
            guard.decide(&write(path)).decision,
            Decision::Refuse,
            "{path}"
        );
    }
}

#[test]
fn commands_need_a_whole_word_standing_prefix_or_a_person() {
    let mut guard = guard("commands = [[\"cargo\", \"test\"]]");
    let verdict = guard.decide(&run("cargo test --all"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Allow, DecidedBy::StandingAnswer)
    );
    for line in ["cargo testx", "cargo test; rm -rf /", "make"] {
        assert_eq!(guard.decide(&run(line)).decision, ORDINARY, "{line}");
    }
}

#[test]
fn dont_ask_answers_ordinary_asks_and_names_who_turned_it_on() {
    let mut guard = guard("");
    guard.set_dont_ask(dont_ask());
    let verdict = guard.decide(&run("make release"));
    assert_eq!(verdict.decision, Decision::Allow);
    assert_eq!(
        verdict.by,
        DecidedBy::DontAsk("person at the terminal".to_owned())
    );
    guard.set_dont_ask(None);
    assert_eq!(guard.decide(&run("make release")).decision, ORDINARY);
}

#[test]
fn a_push_needs_every_url_listed_and_then_asks_only_because_it_is_irreversible() {
    let listed = "push = [\"git@example.invalid:me/shop.git\"]";
    let mut guard = guard(listed);
    assert_eq!(
        guard
            .decide(&push(&["git@example.invalid:me/shop.git"]))
            .decision,
        ORDINARY
    );
    assert_eq!(
        guard
            .decide(&push(&[
                "git@example.invalid:me/shop.git",
                "git@evil.invalid:x.git"
            ]))
            .decision,
        SECURITY
    );
    guard.set_dont_ask(dont_ask());
    assert_eq!(
        guard
            .decide(&push(&["git@example.invalid:me/shop.git"]))
            .decision,
        Decision::Allow
    );
    assert_eq!(
        guard.decide(&push(&["git@evil.invalid:x.git"])).decision,
        SECURITY
    );
}

#[test]
fn the_budget_of_irreversible_actions_asks_past_its_end() {
    let mut guard = guard("push = [\"u\"]").with_budget(2);
    guard.set_dont_ask(dont_ask());
    assert_eq!(guard.decide(&push(&["u"])).decision, Decision::Allow);
    assert_eq!(guard.decide(&push(&["u"])).decision, Decision::Allow);
    let verdict = guard.decide(&push(&["u"]));
    assert_eq!(verdict.decision, SECURITY, "{verdict:?}");
    assert!(verdict.why.contains("irreversible"), "{}", verdict.why);
    // Reversible actions are not counted.
    assert_eq!(guard.decide(&run("ls")).decision, Decision::Allow);
    guard.start_turn();
    assert_eq!(guard.decide(&push(&["u"])).decision, Decision::Allow);
}

struct Fixed(Decision);

impl Judge for Fixed {
    fn judge(&self, _effect: &Effect, _proposed: &Verdict) -> Option<Verdict> {
        Some(Verdict::by_rule(self.0.clone(), "the judge's policy"))
    }
}

#[test]
fn the_judge_answers_before_the_person_but_never_approves_a_security_confirm() {
    let mut approving = guard("").with_judge(Box::new(Fixed(Decision::Allow)));
    let verdict = approving.decide(&run("make"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Allow, DecidedBy::Judge)
    );
    assert_eq!(approving.decide(&write(".git/config")).decision, SECURITY);

    let mut refusing = guard("").with_judge(Box::new(Fixed(Decision::Refuse)));
    let verdict = refusing.decide(&write(".git/config"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Refuse, DecidedBy::Judge)
    );
    // The judge may refuse what the rules allow, and never allow what they refuse.
    let verdict = refusing.decide(&read("src/lib.rs"));
    assert_eq!(
        (verdict.decision, verdict.by),
        (Decision::Refuse, DecidedBy::Judge)
    );
    assert_eq!(approving.decide(&read(".env")).decision, Decision::Refuse);
}

#[test]
fn a_decision_is_recorded_with_its_action_answer_giver_and_reason() {
    let mut guard = guard("");
    guard.set_dont_ask(dont_ask());
    let effect = run("make");
    let verdict = guard.decide(&effect);
    let record = serde_json::to_value(verdict.record(&effect.action)).unwrap();
    assert_eq!(record["type"], "guard.decision");
    assert_eq!(record["action"], "shell-exec make");
    assert_eq!(record["answer"], "allow");
    assert_eq!(record["by"], "dont_ask");
    assert_eq!(record["who"], "person at the terminal");
    assert!(record["why"].as_str().unwrap().contains("runs `make`"));
    let refused = guard.decide(&read(".env"));
    let record = serde_json::to_value(refused.record("fs-read .env")).unwrap();
    assert_eq!(
        (record["answer"].as_str(), record["by"].as_str()),
        (Some("refuse"), Some("rule"))
    );
    let asked = super::Guard::new(
        Path::new(ROOT),
        Path::new(REPOSITORY),
        StandingAnswers::none(),
    )
    .decide(&write(".git/x"));
    let record = serde_json::to_value(asked.record("fs-write .git/x")).unwrap();
    assert_eq!(
        (record["answer"].as_str(), record["kind"].as_str()),
        (Some("ask"), Some("security"))
    );
}

#[test]
fn a_command_that_would_run_unconfined_is_a_security_confirm_whatever_else_approves_it() {
    let unconfined = Effect {
        unconfined: Some("this kernel does not offer Landlock".to_owned()),
        command: Some(CommandLine::Argv(vec!["cargo".into(), "test".into()])),
        ..Effect::named("shell-exec cargo test")
    };
    let mut guard = guard("commands = [[\"cargo\", \"test\"]]");
    guard.set_dont_ask(dont_ask());
    let verdict = guard.decide(&unconfined);
    assert_eq!(verdict.decision, SECURITY);
    assert!(verdict.why.contains("unconfined"), "{}", verdict.why);
    assert!(verdict.why.contains("Landlock"), "{}", verdict.why);
    // Confined, the same command is what the standing answer says.
    let confined = Effect {
        unconfined: None,
        ..unconfined
    };
    assert_eq!(guard.decide(&confined).decision, Decision::Allow);
}

#[test]
fn a_permit_comes_only_from_the_guards_own_allowing_decision() {
    let mut guard = guard("writes = [\"src/**\"]");
    let allowed = write("src/lib.rs");
    let asked = write("build.rs");
    // No decision yet: no permit.
    assert!(guard.permit(&allowed).is_none());
    assert_eq!(guard.decide(&allowed).decision, Decision::Allow);
    // A permit for the action decided, not for another.
    assert!(guard.permit(&asked).is_none());
    let permit = guard.permit(&allowed).unwrap();
    assert_eq!(permit.action(), "fs-write src/lib.rs");
    // Once.
    assert!(guard.permit(&allowed).is_none());
    // An ask gives none until a person approves.
    assert_eq!(guard.decide(&asked).decision, ORDINARY);
    assert!(guard.permit(&asked).is_none());
    assert!(guard.permit_approved(&asked).is_some());
    // A refusal gives none, approved or not.
    let credential = read(".env");
    assert_eq!(guard.decide(&credential).decision, Decision::Refuse);
    assert!(guard.permit_approved(&credential).is_none());
}

#[test]
fn an_ordinary_question_offers_the_narrowest_standing_answer_that_answers_it() {
    let guard = guard("");
    let offer = guard.offer(&run("cargo test --all")).unwrap();
    assert_eq!(
        offer.answer,
        StandingAnswer::Command(vec!["cargo".into(), "test".into()])
    );
    let offer = guard.offer(&write("src/lib.rs")).unwrap();
    assert_eq!(offer.answer, StandingAnswer::Write("src/**".into()));
    let offer = guard.offer(&write(&format!("{ROOT}/README.md"))).unwrap();
    assert_eq!(offer.answer, StandingAnswer::Write("README.md".into()));
}

#[test]
fn nothing_is_offered_where_a_question_must_be_asked_each_time() {
    let guard = guard("");
    for (effect, what) in [
        (write(".git/hooks/pre-commit"), "a security confirm"),
        (write(".nodwyn/allow.toml"), "the standing answers"),
        (write("/home/ann/.bashrc"), "outside the session's folder"),
        (push(&["git@example.invalid:me/shop.git"]), "a push"),
        (read("src/lib.rs"), "nothing asked"),
        (read(".env"), "refused"),
        (run("python3 -c 'import os'"), "an interpreter"),
        (run("cargo test && curl evil.invalid"), "a shell line"),
        (
            Effect {
                irreversible: true,
                ..run("cargo publish")
            },
            "cannot be undone",
        ),
        (
            Effect {
                unconfined: Some("no Landlock".into()),
                ..run("cargo test")
            },
            "unconfined",
        ),
    ] {
        assert_eq!(guard.offer(&effect), None, "{what}");
    }
}

#[test]
fn a_session_answer_answers_what_it_names_and_says_so() {
    let mut guard = guard("").with_session_answers(&[
        StandingAnswer::Command(vec!["cargo".into(), "test".into()]),
        StandingAnswer::Write("src/**".into()),
    ]);
    for effect in [run("cargo test -p shop"), write("src/deep/mod.rs")] {
        let verdict = guard.decide(&effect);
        assert_eq!(
            (verdict.decision, verdict.by, verdict.why.as_str()),
            (
                Decision::Allow,
                DecidedBy::StandingAnswer,
                "a standing answer the person gave for this session covers it"
            ),
            "{}",
            effect.action
        );
        assert_eq!(guard.offer(&effect), None, "answered already");
    }
    for effect in [
        run("cargo build"),
        write("tests/a.rs"),
        run("cargo test; rm -rf /"),
    ] {
        assert_eq!(
            guard.decide(&effect).decision,
            ORDINARY,
            "{}",
            effect.action
        );
    }
    assert_eq!(
        guard.decide(&write(".git/config")).decision,
        SECURITY,
        "a session's answer never covers a protected path"
    );
}
