//! The [`Host`] of a session's Scheme: every primitive a script calls goes through
//! [`crate::call::call`], the one call path, so the guard judges it, the person is asked when
//! the guard asks, and the call, decision and result are logged like any agent's.

use nodwyn_prim::{Param, ParamKind, Registry};
use nodwyn_scheme::{Host, PrimitiveSignature, WorktreeFacts};
use serde_json::Value;

use crate::Store;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::call::{CallJudges, CallPath, Calling, call_spending};
use crate::event::WorktreeFacts as SessionWorktree;
use crate::host::HostSettings;
use crate::person::Person;

/// Runs a script's primitive calls in session `id`.
pub(crate) struct SessionHost<'a> {
    /// Where the session is.
    pub store: &'a Store,
    /// The session.
    pub id: &'a str,
    /// The primitives.
    pub registry: &'a Registry,
    /// Who the guard's questions go to.
    pub person: &'a mut dyn Person,
    /// What primitives take from the person's environment.
    pub settings: &'a HostSettings,
    /// Who judges each call after the guard's rules.
    pub judges: &'a dyn CallJudges,
    /// The agent's turn's spending of irreversible actions, when the script runs in one; else
    /// each call is a turn of its own.
    pub spent: Option<&'a AtomicU32>,
    /// Whether the calls are the repository's approved strategy's (a hook), recorded as its.
    pub strategy: bool,
    /// The only primitives it runs (a sub-agent's `'tools`); `None`: every one.
    pub only: Option<&'a [String]>,
}

impl Host for SessionHost<'_> {
    fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        if let Some(only) = self.only
            && !only.iter().any(|allowed| allowed == name)
        {
            return Err(format!(
                "{name} did not run: it is not one of the tools this program's agent was given ({})",
                only.join(", ")
            ));
        }
        let mut spent = self.spent.map_or(0, |spent| spent.load(Ordering::SeqCst));
        let calling = if self.strategy {
            Calling::Strategy
        } else {
            Calling::Run
        };
        let path = CallPath {
            store: self.store,
            registry: self.registry,
            settings: self.settings,
            judges: self.judges,
            learned: &crate::call::Learned::default(),
        };
        let called = call_spending(
            &path,
            self.id,
            calling,
            name,
            &Value::Array(args),
            self.person,
            &mut spent,
        );
        if let Some(shared) = self.spent {
            shared.store(spent, Ordering::SeqCst);
        }
        called
            .map(|called| called.result)
            .map_err(|error| error.to_string())
    }
}

/// A host that runs only primitives that read, for composing a prompt and loading a
/// repository's prompts.scm: neither may change anything.
pub(crate) struct ReadOnlyHost<'a> {
    /// The host that runs what is allowed.
    pub inner: &'a mut dyn Host,
    /// Where to find whether a primitive only reads.
    pub registry: &'a Registry,
}

impl Host for ReadOnlyHost<'_> {
    fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        if self.registry.get(name).is_ok_and(|p| p.read_only()) {
            return self.inner.call(name, args);
        }
        let readers: Vec<&str> = self
            .registry
            .iter()
            .filter(|p| p.read_only())
            .map(|p| p.name())
            .collect();
        Err(format!(
            "{name} cannot run here: while a prompt is composed or a repository's prompts.scm loads, only primitives that read run ({})",
            readers.join(", ")
        ))
    }
}

/// Every primitive of `registry`, built-in or custom, as Scheme binds it.
pub fn signatures(registry: &Registry) -> Vec<PrimitiveSignature> {
    registry
        .iter()
        .map(|primitive| PrimitiveSignature {
            name: primitive.name().to_owned(),
            description: primitive.description().to_owned(),
            params: primitive.params().iter().map(Param::shown).collect(),
            worktree_only: primitive.worktree_only(),
            gathers_strings: primitive
                .params()
                .first()
                .is_some_and(|param| param.kind == ParamKind::StringList),
        })
        .collect()
}

/// A session's worktree as `(worktree)` reports it.
pub(super) fn worktree_facts(facts: &SessionWorktree) -> WorktreeFacts {
    WorktreeFacts {
        repository: facts.repository.display().to_string(),
        branch: facts.branch.clone(),
        name: facts.name.clone().unwrap_or_default(),
        base: facts.base.clone(),
        base_commit: facts.base_commit.clone(),
        path: facts.path.display().to_string(),
        port: facts.port,
    }
}
