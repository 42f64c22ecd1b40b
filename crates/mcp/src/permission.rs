//! Claude Code's `--permission-prompt-tool`: Claude Code asks the `permission_prompt` tool
//! whether one of its own tools may run (`tool_name`, `input`), and nodwyn answers by its guard,
//! judging the action as the primitive that does the same would be judged: `Bash` as
//! `shell-exec`, `Write` and `NotebookEdit` as `fs-write`, `Edit` and `MultiEdit` as `fs-edit`,
//! `Read` as `fs-read` of that path. Claude Code runs its own tools outside nodwyn's sandbox, so
//! a command is judged as unconfined (a person confirms it). The answer is Claude Code's JSON:
//! `{"behavior": "allow", "updatedInput": ...}` or `{"behavior": "deny", "message": ...}`.

use serde_json::{Value, json};

/// Why Claude Code's own tools are judged as unconfined.
pub(crate) const UNCONFINED: &str =
    "Claude Code runs its own tools outside nodwyn's sandbox (its Bash is not confined)";

/// The primitive and arguments that stand for Claude Code's tool `tool` with `input`, or why
/// nodwyn does not judge it.
pub(crate) fn as_primitive(tool: &str, input: &Value) -> Result<(&'static str, Value), String> {
    let text = |key: &str| input[key].as_str().unwrap_or_default().to_owned();
    Ok(match tool {
        "Bash" => ("shell-exec", json!({"script": text("command")})),
        "Write" => (
            "fs-write",
            json!({"path": text("file_path"), "content": text("content")}),
        ),
        "NotebookEdit" => (
            "fs-write",
            json!({"path": text("notebook_path"), "content": text("new_source")}),
        ),
        "Edit" => (
            "fs-edit",
            json!({"path": text("file_path"), "old": text("old_string"), "new": text("new_string")}),
        ),
        "MultiEdit" => (
            "fs-edit",
            json!({"path": text("file_path"), "old": "", "new": ""}),
        ),
        "Read" => ("fs-read", json!({"path": text("file_path")})),
        other => {
            return Err(format!(
                "nodwyn judges Bash, Read, Edit, MultiEdit, Write and NotebookEdit; {other} is none of them, so nodwyn does not approve it"
            ));
        }
    })
}

/// Claude Code's answer allowing the tool with its input unchanged.
pub(crate) fn allow(input: &Value) -> Value {
    json!({"behavior": "allow", "updatedInput": input})
}

/// Claude Code's answer denying the tool, saying why.
pub(crate) fn deny(message: String) -> Value {
    json!({"behavior": "deny", "message": message})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_tools_are_judged_as_the_primitives_that_do_the_same() {
        let (name, args) = as_primitive("Bash", &json!({"command": "rm -rf /"})).unwrap();
        assert_eq!((name, args), ("shell-exec", json!({"script": "rm -rf /"})));
        let (name, args) = as_primitive(
            "Edit",
            &json!({"file_path": "a.rs", "old_string": "x", "new_string": "y"}),
        )
        .unwrap();
        assert_eq!(name, "fs-edit");
        assert_eq!(args["path"], "a.rs");
        assert!(
            as_primitive("WebFetch", &json!({}))
                .unwrap_err()
                .contains("WebFetch")
        );
    }
}
