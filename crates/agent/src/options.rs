//! What a run may do: its limits, where it works, how much of a tool's result the model sees.

use nodwyn_core::scripts::ScriptOptions;
use nodwyn_core::worktree::NewWorktree;
use nodwyn_protocol::WorktreeMode;

/// The settings of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// At most this many model calls in this run (`--max-model-calls`).
    pub max_model_calls: Option<u32>,
    /// At most this many tokens, read and written, in this run (`--max-tokens`).
    pub max_tokens: Option<u64>,
    /// Where the session works; in `auto`, the first call that would change anything first
    /// moves the session into a new worktree.
    pub worktree: WorktreeMode,
    /// Where such a worktree goes and what it starts from (its folder is the session's).
    pub new_worktree: NewWorktree,
    /// The longest tool result the model is shown, in characters; the rest is cut with a note.
    pub tool_result_chars: usize,
    /// The model's context, in tokens: past three quarters of it, the oldest tool results are
    /// elided from what the model is sent.
    pub context_tokens: Option<u64>,
    /// The person's prompts file and Scheme's time limit.
    pub scripts: ScriptOptions,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_model_calls: None,
            max_tokens: None,
            worktree: WorktreeMode::Auto,
            new_worktree: NewWorktree::default(),
            tool_result_chars: 30_000,
            context_tokens: None,
            scripts: ScriptOptions::default(),
        }
    }
}
