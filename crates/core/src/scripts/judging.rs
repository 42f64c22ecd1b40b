//! Scheme's part in judging a call: the judge model's prompt (`(judge-prompt effect)`, from
//! nodwyn's prompts and the person's own) and the approved strategy's `(on-call call)`, which
//! the guard consults as a judge that may only refuse.
//!
//! `(on-call call)` gets the call as an association list (`primitive`, `args` as logged,
//! `action`, `reads`, `writes` relative to the session's root, `command`, `irreversible`,
//! `proposed`: `allow` or `ask`) and the session's latest calls (`recent-calls`, oldest first,
//! each with `primitive`, `args`, `ok` and a command's `exit`). It gives `#f` to leave the call
//! to the guard, or a sentence: the reason to refuse it. It runs while the call waits, so it
//! runs no primitive; an error or another kind of answer refuses the call (a rule the person
//! approved does not silently stop holding).
//!
//! Starting an engine costs a fifth of a second, so the engine a session's strategy was loaded
//! in is kept ([`StrategyEngines`]) for the session's next call while the strategy's files, the
//! session's folder and the approval are the same; an engine whose hook failed is not kept.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nodwyn_guard::{CommandLine, Decision, Effect, Judge, Verdict};
use nodwyn_scheme::{LayerId, NoSession, Scripts, Source};
use serde_json::{Value, json};

use super::{Reach, ScriptOptions, Scripting, Target, strategy, with_scripts, with_scripts_kept};
use crate::Error;
use crate::call::{CallJudges, CallToJudge};
use crate::person::NoTerminal;

/// The strategy's hook the guard consults for every call it does not refuse.
const ON_CALL: &str = "on-call";

/// How many strategy engines a process keeps at most.
const KEPT_ENGINES: usize = 4;

/// What a kept engine was loaded for: the session, its folder, and its strategy's content.
#[derive(Debug, Clone, PartialEq, Eq)]
struct EngineKey {
    session: String,
    root: PathBuf,
    sha256: String,
}

/// A strategy's engine with its layers loaded, and the strategy's layer in it.
struct KeptEngine {
    key: EngineKey,
    scripts: Scripts,
    strategy: Option<LayerId>,
}

/// The engines of the strategies' `(on-call)`, kept from one call to the next (the oldest goes
/// past four); clones share them.
#[derive(Clone, Default)]
pub(crate) struct StrategyEngines(Arc<Mutex<VecDeque<KeptEngine>>>);

impl std::fmt::Debug for StrategyEngines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StrategyEngines(..)")
    }
}

impl StrategyEngines {
    /// The engine kept for `key`, taken out while a call uses it.
    fn take(&self, key: &EngineKey) -> Option<KeptEngine> {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = kept.iter().position(|engine| &engine.key == key)?;
        kept.remove(at)
    }

    /// Keeps `engine` for the next call, in place of another for the same key.
    fn keep(&self, engine: KeptEngine) {
        let mut kept = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.retain(|other| other.key != engine.key);
        kept.push_back(engine);
        while kept.len() > KEPT_ENGINES {
            kept.pop_front();
        }
    }
}

/// The host of Scheme that judges a waiting call: nothing runs.
pub(super) fn nothing_runs() -> NoSession {
    NoSession {
        reason: "a strategy's (on-call) runs no primitive: the call it judges is waiting"
            .to_owned(),
    }
}

/// The judge model's system prompt for a question the guard asks about `effect` (because `why`):
/// `(judge-prompt effect)`, from nodwyn's prompts and the person's own only (a repository's
/// prompts.scm could otherwise talk the judge into approving).
pub fn judge_prompt(
    scripting: &Scripting<'_>,
    effect: &Effect,
    why: &str,
) -> Result<String, Error> {
    let mut described = described(effect, None);
    described.insert("why".to_owned(), why.into());
    // What the agent wrote (a command, a path, the reason naming them) reaches the judge on one
    // line each, its line breaks and controls shown escaped: a multi-line command cannot write
    // lines of the prompt's own (`The guard asks because: ...`).
    for value in described.values_mut() {
        one_line_each(value);
    }
    let expression = format!(
        "(judge-prompt {})",
        nodwyn_scheme::json_literal(&Value::Object(described))
    );
    let (value, _, _) = with_scripts(
        scripting,
        Target::PersonOnly,
        &mut NoTerminal,
        Reach::ReadOnly,
        |scripts, host, _| Ok(scripts.eval(Source::expression(expression), host)?),
    )?;
    Ok(value.text)
}

/// The repository's approved strategy as a judge of one call: it may refuse the call
/// (`(on-call call)`), never allow it.
pub(crate) struct StrategyJudge<'a> {
    /// The call.
    pub call: CallToJudge<'a>,
    /// The engines kept from one call to the next.
    pub engines: &'a StrategyEngines,
    /// Who judges the calls of the strategy's engine (none runs while a call waits).
    pub judges: &'a dyn CallJudges,
}

impl Judge for StrategyJudge<'_> {
    fn judge(&self, effect: &Effect, proposed: &Verdict) -> Option<Verdict> {
        if let Some(changed) = self.strategy_changed() {
            return Some(Verdict::by_rule(Decision::Refuse, changed));
        }
        // A strategy that does not define (on-call) costs a read of its text, no engine; one
        // that cannot be read is no strategy, as for every other hook.
        let root = self.call.session.strategy_folder();
        let init = root.join(".nodwyn").join("init.scm");
        let Ok(Some(text)) = strategy::read_plain(&init) else {
            return None;
        };
        if !nodwyn_scheme::defined_names(&text)
            .iter()
            .any(|n| n == ON_CALL)
        {
            return None;
        }
        let prompts = strategy::read_prompts(root).ok().flatten();
        let found = strategy::strategy_of(init, text, prompts.as_ref());
        let refusal = match self.on_call(effect, proposed, found) {
            Ok(None) => return None,
            Ok(Some(reason)) => format!("the strategy refuses: {reason}"),
            Err(error) => {
                format!("the strategy's (on-call) failed, so the call is refused: {error}")
            }
        };
        Some(Verdict::by_rule(Decision::Refuse, refusal))
    }
}

impl StrategyJudge<'_> {
    /// Why every call is refused, when the strategy approved for the session changed or is
    /// gone: its rules no longer hold, so the session fails closed until a person approves what
    /// is there now. `None` while it is as approved (or a person approved the new content).
    fn strategy_changed(&self) -> Option<String> {
        let in_force = self.call.session.strategy_in_force.as_deref()?;
        let root = self.call.session.strategy_folder();
        let prompts = strategy::read_prompts(root).ok().flatten();
        let now = strategy::read_strategy(root, prompts.as_ref())
            .ok()
            .flatten();
        let how = match &now {
            Some(now) if now.sha256 == in_force => return None,
            Some(now)
                if strategy::is_approved(
                    self.call.store,
                    &self.call.session.repository,
                    &now.sha256,
                )
                .unwrap_or(false) =>
            {
                return None;
            }
            Some(_) => format!(
                "has changed since it was approved: read what is there now and approve it on a terminal with `nodwyn prompt --session {}`, or put the approved file back",
                self.call.session.id.short()
            ),
            None => "is gone: put the approved file back, or open a new session".to_owned(),
        };
        Some(format!(
            "the strategy approved for this session (.nodwyn/init.scm, sha256 {}) {how}; the rules it set no longer hold, so every call is refused until then",
            &in_force[..in_force.len().min(12)],
        ))
    }

    /// The reason to refuse of strategy `found` (the repository's, as just read), `None` when it
    /// has none, or no `(on-call)`, or a person has not approved it.
    fn on_call(
        &self,
        effect: &Effect,
        proposed: &Verdict,
        found: strategy::Strategy,
    ) -> Result<Option<String>, Error> {
        let mut call = described(effect, Some(&self.call.session.root));
        call.insert("primitive".to_owned(), self.call.primitive.into());
        call.insert("args".to_owned(), self.call.args.clone());
        call.insert(
            "proposed".to_owned(),
            match proposed.decision {
                Decision::Allow => "allow",
                Decision::Ask(_) => "ask",
                Decision::Refuse => "refuse",
            }
            .into(),
        );
        call.insert(
            "recent-calls".to_owned(),
            serde_json::to_value(&self.call.session.recent_calls).unwrap_or(Value::Null),
        );
        let root = &self.call.session.root;
        // Only an approved strategy judges; its content is what a kept engine was loaded with.
        if !strategy::is_approved(
            self.call.store,
            &self.call.session.repository,
            &found.sha256,
        )? {
            return Ok(None);
        }
        let key = EngineKey {
            session: self.call.session.id.to_string(),
            root: root.clone(),
            sha256: found.sha256,
        };
        let hook = |scripts: &mut Scripts,
                    layer: Option<LayerId>,
                    host: &mut dyn nodwyn_scheme::Host,
                    call: Value| {
            if !layer.is_some_and(|layer| scripts.defines(layer, ON_CALL)) {
                return Ok(None);
            }
            scripts.hook(ON_CALL, &[call], host)
        };
        let call = Value::Object(call);
        let (answer, engine) = match self.engines.take(&key) {
            Some(mut engine) => {
                let answer = hook(
                    &mut engine.scripts,
                    engine.strategy,
                    &mut nothing_runs(),
                    call,
                )?;
                (answer, engine)
            }
            None => {
                let options = ScriptOptions::default();
                let scripting = Scripting {
                    store: self.call.store,
                    registry: self.call.registry,
                    settings: self.call.settings,
                    judges: self.judges,
                    options: &options,
                    spent: None,
                    only: None,
                };
                let ((answer, strategy), _, _, scripts) = with_scripts_kept(
                    &scripting,
                    Target::Loaded(self.call.session),
                    &mut NoTerminal,
                    Reach::Nothing,
                    |scripts, host, loaded| {
                        Ok((hook(scripts, loaded.strategy, host, call)?, loaded.strategy))
                    },
                )?;
                (
                    answer,
                    KeptEngine {
                        key,
                        scripts,
                        strategy,
                    },
                )
            }
        };
        self.engines.keep(engine);
        match answer.map(|value| value.json) {
            None | Some(Some(Value::Bool(false))) => Ok(None),
            Some(Some(Value::String(reason))) => Ok(Some(reason)),
            Some(_) => Err(Error::declined(
                "bad_on_call_answer",
                "(on-call call) must give #f or the reason to refuse (a string)".to_owned(),
            )),
        }
    }
}

/// Every string in `value` escaped to one line (see `nodwyn_text::escape_line`).
fn one_line_each(value: &mut Value) {
    match value {
        Value::String(text) => *text = nodwyn_text::escape_line(text),
        Value::Array(items) => items.iter_mut().for_each(one_line_each),
        Value::Object(map) => map.values_mut().for_each(one_line_each),
        _ => {}
    }
}

/// `effect` as Scheme is shown it: its action, paths (relative to `root` when beneath it),
/// command and whether it can be undone.
fn described(effect: &Effect, root: Option<&Path>) -> serde_json::Map<String, Value> {
    let shown = |paths: &[PathBuf]| -> Vec<String> {
        paths
            .iter()
            .map(|path| {
                root.and_then(|root| path.strip_prefix(root).ok())
                    .unwrap_or(path)
                    .display()
                    .to_string()
            })
            .collect()
    };
    let command = effect.command.as_ref().map(CommandLine::text);
    let mut map = serde_json::Map::new();
    map.insert("action".to_owned(), effect.action.clone().into());
    map.insert("reads".to_owned(), json!(shown(&effect.reads)));
    map.insert("writes".to_owned(), json!(shown(&effect.writes)));
    map.insert("command".to_owned(), json!(command));
    map.insert("irreversible".to_owned(), effect.irreversible.into());
    map
}
