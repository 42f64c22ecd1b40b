//! A session's Scheme as nodwyn-core uses it: nodwyn's prompts, then the person's and the
//! repository's overrides and the repository's strategy, each a layer (see [`crate::layers`]),
//! and the questions core asks of them: the system prompt, the declared sub-agents, a hook.

use serde_json::Value;

use crate::error::Error;
use crate::host::{Host, Surroundings};
use crate::interpreter::{Evaluated, Interpreter, Interrupter, Limits};
use crate::layers::Layers;
use crate::source::{Origin, Source, json_literal, string_literal};

/// nodwyn's default prompts (`prompts/prompts.scm`), built into the binary.
pub const DEFAULT_PROMPTS: &str = include_str!("../../../prompts/prompts.scm");

/// A sub-agent declared with `(define-agent name prompt option value ...)`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Agent {
    /// Its name.
    pub name: String,
    /// Its instructions.
    pub prompt: String,
    /// The only tools it is offered (`'tools`), when it names them; otherwise the agent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The person's model profile it runs on (`'model`), when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether it may call other sub-agents (`'agents #t`).
    pub may_call_agents: bool,
}

/// The most steps a declared plan keeps.
pub(crate) const MAX_PLAN_STEPS: usize = 32;

/// The most characters a plan's step keeps.
pub(crate) const MAX_PLAN_STEP_CHARS: usize = 200;

/// A loaded layer: nodwyn's prompts are the first, each loaded file the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerId(usize);

/// An engine with nodwyn's prompts loaded, and the layers loaded on top of them.
#[derive(Debug)]
pub struct Scripts {
    interpreter: Interpreter,
    layers: Layers,
}

impl Scripts {
    /// Starts an engine and loads nodwyn's default prompts into it.
    pub fn start(
        surroundings: Surroundings,
        limits: Limits,
        host: &mut dyn Host,
    ) -> Result<Self, Error> {
        let mut scripts = Self {
            interpreter: Interpreter::start(surroundings, limits)?,
            layers: Layers::default(),
        };
        scripts.layers.load(
            &mut scripts.interpreter,
            Source {
                name: "prompts.scm (built in)".to_owned(),
                text: DEFAULT_PROMPTS.to_owned(),
                origin: Origin::Builtin,
            },
            host,
        )?;
        Ok(scripts)
    }

    /// Loads an override or a strategy file; what it defines replaces earlier definitions
    /// everywhere.
    pub fn load(&mut self, source: Source, host: &mut dyn Host) -> Result<LayerId, Error> {
        self.layers
            .load(&mut self.interpreter, source, host)
            .map(LayerId)
    }

    /// Whether the definition of `name` in force is layer `layer`'s (not a later file's).
    pub fn defines(&self, layer: LayerId, name: &str) -> bool {
        self.layers.definer_of(name) == Some(layer.0)
    }

    /// Runs `source` (screened) and gives its value.
    pub fn eval(&mut self, source: Source, host: &mut dyn Host) -> Result<Evaluated, Error> {
        self.interpreter.run(source, host)
    }

    /// `(system-prompt)`.
    pub fn system_prompt(&mut self, host: &mut dyn Host) -> Result<String, Error> {
        self.text_of("(system-prompt)", host)
    }

    /// `(agent-system-prompt name)`: the system prompt of a declared sub-agent.
    pub fn agent_system_prompt(
        &mut self,
        name: &str,
        host: &mut dyn Host,
    ) -> Result<String, Error> {
        let declared = self.agents(host)?;
        if !declared.iter().any(|agent| agent.name == name) {
            let names: Vec<&str> = declared.iter().map(|a| a.name.as_str()).collect();
            return Err(Error::Refused(if names.is_empty() {
                format!(
                    "no sub-agent `{name}`: none is declared (define-agent in .nodwyn/init.scm)"
                )
            } else {
                format!("no sub-agent `{name}`; declared: {}", names.join(", "))
            }));
        }
        self.text_of(
            &format!("(agent-system-prompt {})", string_literal(name)),
            host,
        )
    }

    /// The sub-agents declared so far.
    pub fn agents(&mut self, host: &mut dyn Host) -> Result<Vec<Agent>, Error> {
        let value = self.builtin("(agents)", host)?;
        let json = value.json.unwrap_or(Value::Null);
        let Some(list) = json.as_array() else {
            return Ok(Vec::new());
        };
        Ok(list
            .iter()
            .filter_map(|agent| {
                Some(Agent {
                    name: agent.get("name")?.as_str()?.to_owned(),
                    prompt: agent.get("prompt")?.as_str()?.to_owned(),
                    tools: agent.get("tools").and_then(Value::as_array).map(|tools| {
                        tools
                            .iter()
                            .filter_map(|tool| tool.as_str().map(str::to_owned))
                            .collect()
                    }),
                    model: agent
                        .get("model")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    may_call_agents: agent.get("agents").and_then(Value::as_bool) == Some(true),
                })
            })
            .collect())
    }

    /// The steps of the plan declared with `(define-plan step ...)`, in order (none declared:
    /// empty). At most 32 steps are kept, each cut at 200 characters.
    pub fn plan(&mut self, host: &mut dyn Host) -> Result<Vec<String>, Error> {
        let value = self.builtin("(plan)", host)?;
        let steps = value.json.unwrap_or(Value::Null);
        Ok(steps
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .take(MAX_PLAN_STEPS)
            .map(|step| step.chars().take(MAX_PLAN_STEP_CHARS).collect())
            .collect())
    }

    /// Calls procedure `name` with `args` (in their Scheme form, see [`json_literal`]) if it is
    /// defined (`on-session-start`, `on-turn`, `on-call`); `None` when it is not.
    pub fn hook(
        &mut self,
        name: &str,
        args: &[Value],
        host: &mut dyn Host,
    ) -> Result<Option<Evaluated>, Error> {
        if !self.interpreter.defined(name)? {
            return Ok(None);
        }
        let mut call = format!("({name}");
        for arg in args {
            call.push(' ');
            call.push_str(&json_literal(arg));
        }
        call.push(')');
        self.builtin(&call, host).map(Some)
    }

    /// A handle that stops the running script from another thread.
    pub fn interrupter(&self) -> Interrupter {
        self.interpreter.interrupter()
    }

    fn builtin(&mut self, text: &str, host: &mut dyn Host) -> Result<Evaluated, Error> {
        self.interpreter.run(
            Source {
                name: text.to_owned(),
                text: text.to_owned(),
                origin: Origin::Builtin,
            },
            host,
        )
    }

    fn text_of(&mut self, call: &str, host: &mut dyn Host) -> Result<String, Error> {
        let value = self.builtin(call, host)?;
        match value.json {
            Some(Value::String(text)) => Ok(text),
            _ => Err(Error::Scheme(format!(
                "{call} gave {}, not a string",
                if value.text.is_empty() {
                    "nothing"
                } else {
                    &value.text
                }
            ))),
        }
    }
}
// The engine runs on a thread of its own and its handle may move between threads: core keeps a
// session's strategy engine from one call to the next, whichever thread makes the call.
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Scripts>();
};
