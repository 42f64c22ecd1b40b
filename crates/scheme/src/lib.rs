//! `nodwyn-scheme`: the embedded Scheme (steel) in which users shape nodwyn without recompiling
//! it: the system prompt an agent receives, a repository's strategies, and their own procedures.
//!
//! Scheme touches the world only through nodwyn's primitives, each bound under its name and run
//! by the [`Host`] (nodwyn-core's call path, so the guard judges every call). The engine is
//! hardened ([`sandbox`]), untrusted text is screened before it compiles ([`screen`]), and every
//! run has a time limit ([`Limits`]).

mod allocation;
mod bounds;
mod error;
mod host;
mod interpreter;
mod layers;
pub mod sandbox;
pub mod screen;
mod scripts;
mod source;
pub mod value;
mod warm;

pub use allocation::CountingAllocator;
pub use error::Error;
pub use host::{Host, Instructions, NoSession, PrimitiveSignature, Surroundings, WorktreeFacts};
pub use interpreter::{Evaluated, Interpreter, Interrupter, Limits, THREAD_NAME};
pub use layers::defined_names;
pub use scripts::{Agent, DEFAULT_PROMPTS, LayerId, Scripts};
pub use source::{Origin, Source, json_literal, string_literal};
pub use warm::keep_warm;
