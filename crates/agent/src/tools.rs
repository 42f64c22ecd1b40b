//! The tools a model is offered and what it is shown of their results: every primitive of the
//! registry with its JSON Schema (`git-land` only in a worktree session, as the prompt's tool
//! section lists them), plus `scheme`, a Scheme program in which the primitives are procedures
//! (each call still guarded and logged); a result longer than the model should see is cut with
//! a note saying how much was left out.

use nodwyn_core::prim::{Param, Registry};
use nodwyn_model::Tool;
use serde_json::json;

/// The tool that runs a Scheme program.
pub const SCHEME_TOOL: &str = "scheme";

/// The tool that hands a task to one of the session's sub-agents.
pub(crate) const AGENT_TOOL: &str = "agent";

/// The `agent` tool, for the sub-agents named.
pub(crate) fn agent_tool(names: &[String]) -> Tool {
    Tool {
        name: AGENT_TOOL.to_owned(),
        description: "Hands a task to one of this session's sub-agents, which works on it alone, in the session's worktree, and gives back its final answer.".to_owned(),
        schema: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": names, "description": "the sub-agent"},
                "task": {"type": "string", "description": "what it should do"},
            },
            "required": ["name", "task"],
            "additionalProperties": false,
        }),
    }
}

/// The tools for a session with (`in_worktree`) or without a worktree.
pub(crate) fn offered(registry: &Registry, in_worktree: bool) -> Vec<Tool> {
    let mut tools: Vec<Tool> = registry
        .iter()
        .filter(|primitive| in_worktree || !primitive.worktree_only())
        .map(|primitive| Tool {
            name: primitive.name().to_owned(),
            description: primitive.description().to_owned(),
            schema: Param::json_schema(primitive.params()),
        })
        .collect();
    tools.push(Tool {
        name: SCHEME_TOOL.to_owned(),
        description: "Runs a Scheme program in the session, in which every primitive is a procedure of its own name (for example (fs-read \"src/lib.rs\")); each call is judged and logged as a tool call is. Gives back the program's value. Use it to do several steps in one call.".to_owned(),
        schema: json!({
            "type": "object",
            "properties": {"program": {"type": "string", "description": "The Scheme program."}},
            "required": ["program"],
            "additionalProperties": false,
        }),
    });
    tools
}

/// `text` cut to `longest` characters, with a note saying how much was left out.
pub(crate) fn cut(text: String, longest: usize) -> String {
    let count = text.chars().count();
    if count <= longest {
        return text;
    }
    let kept: String = text.chars().take(longest).collect();
    format!(
        "{kept}\n[nodwyn: {} more characters left out; ask for a narrower part]",
        count - longest
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_land_is_offered_only_in_a_worktree() {
        let registry = Registry::builtin();
        let names = |in_worktree| -> Vec<String> {
            offered(&registry, in_worktree)
                .into_iter()
                .map(|t| t.name)
                .collect()
        };
        assert!(names(true).contains(&"git-land".to_owned()));
        assert!(!names(false).contains(&"git-land".to_owned()));
        assert!(names(false).contains(&"fs-read".to_owned()));
        assert!(names(false).contains(&SCHEME_TOOL.to_owned()));
        let read = offered(&registry, false)
            .into_iter()
            .find(|t| t.name == "fs-read")
            .unwrap();
        assert_eq!(read.schema["type"], "object");
        assert_eq!(read.schema["required"][0], "path");
    }

    #[test]
    fn long_results_are_cut_with_a_note() {
        assert_eq!(cut("short".to_owned(), 10), "short");
        let cut = cut("é".repeat(25), 10);
        assert!(cut.starts_with(&"é".repeat(10)));
        assert!(cut.ends_with("[nodwyn: 15 more characters left out; ask for a narrower part]"));
    }
}
