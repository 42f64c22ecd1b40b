//! The `Primitive` trait, the schema of its arguments, and the registry that holds the built-in
//! primitives and any an embedding program adds.
//!
//! A primitive is described before it runs: [`Primitive::effect`] says what it would read, write,
//! run and send, so the host can put that to the guard; only then is [`Primitive::run`] called.
//! Arguments arrive as JSON: an object by parameter name, or an array in parameter order (how
//! Scheme and other positional callers pass them).

use std::collections::BTreeMap;

use nodwyn_guard::{Effect, Permit};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;
use crate::context::Context;

/// The JSON type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamKind {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A list of strings.
    StringList,
}

/// One parameter of a primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Param {
    /// Its name, the key in a JSON object.
    pub name: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Whether a call must give it.
    pub required: bool,
    /// What it is for, in one line.
    pub doc: &'static str,
}

impl Param {
    /// A parameter a call must give.
    pub const fn required(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self {
            name,
            kind,
            required: true,
            doc,
        }
    }

    /// A parameter a call may leave out.
    pub const fn optional(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self {
            name,
            kind,
            required: false,
            doc,
        }
    }

    /// The name as a signature shows it: `name`, or `[name]` when it may be left out.
    pub fn shown(&self) -> String {
        if self.required {
            self.name.to_owned()
        } else {
            format!("[{}]", self.name)
        }
    }

    /// The JSON Schema of a call's arguments given by name: an object with these properties,
    /// the required ones listed, nothing else allowed. What a model's tool and an MCP tool
    /// declare.
    pub fn json_schema(params: &[Param]) -> serde_json::Value {
        let properties: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|param| {
                let mut schema = match param.kind {
                    ParamKind::String => serde_json::json!({"type": "string"}),
                    ParamKind::Integer => serde_json::json!({"type": "integer"}),
                    ParamKind::Boolean => serde_json::json!({"type": "boolean"}),
                    ParamKind::StringList => {
                        serde_json::json!({"type": "array", "items": {"type": "string"}})
                    }
                };
                schema["description"] = param.doc.into();
                (param.name.to_owned(), schema)
            })
            .collect();
        let required: Vec<&str> = params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// An action an agent can take in a session. Implement it for a type of your own and
/// [`Registry::register`] it to offer a new primitive; it is then judged, run and logged exactly as
/// the built-in ones are.
pub trait Primitive: Send + Sync + 'static {
    /// The arguments, read from the call's JSON.
    type Args: DeserializeOwned;
    /// The result, given back as JSON.
    type Output: Serialize;

    /// The name callers use (`fs-read`).
    fn name(&self) -> &str;
    /// What it does, in one sentence.
    fn description(&self) -> &str;
    /// Its parameters, in the order a positional call gives them.
    fn params(&self) -> &[Param];
    /// Whether it is offered only in worktree sessions.
    fn worktree_only(&self) -> bool {
        false
    }
    /// Whether a call must run alone in its session (no other call or command at the same time),
    /// as a landing must; other calls run side by side.
    fn exclusive(&self) -> bool {
        false
    }
    /// Whether it only reads (files, git's state) and changes nothing. Only such primitives run
    /// while a prompt is composed and while a repository's unapproved Scheme loads. A custom
    /// primitive is taken to change something unless it says otherwise.
    fn read_only(&self) -> bool {
        false
    }
    /// What running it with `args` would do, for the guard. It must not change anything.
    fn effect(&self, args: &Self::Args, ctx: &Context) -> Result<Effect, Error>;
    /// Runs it, with the guard's leave to (see [`Permit`]: only the guard makes one).
    fn run(&self, args: Self::Args, ctx: &Context, permit: &Permit) -> Result<Self::Output, Error>;
}

/// A primitive with its types erased, as the registry holds it.
pub trait DynPrimitive: Send + Sync {
    /// See [`Primitive::name`].
    fn name(&self) -> &str;
    /// See [`Primitive::description`].
    fn description(&self) -> &str;
    /// See [`Primitive::params`].
    fn params(&self) -> &[Param];
    /// See [`Primitive::worktree_only`].
    fn worktree_only(&self) -> bool;
    /// See [`Primitive::exclusive`].
    fn exclusive(&self) -> bool;
    /// See [`Primitive::read_only`].
    fn read_only(&self) -> bool;
    /// Checks `args` against the schema and describes the call.
    fn effect(&self, args: &Value, ctx: &Context) -> Result<Effect, Error>;
    /// Runs the call with the guard's `permit` for it (see [`Permit`]: only the guard makes one,
    /// and it is spent here) and gives its result as JSON. A permit for another action is
    /// refused.
    fn run(&self, args: &Value, ctx: &Context, permit: Permit) -> Result<Value, Error>;
}

impl<P: Primitive> DynPrimitive for P {
    fn name(&self) -> &str {
        Primitive::name(self)
    }
    fn description(&self) -> &str {
        Primitive::description(self)
    }
    fn params(&self) -> &[Param] {
        Primitive::params(self)
    }
    fn worktree_only(&self) -> bool {
        Primitive::worktree_only(self)
    }
    fn exclusive(&self) -> bool {
        Primitive::exclusive(self)
    }
    fn read_only(&self) -> bool {
        Primitive::read_only(self)
    }
    fn effect(&self, args: &Value, ctx: &Context) -> Result<Effect, Error> {
        let args = parse_args(self, args)?;
        Primitive::effect(self, &args, ctx)
    }
    fn run(&self, args: &Value, ctx: &Context, permit: Permit) -> Result<Value, Error> {
        let args = parse_args(self, args)?;
        let effect = Primitive::effect(self, &args, ctx)?;
        if effect.action != permit.action() {
            return Err(Error::declined(
                "permit_mismatch",
                format!(
                    "the guard's permit is for `{}`, not for `{}`",
                    permit.action(),
                    effect.action
                ),
            ));
        }
        let output = Primitive::run(self, args, ctx, &permit)?;
        serde_json::to_value(output).map_err(|e| Error::BadArguments {
            primitive: Primitive::name(self).to_owned(),
            message: format!("its result could not be encoded as JSON: {e}"),
        })
    }
}

/// Reads `args` (an object, or an array in parameter order) into `P::Args`, with a sentence naming
/// the parameter when something does not fit.
fn parse_args<P: Primitive>(primitive: &P, args: &Value) -> Result<P::Args, Error> {
    let bad = |message: String| Error::BadArguments {
        primitive: primitive.name().to_owned(),
        message,
    };
    let params = primitive.params();
    let object = match args {
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        Value::Array(items) => {
            if items.len() > params.len() {
                return Err(bad(format!(
                    "takes at most {} argument(s) ({}), not {}",
                    params.len(),
                    params.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
                    items.len()
                )));
            }
            params
                .iter()
                .zip(items)
                .map(|(p, v)| (p.name.to_owned(), v.clone()))
                .collect()
        }
        other => {
            return Err(bad(format!(
                "arguments must be a JSON object or array, not {other}"
            )));
        }
    };
    for key in object.keys() {
        if !params.iter().any(|p| p.name == key) {
            return Err(bad(format!(
                "has no parameter `{key}`; its parameters are {}",
                params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    for param in params {
        if param.required && !object.contains_key(param.name) {
            return Err(bad(format!("needs `{}` ({})", param.name, param.doc)));
        }
    }
    serde_json::from_value(Value::Object(object)).map_err(|e| bad(e.to_string()))
}

/// The primitives a host offers, by name.
pub struct Registry {
    primitives: BTreeMap<String, Box<dyn DynPrimitive>>,
}

impl Registry {
    /// A registry with no primitive.
    pub fn empty() -> Self {
        Self {
            primitives: BTreeMap::new(),
        }
    }

    /// A registry with every built-in primitive.
    pub fn builtin() -> Self {
        let mut registry = Self::empty();
        crate::builtin::register_all(&mut registry);
        registry
    }

    /// Adds `primitive`; a name already taken is refused, so nothing replaces a built-in.
    pub fn register(&mut self, primitive: impl DynPrimitive + 'static) -> Result<(), Error> {
        let name = primitive.name().to_owned();
        if self.primitives.contains_key(&name) {
            return Err(Error::Duplicate(name));
        }
        self.primitives.insert(name, Box::new(primitive));
        Ok(())
    }

    /// The primitive named `name`.
    pub fn get(&self, name: &str) -> Result<&dyn DynPrimitive, Error> {
        self.primitives
            .get(name)
            .map(|p| p.as_ref())
            .ok_or_else(|| Error::Unknown(name.to_owned()))
    }

    /// Every primitive, by name.
    pub fn iter(&self) -> impl Iterator<Item = &dyn DynPrimitive> {
        self.primitives.values().map(|p| p.as_ref())
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::builtin()
    }
}
