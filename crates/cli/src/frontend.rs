//! How `nodwyn run` and `chat` show a session's notifications on a terminal: the model's text
//! streams to stderr as it comes, each of its lines behind a gutter (`│ `) so it cannot pass for
//! nodwyn's own lines, each tool call is one line (the tool, short arguments, how it went), and
//! the guard's questions are asked inline, from the first column (by `remote.rs`). Everything the
//! model or a tool wrote is escaped before it reaches the terminal. With `--json` nothing is shown
//! here: the protocol's messages go to stdout as they are.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

use nodwyn_protocol::{Item, Notification};
use nodwyn_text::{EscapingWriter, escape_line};

use crate::status::StatusLine;

/// What every line of the model's text starts with on the terminal.
pub(crate) const MODEL_GUTTER: &str = "\u{2502} ";

/// How `nodwyn run` shows a run.
pub(crate) struct RunView {
    json: bool,
    state: Mutex<ViewState>,
    /// Each primitive's parameters in the order it declares them: a call's arguments are shown
    /// in it (the model's JSON object comes sorted by name).
    parameters: HashMap<String, Vec<&'static str>>,
    /// What runs now, on the terminal's last line.
    status: StatusLine,
}

/// What the status line shows after a notification.
enum Next {
    /// What it showed.
    Keep,
    /// This, from now.
    Show(String),
    /// Nothing.
    Nothing,
}

#[derive(Default)]
struct ViewState {
    /// The short form of each tool call's arguments, by call id, for its result's line, and the
    /// lines of a value that has several (a script), shown under it.
    calls: HashMap<String, (String, Vec<String>)>,
    /// Whether the model's text left the line open.
    mid_line: bool,
    /// The calls of the model's last answer not started yet, in order: the tool and its short
    /// arguments, for the status line.
    starting: std::collections::VecDeque<(String, String)>,
}

impl RunView {
    /// A view printing JSON Lines (`json`) or text.
    pub(crate) fn new(json: bool) -> Self {
        Self {
            json,
            state: Mutex::new(ViewState::default()),
            parameters: HashMap::new(),
            status: StatusLine::new(!json),
        }
    }

    /// The view, showing the calls of `registry`'s primitives with their arguments in the order
    /// each declares them.
    pub(crate) fn knowing(mut self, registry: &nodwyn_core::prim::Registry) -> Self {
        self.parameters = registry
            .iter()
            .map(|primitive| {
                let names = primitive.params().iter().map(|p| p.name).collect();
                (primitive.name().to_owned(), names)
            })
            .collect();
        self
    }

    fn text(&self, notification: &Notification) {
        match self.status.around(|| self.write(notification)) {
            Next::Keep => {}
            Next::Show(what) => self.status.set(what),
            Next::Nothing => self.status.clear(),
        }
    }

    /// Writes what `notification` shows; says what the status line shows next, and whether the
    /// model's text left a line open.
    fn write(&self, notification: &Notification) -> (Next, bool) {
        let mut next = Next::Keep;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut stderr = std::io::stderr().lock();
        // Every line carries what a model, a tool or a repository wrote: escaped, never obeyed.
        let mut line = |state: &mut ViewState, text: String| {
            if state.mid_line {
                let _ = writeln!(stderr);
                state.mid_line = false;
            }
            let _ = writeln!(stderr, "{}", escape_line(&text));
        };
        match notification {
            Notification::SessionStarted {
                session,
                root,
                branch,
            } => line(
                &mut state,
                match branch {
                    Some(branch) => format!(
                        "nodwyn: session {session} in {} (branch {branch})",
                        root.display()
                    ),
                    None => format!("nodwyn: session {session} in {}", root.display()),
                },
            ),
            // One light line: the folder's name and the branch (`/worktree` in chat, or
            // `nodwyn worktree path`, gives the whole path).
            Notification::SessionWorktree {
                root,
                branch,
                uncommitted,
                ..
            } => {
                line(
                    &mut state,
                    format!(
                        "nodwyn: switched to worktree {}, branch {branch}",
                        root.file_name()
                            .unwrap_or(root.as_os_str())
                            .to_string_lossy()
                    ),
                );
                if *uncommitted > 0 {
                    line(
                        &mut state,
                        format!(
                            "note: {uncommitted} uncommitted change(s) in the checkout were not carried into the worktree; they stay in the checkout"
                        ),
                    );
                }
            }
            Notification::ItemDelta { text, .. } => {
                // Every line of the model's text starts with the gutter, so it cannot spell a
                // line of nodwyn's own (a question starts at the first column).
                let mut writer = EscapingWriter::new(&mut stderr);
                for piece in text.split_inclusive('\n') {
                    if !state.mid_line {
                        let _ = writer.write_all(MODEL_GUTTER.as_bytes());
                    }
                    let _ = writer.write_all(piece.as_bytes());
                    state.mid_line = !piece.ends_with('\n');
                }
                let _ = writer.flush();
            }
            Notification::ItemCompleted {
                value: Item::AssistantMessage { tool_calls, .. },
                ..
            } => {
                for call in tool_calls {
                    let order = self
                        .parameters
                        .get(&call.tool)
                        .map_or(&[][..], Vec::as_slice);
                    let shown = shown_arguments(&call.arguments, order);
                    state
                        .starting
                        .push_back((call.tool.clone(), shown.0.clone()));
                    state.calls.insert(call.call_id.clone(), shown);
                }
            }
            Notification::ItemCompleted {
                value:
                    Item::ToolResult {
                        call_id,
                        tool,
                        ok,
                        content,
                        ..
                    },
                ..
            } => {
                let (arguments, script) = state.calls.remove(call_id).unwrap_or_default();
                let how = how_it_went(*ok, content);
                line(&mut state, format!("  [{tool}] {arguments}: {how}"));
                for shown in script {
                    line(&mut state, format!("  | {shown}"));
                }
            }
            Notification::TurnCompleted { usage, .. } => {
                next = Next::Nothing;
                line(
                    &mut state,
                    format!(
                        "nodwyn: {} model call(s), {} tokens ({} in, {} out)",
                        usage.model_calls,
                        usage.input_tokens + usage.output_tokens,
                        usage.input_tokens,
                        usage.output_tokens
                    ),
                );
            }
            Notification::TurnStarted { .. } => next = Next::Show(WAITING.to_owned()),
            // The strategy's plan, each time it changes: `[x]` done, `[~]` under way, `[ ]` not
            // begun.
            Notification::TurnPlan { steps, .. } => {
                let shown: Vec<String> = steps
                    .iter()
                    .map(|step| {
                        let mark = match step.status {
                            nodwyn_protocol::PlanStatus::Completed => "[x]",
                            nodwyn_protocol::PlanStatus::InProgress => "[~]",
                            nodwyn_protocol::PlanStatus::Pending => "[ ]",
                        };
                        format!("{mark} {}", step.step)
                    })
                    .collect();
                line(&mut state, format!("nodwyn: plan: {}", shown.join("  ")));
            }
            // The model's reasoning is not the answer: the status line says it reasons.
            Notification::ItemReasoning { .. } => {
                next = Next::Show("the model is reasoning".to_owned());
            }
            Notification::ItemStarted {
                kind,
                tool: Some(tool),
                ..
            } if kind == "tool_call" => {
                let arguments = match state.starting.pop_front() {
                    Some((started, arguments)) if started == *tool => arguments,
                    _ => String::new(),
                };
                next = Next::Show(format!("running {tool} {arguments}").trim_end().to_owned());
            }
            _ => {}
        }
        if let Notification::ItemDelta { .. } = notification {
            next = Next::Nothing;
        }
        if let Notification::ItemCompleted {
            value: Item::ToolResult { .. },
            ..
        } = notification
        {
            next = Next::Show(WAITING.to_owned());
        }
        (next, state.mid_line)
    }
}

impl RunView {
    /// Makes room for a question: it starts on a fresh line, after whatever the model was
    /// writing, with no status line under it.
    pub(crate) fn before_question(&self) {
        self.status.clear();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.mid_line {
            let _ = writeln!(std::io::stderr());
            state.mid_line = false;
        }
    }
}

/// What the status line says while the model is asked.
const WAITING: &str = "waiting for the model";

impl RunView {
    /// Shows `notification` as text on stderr (nothing with `--json`).
    pub(crate) fn notify(&self, notification: &Notification) {
        if !self.json {
            self.text(notification);
        }
    }
}

/// How many lines of a multi-line argument (a script) the run view shows under the call.
const SHOWN_SCRIPT_LINES: usize = 40;

/// A tool call's arguments as the run view shows them: one short line (each `name=value`, long
/// values cut, in the tool's `order`), and every line of a value that has several (a script the
/// command runs), so the person sees all of what ran, not its first line.
fn shown_arguments(arguments: &serde_json::Value, order: &[&str]) -> (String, Vec<String>) {
    let mut lines = Vec::new();
    let mut gather = |value: &serde_json::Value| {
        if let Some(text) = value.as_str()
            && text.trim_end().contains('\n')
        {
            let all: Vec<&str> = text.trim_end().lines().collect();
            lines.extend(all.iter().take(SHOWN_SCRIPT_LINES).map(|l| (*l).to_owned()));
            if all.len() > SHOWN_SCRIPT_LINES {
                lines.push(format!("... {} more lines", all.len() - SHOWN_SCRIPT_LINES));
            }
        }
    };
    match arguments {
        serde_json::Value::Object(map) => map.values().for_each(|value| match value {
            serde_json::Value::Array(items) => items.iter().for_each(&mut gather),
            other => gather(other),
        }),
        other => gather(other),
    }
    (short_arguments(arguments, order), lines)
}

/// How a tool call went, as its line ends: `ok`, how a command ended, or refused or failed with
/// the code and the reason first. The notice of a move into the worktree that the result starts
/// with was shown on a line of its own already, and is passed over.
fn how_it_went(ok: bool, content: &str) -> String {
    let content = match content.split_once('\n') {
        Some((first, rest)) if first.starts_with(nodwyn_agent::MOVED_NOTICE) => rest,
        _ => content,
    };
    if ok {
        how_a_command_ended(content).unwrap_or_else(|| "ok".to_owned())
    } else {
        refused_or_failed(content)
    }
}

/// A tool's result that is an error, as the run view says it: refused (the guard, the person,
/// a rule of the step) or failed, its code, and its reason. The result starts `code: sentence`.
fn refused_or_failed(content: &str) -> String {
    let first = content.lines().next().unwrap_or_default();
    let (code, why) = match first.split_once(": ") {
        Some((code, why))
            if !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
        {
            (code, why)
        }
        _ => ("", first),
    };
    // Every refusal has a code of its own; what failed (could not be done) is these few.
    let failed = matches!(
        code,
        "" | "io"
            | "io_error"
            | "encode"
            | "random"
            | "walk"
            | "git_not_started"
            | "git_failed"
            | "git_read"
            | "spawn_failed"
            | "sandbox_unavailable"
            | "made_but_failed"
            | "log_unwritable"
            | "no_temporary_folder"
            | "landed_unrecorded"
            | "scheme"
    );
    let refused = !failed;
    let how = if refused { "refused" } else { "failed" };
    match code {
        "" => format!("{how}: {}", shorten(why, 160)),
        code => format!("{how} ({code}): {}", shorten(why, 160)),
    }
}

/// How a command a tool ran ended, when not plainly (its result says it timed out, or gives an
/// exit code other than 0); `None` for anything else.
fn how_a_command_ended(content: &str) -> Option<String> {
    let result: serde_json::Value = serde_json::from_str(content).ok()?;
    if result["timed_out"] == true {
        return Some("timed out and was stopped".to_owned());
    }
    match result["status"].as_i64() {
        Some(0) => None,
        Some(code) => Some(format!("exit {code}")),
        None if result.get("status").is_some_and(serde_json::Value::is_null) => {
            Some("ended by a signal".to_owned())
        }
        None => None,
    }
}

/// A tool call's arguments on one short line: each `name=value`, long values cut, in the
/// tool's declared `order` (names it does not declare last).
fn short_arguments(arguments: &serde_json::Value, order: &[&str]) -> String {
    match arguments {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by_key(|(name, _)| {
                order.iter().position(|p| p == name).unwrap_or(order.len())
            });
            entries
                .into_iter()
                .map(|(name, value)| {
                    let value = match value {
                        serde_json::Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    format!("{name}={}", shorten(&value, 60))
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
        other => shorten(&other.to_string(), 60),
    }
}

fn shorten(text: &str, longest: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > longest || line.len() < text.len() {
        format!("{}...", line.chars().take(longest).collect::<String>())
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOVED: &str = "nodwyn: this session moved into its own worktree /w/1 on branch nodwyn/1 before this call; every relative path now resolves there";

    #[test]
    fn a_result_after_the_move_into_the_worktree_is_told_by_its_own_first_line() {
        let refused = format!("{MOVED}\nneeds_person: fs-write README.md needs a person");
        assert_eq!(
            how_it_went(false, &refused),
            "refused (needs_person): fs-write README.md needs a person"
        );
        let failed_tests = format!("{MOVED}\n{{\"status\": 1, \"stdout\": \"\"}}");
        assert_eq!(how_it_went(true, &failed_tests), "exit 1");
        assert_eq!(how_it_went(true, "{\"status\": 0}"), "ok");
    }

    #[test]
    fn a_refusal_is_told_from_a_failure_by_its_code() {
        assert_eq!(
            how_it_went(
                false,
                "text_not_found: fs-edit: the text to replace does not occur"
            ),
            "refused (text_not_found): fs-edit: the text to replace does not occur"
        );
        assert_eq!(
            how_it_went(false, "git_failed: git could not write the index"),
            "failed (git_failed): git could not write the index"
        );
        assert_eq!(
            how_it_went(false, "the call failed: it panicked"),
            "failed: the call failed: it panicked"
        );
    }

    #[test]
    fn arguments_are_shown_in_the_order_the_tool_declares_them() {
        let arguments = serde_json::json!({"timeout_seconds": 30, "argv": ["cargo", "test"]});
        assert_eq!(
            short_arguments(&arguments, &["argv", "timeout_seconds"]),
            r#"argv=["cargo","test"] timeout_seconds=30"#
        );
        let edit = serde_json::json!({"new": "b", "old": "a", "path": "src/lib.rs"});
        assert_eq!(
            short_arguments(&edit, &["path", "old", "new"]),
            "path=src/lib.rs old=a new=b"
        );
    }
}
