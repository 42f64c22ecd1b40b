//! The guard's leave to run one action. Only the guard makes a [`Permit`] (its field is private
//! to this crate), after it allowed the action or a person approved what it asked; running a
//! primitive takes one. So no caller, a front-end or an embedding program, can run an action the
//! guard has not allowed: the compiler refuses it.

/// Leave to run the action named [`Permit::action`], once.
#[derive(Debug, PartialEq, Eq)]
pub struct Permit {
    action: String,
}

impl Permit {
    /// Made only by the guard.
    pub(crate) fn new(action: String) -> Self {
        Self { action }
    }

    /// The action it allows, as the effect named it (`fs-write src/lib.rs`).
    pub fn action(&self) -> &str {
        &self.action
    }
}
