//! The tools a client is offered: the worktree surface (`worktree_create`, `worktree_status`,
//! ..., `worktree_land` being the `git-land` primitive), every other primitive of the registry
//! under its name with underscores (`fs-read` as `fs_read`, custom ones included) with the JSON
//! Schema of the parameters `nodwyn call --list` shows, and `scheme`.

use std::sync::Arc;

use nodwyn_core::prim::{Param, Registry};
use rmcp::model::Tool;
use serde_json::{Value, json};

/// What a tool name stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// One step of a session's worktree.
    Worktree(Step),
    /// A primitive of the registry, by its own name.
    Primitive(String),
    /// A Scheme program in the session.
    Scheme,
    /// Claude Code's question whether one of its own tools may run.
    PermissionPrompt,
}

/// The worktree surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Create,
    Resume,
    Status,
    List,
    Diff,
    Land,
    Discard,
    Keep,
    Close,
}

/// The primitives the worktree surface stands for, not offered under their own names.
const IN_THE_SURFACE: &[&str] = &["git-land", "worktree"];

const STEPS: &[(&str, Step, &str)] = &[
    (
        "worktree_create",
        Step::Create,
        "Opens a session in a new git worktree and branch of the repository, and makes it this connection's active session: every other tool works in it.",
    ),
    (
        "worktree_resume",
        Step::Resume,
        "Makes a session made earlier this connection's active session again (its worktree is made again if it is gone).",
    ),
    (
        "worktree_status",
        Step::Status,
        "The active session: its worktree's path, branch, base, commits ahead of the base, and whether it has uncommitted changes.",
    ),
    (
        "worktree_list",
        Step::List,
        "Every session's worktree of the repository.",
    ),
    (
        "worktree_diff",
        Step::Diff,
        "The active session's changes since its base commit, file by file.",
    ),
    (
        "worktree_land",
        Step::Land,
        "Lands the active session's work on its base branch: commits what is uncommitted with the message, rebases onto the newest base, scans for credentials, pushes by fast-forward. Judged by the guard like any call.",
    ),
    (
        "worktree_discard",
        Step::Discard,
        "Removes the active session's worktree and branch when nothing would be lost; with force, discards what would be lost (a person must approve), naming it.",
    ),
    (
        "worktree_keep",
        Step::Keep,
        "Hands the active session's worktree over to the person; nodwyn no longer manages it.",
    ),
    (
        "worktree_close",
        Step::Close,
        "Closes the active session; its worktree goes only if nothing would be lost, and the answer says why it stayed.",
    ),
];

/// The tool named `name` of a registry, if there is one.
pub(crate) fn target(registry: &Registry, name: &str) -> Option<Target> {
    if let Some((_, step, _)) = STEPS.iter().find(|(tool, _, _)| *tool == name) {
        return Some(Target::Worktree(*step));
    }
    if name == "scheme" {
        return Some(Target::Scheme);
    }
    if name == "permission_prompt" {
        return Some(Target::PermissionPrompt);
    }
    registry
        .iter()
        .find(|p| !IN_THE_SURFACE.contains(&p.name()) && tool_name(p.name()) == name)
        .map(|p| Target::Primitive(p.name().to_owned()))
}

/// A primitive's tool name: `-` becomes `_`, as MCP clients show names.
pub(crate) fn tool_name(primitive: &str) -> String {
    primitive.replace('-', "_")
}

/// Every tool, worktree surface first.
pub(crate) fn all(registry: &Registry) -> Vec<Tool> {
    let mut tools: Vec<Tool> = STEPS
        .iter()
        .map(|(name, step, description)| tool(name, description, step_schema(*step)))
        .collect();
    for primitive in registry.iter() {
        if IN_THE_SURFACE.contains(&primitive.name()) {
            continue;
        }
        tools.push(tool(
            &tool_name(primitive.name()),
            primitive.description(),
            Param::json_schema(primitive.params()),
        ));
    }
    tools.push(tool(
        "scheme",
        "Runs a Scheme program in the active session, in which every primitive is a procedure of its own name (for example (fs-read \"src/lib.rs\")); each call is judged and logged as a tool call is.",
        json!({
            "type": "object",
            "properties": {"program": {"type": "string", "description": "The Scheme program."}},
            "required": ["program"],
            "additionalProperties": false,
        }),
    ));
    tools.push(tool(
        "permission_prompt",
        "For Claude Code's --permission-prompt-tool: whether one of its own tools may run, answered by nodwyn's guard as the primitive doing the same would be judged (Bash as shell-exec, Edit as fs-edit, Write as fs-write, Read as fs-read).",
        json!({
            "type": "object",
            "properties": {
                "tool_name": {"type": "string", "description": "the tool Claude Code wants to run"},
                "input": {"type": "object", "description": "its input"},
                "tool_use_id": {"type": "string", "description": "Claude Code's id of the tool use"},
            },
            "required": ["tool_name", "input"],
        }),
    ));
    tools
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else {
        unreachable!("every tool's schema is an object")
    };
    Tool::new(name.to_owned(), description.to_owned(), Arc::new(schema))
}

fn step_schema(step: Step) -> Value {
    let none = json!({"type": "object", "properties": {}, "additionalProperties": false});
    match step {
        Step::Create => json!({
            "type": "object",
            "properties": {
                "base": {"type": "string", "description": "the revision to start from (default: the checkout's HEAD)"},
                "name": {"type": "string", "description": "a name for the session, put in its branch's name"},
                "pr": {"type": "string", "description": "a pull request to start from: its number or address"},
            },
            "additionalProperties": false,
        }),
        Step::Resume => json!({
            "type": "object",
            "properties": {"session": {"type": "string", "description": "the session's id, its 8 hex digits, or its name"}},
            "required": ["session"],
            "additionalProperties": false,
        }),
        Step::Land => json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "the commit message for the changes"},
                "strategy": {"type": "string", "description": "ff-only (the default), squash or no-ff"},
            },
            "required": ["message"],
            "additionalProperties": false,
        }),
        Step::Discard => json!({
            "type": "object",
            "properties": {"force": {"type": "boolean", "description": "discard what would be lost (a person must approve)"}},
            "additionalProperties": false,
        }),
        Step::Status | Step::List | Step::Diff | Step::Keep | Step::Close => none,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_a_target() {
        let registry = Registry::builtin();
        let tools = all(&registry);
        let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        for expected in [
            "worktree_create",
            "worktree_land",
            "fs_read",
            "fs_write",
            "shell_exec",
            "git_status",
            "git_diff",
            "scheme",
        ] {
            assert!(names.contains(&expected.to_owned()), "{names:?}");
        }
        assert!(!names.contains(&"git_land".to_owned()));
        for tool in &tools {
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
            assert!(target(&registry, &tool.name).is_some(), "{}", tool.name);
        }
        assert_eq!(
            target(&registry, "fs_read"),
            Some(Target::Primitive("fs-read".to_owned()))
        );
        assert_eq!(target(&registry, "git_land"), None);
    }
}
