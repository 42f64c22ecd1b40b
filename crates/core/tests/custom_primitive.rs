//! Writing a custom primitive: an embedding program implements `Primitive` for a type of its own,
//! registers it beside the built-in ones, and calls it through nodwyn's call path, where the guard
//! judges its declared effect and the session's log records the call, exactly as for a built-in.
//! The same registry binds it in Scheme under its name and lists it in the system prompt.
//! This test is also the worked example the README points to.

mod common;

use common::{Approves, git};

use nodwyn_core::Store;
use nodwyn_core::call::call;
use nodwyn_core::guard::Effect;
use nodwyn_core::host::HostSettings;
use nodwyn_core::person::NoTerminal;
use nodwyn_core::prim::{Context, Error, Param, ParamKind, Primitive, Registry};
use nodwyn_core::scheme::Source;
use nodwyn_core::scripts::{ScriptOptions, Scripting, Target, compose, eval};
use nodwyn_core::worktree::{NewWorktree, WorktreeLocation, create};
use serde::{Deserialize, Serialize};

/// `count-lines PATH`: how many lines a file of the session has.
struct CountLines;

#[derive(Deserialize)]
struct CountLinesArgs {
    path: String,
}

#[derive(Serialize)]
struct Counted {
    lines: usize,
}

const PARAMS: &[Param] = &[Param::required(
    "path",
    ParamKind::String,
    "the file to count",
)];

impl Primitive for CountLines {
    type Args = CountLinesArgs;
    type Output = Counted;

    fn name(&self) -> &str {
        "count-lines"
    }
    fn description(&self) -> &str {
        "Counts the lines of a file."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    // Declare what it reads, so the guard can judge it (a credential file is refused).
    fn effect(&self, args: &CountLinesArgs, ctx: &Context) -> Result<Effect, Error> {
        let target = nodwyn_core::prim::paths::resolve(ctx, &args.path)?;
        let mut effect = Effect::named(format!("count-lines {}", args.path));
        effect.reads.push(target.path);
        Ok(effect)
    }
    fn run(
        &self,
        args: CountLinesArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Counted, Error> {
        let target = nodwyn_core::prim::paths::resolve(ctx, &args.path)?;
        let text = std::fs::read_to_string(&target.path).map_err(Error::io(&target.path))?;
        Ok(Counted {
            lines: text.lines().count(),
        })
    }
}

#[test]
fn a_registered_primitive_is_judged_run_and_logged_like_a_built_in() {
    let temp = tempfile::tempdir().unwrap();
    let repo = temp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("notes.txt"), "a\nb\nc\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let store = Store::new(temp.path().join("data"));
    let created = create(
        &store,
        &NewWorktree {
            dir: repo.clone(),
            base: None,
            pull_request: None,
            name: None,
            onto: None,
            location: WorktreeLocation::Repository,
            ports: Default::default(),
            progress: Default::default(),
        },
    )
    .unwrap();
    std::fs::write(created.worktree.path.join(".env"), "SECRET=1\n").unwrap();

    let mut registry = Registry::builtin();
    registry.register(CountLines).unwrap();
    assert!(matches!(
        registry.register(CountLines),
        Err(Error::Duplicate(_))
    ));

    let settings = HostSettings::default();
    let id = created.id.as_str();
    let args = serde_json::json!({"path": "notes.txt"});
    let called = call(
        &store,
        id,
        &registry,
        "count-lines",
        &args,
        &mut Approves,
        &settings,
        &(),
    )
    .unwrap();
    assert_eq!(called.result, serde_json::json!({"lines": 3}));

    // Positional arguments work too, and its declared read goes to the guard like any other.
    let args = serde_json::json!([".env"]);
    let refused = call(
        &store,
        id,
        &registry,
        "count-lines",
        &args,
        &mut NoTerminal,
        &settings,
        &(),
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("credential file"), "{refused}");

    let log = std::fs::read_to_string(store.find(id).unwrap().log.path()).unwrap();
    assert!(log.contains(r#""primitive":"count-lines""#), "{log}");
    assert!(log.contains(r#""type":"guard.decision""#), "{log}");

    // The same registry binds it in Scheme under its name, through the same call path.
    let scripting = Scripting {
        store: &store,
        registry: &registry,
        settings: &settings,
        judges: &(),
        options: &ScriptOptions::default(),
        spent: None,
        only: None,
    };
    let ran = eval(
        &scripting,
        Target::Session(id),
        &mut NoTerminal,
        Source::expression(r#"(field (count-lines "notes.txt") "lines")"#),
    )
    .unwrap();
    assert_eq!(ran.value.json, Some(serde_json::json!(3)));
    let refused = eval(
        &scripting,
        Target::Session(id),
        &mut NoTerminal,
        Source::expression(r#"(count-lines ".env")"#),
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("credential file"), "{refused}");
    let prompt = compose(&scripting, Target::Session(id), &mut NoTerminal, None)
        .unwrap()
        .prompt;
    assert!(
        prompt.contains("- count-lines path: Counts the lines of a file."),
        "{prompt}"
    );
}
