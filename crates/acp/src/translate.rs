//! What a session's events on nodwyn's wire become for an editor: the model's text as it
//! streams, and each tool call announced (its kind, title, the files it touches, a write's diff)
//! and then its progress and result. The editor's own names are the SDK's, in `sdk`; here they
//! are plain values, so the translation is tested without a connection.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One update of a session for the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Update {
    /// What the person said (only when a thread's conversation is read back).
    UserText(String),
    /// Text of the agent's answer, as it streams.
    Text(String),
    /// The model's reasoning before its answer, as it streams (never part of the answer).
    Thought(String),
    /// The turn's plan, whole: each step and where it stands.
    Plan(Vec<(String, Step)>),
    /// A tool call the model made, announced before it runs.
    ToolCall {
        /// The model's id for the call.
        id: String,
        /// What it does, in a few words (`fs-write notes.txt`).
        title: String,
        /// What kind of action it is.
        kind: Kind,
        /// The files it touches, as absolute paths.
        locations: Vec<PathBuf>,
        /// Its arguments as the model gave them.
        input: Value,
    },
    /// How a tool call goes on: started, or ended with its result.
    ToolStatus {
        /// The model's id for the call.
        id: String,
        /// Where it stands.
        status: Status,
        /// What it gave back (the result, or why it did not run).
        output: Option<String>,
        /// For a write or an edit that ran: the file before and after (for a review: each
        /// file's).
        diffs: Vec<Diff>,
    },
}

/// The kind of a tool call, as editors group them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Reads a file.
    Read,
    /// Writes or edits a file.
    Edit,
    /// Lists or searches files.
    Search,
    /// Runs a command.
    Execute,
    /// Anything else (landing, Scheme, a sub-agent).
    Other,
}

/// Where a plan's step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Not begun.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Running (the guard judged it, or is asking).
    InProgress,
    /// Ran and succeeded.
    Completed,
    /// Refused, declined or failed.
    Failed,
}

/// A file before and after a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Diff {
    /// The file, absolute.
    pub path: PathBuf,
    /// Its text before (`None`: it did not exist, or was not text).
    pub old: Option<String>,
    /// Its text after.
    pub new: String,
}

/// Turns one session's wire messages into updates, remembering what is announced and running.
pub(crate) struct Translator {
    session: String,
    root: PathBuf,
    /// Assistant items whose text streamed (their completion repeats it).
    streamed: HashSet<String>,
    /// Calls announced and not started yet, in the order the model made them.
    announced: VecDeque<String>,
    /// The diff each announced write would make, from the file as it was when announced.
    diffs: HashMap<String, Diff>,
    /// The call running now (the one a question is about).
    running: Option<String>,
    /// Whether the conversation is read back from the log: no diffs then (the files have moved
    /// on since), and the person's messages are shown.
    replaying: bool,
}

impl Translator {
    /// A translator of session `session`'s events, whose files are under `root`.
    pub(crate) fn new(session: &str, root: &Path) -> Self {
        Self {
            session: session.to_owned(),
            root: root.to_path_buf(),
            streamed: HashSet::new(),
            announced: VecDeque::new(),
            diffs: HashMap::new(),
            running: None,
            replaying: false,
        }
    }

    /// The updates that tell session `session`'s conversation again from its log's `records`
    /// (a sub-agent's items left out: its answer is in its caller's result).
    pub(crate) fn replay(session: &str, root: &Path, records: &[Value]) -> Vec<Update> {
        let mut translator = Self::new(session, root);
        translator.replaying = true;
        let mut updates = Vec::new();
        for record in records {
            if record["type"] != "conversation.item" || record.get("agent").is_some() {
                continue;
            }
            if record["kind"] == "user_message" {
                let said = record["text"].as_str().unwrap_or_default();
                updates.push(Update::UserText(said.to_owned()));
                continue;
            }
            let mut params = record.clone();
            params["session"] = session.into();
            updates.extend(translator.on(&serde_json::json!({
                "method": "item.completed",
                "params": params,
            })));
        }
        updates
    }

    /// The call running now, if any.
    pub(crate) fn running(&self) -> Option<&str> {
        self.running.as_deref()
    }

    /// The updates wire message `message` makes (none for another session's).
    pub(crate) fn on(&mut self, message: &Value) -> Vec<Update> {
        let params = &message["params"];
        if params["session"]
            .as_str()
            .is_some_and(|s| s != self.session)
        {
            return Vec::new();
        }
        let text = |key: &str| params[key].as_str().unwrap_or_default().to_owned();
        match message["method"].as_str().unwrap_or_default() {
            "item.delta" if !text("text").is_empty() => {
                self.streamed.insert(text("item"));
                vec![Update::Text(text("text"))]
            }
            "item.reasoning" if !text("text").is_empty() => vec![Update::Thought(text("text"))],
            "turn.plan" => vec![Update::Plan(
                params["steps"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|step| {
                        let status = match step["status"].as_str() {
                            Some("completed") => Step::Completed,
                            Some("in_progress") => Step::InProgress,
                            _ => Step::Pending,
                        };
                        (step["step"].as_str().unwrap_or_default().to_owned(), status)
                    })
                    .collect(),
            )],
            "item.completed" => match params["kind"].as_str().unwrap_or_default() {
                "assistant_message" => self.answered(params),
                "tool_result" => {
                    let id = text("call_id");
                    let ok = params["ok"].as_bool().unwrap_or(false);
                    if self.running.as_deref() == Some(id.as_str()) {
                        self.running = None;
                    }
                    let diffs = self.diffs.remove(&id).filter(|_| ok).into_iter().collect();
                    vec![Update::ToolStatus {
                        id,
                        status: if ok {
                            Status::Completed
                        } else {
                            Status::Failed
                        },
                        output: Some(text("content")),
                        diffs,
                    }]
                }
                _ => Vec::new(),
            },
            "item.started" if params["kind"] == "tool_call" => {
                let Some(id) = self.announced.pop_front() else {
                    return Vec::new();
                };
                self.running = Some(id.clone());
                vec![Update::ToolStatus {
                    id,
                    status: Status::InProgress,
                    output: None,
                    diffs: Vec::new(),
                }]
            }
            _ => Vec::new(),
        }
    }

    /// The model's completed message: its text when it did not stream, and its tool calls.
    fn answered(&mut self, params: &Value) -> Vec<Update> {
        let mut updates = Vec::new();
        let item = params["item"].as_str().unwrap_or_default();
        let said = params["text"].as_str().unwrap_or_default();
        if !self.streamed.remove(item) && !said.is_empty() {
            updates.push(Update::Text(said.to_owned()));
        }
        for call in params["tool_calls"].as_array().into_iter().flatten() {
            let id = call["call_id"].as_str().unwrap_or_default().to_owned();
            let tool = call["tool"].as_str().unwrap_or_default();
            let input = call["arguments"].clone();
            let path = input["path"].as_str().map(|path| self.root.join(path));
            let diff = path
                .as_deref()
                .filter(|_| !self.replaying)
                .and_then(|path| diff_of(tool, path, &input));
            if let Some(diff) = diff {
                self.diffs.insert(id.clone(), diff);
            }
            self.announced.push_back(id.clone());
            updates.push(Update::ToolCall {
                title: title_of(tool, &input),
                kind: kind_of(tool),
                locations: path.into_iter().collect(),
                id,
                input,
            });
        }
        updates
    }
}

/// The kind of nodwyn's primitive `tool`.
fn kind_of(tool: &str) -> Kind {
    match tool {
        "fs-read" => Kind::Read,
        "fs-write" | "fs-edit" => Kind::Edit,
        "fs-list" => Kind::Search,
        "shell-exec" => Kind::Execute,
        _ => Kind::Other,
    }
}

/// A call's title: the primitive and what it acts on, on one line.
fn title_of(tool: &str, input: &Value) -> String {
    let what = match tool {
        "git-land" => return "git-land: land the session's work on its base".to_owned(),
        "shell-exec" => input["argv"]
            .as_array()
            .map(|argv| {
                argv.iter()
                    .map(|a| a.as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        _ => input["path"].as_str().unwrap_or_default().to_owned(),
    };
    let title = format!("{tool} {what}");
    title.trim_end().replace(['\n', '\r'], " ")
}

/// What a write or an edit of `path` would change, from the file as it is now.
fn diff_of(tool: &str, path: &Path, input: &Value) -> Option<Diff> {
    let old = std::fs::read_to_string(path).ok();
    let new = match tool {
        "fs-write" => input["content"].as_str()?.to_owned(),
        "fs-edit" => {
            let before = old.as_deref()?;
            before.replacen(input["old"].as_str()?, input["new"].as_str()?, 1)
        }
        _ => return None,
    };
    Some(Diff {
        path: path.to_path_buf(),
        old,
        new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": method, "params": params})
    }

    #[test]
    fn a_write_is_announced_with_its_diff_and_completes_with_it() {
        let root = std::env::temp_dir().join(format!("nodwyn-acp-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("notes.txt"), "old\n").unwrap();
        let mut t = Translator::new("s1", &root);
        let mut updates = Vec::new();
        for message in [
            wire(
                "item.reasoning",
                json!({"session": "s1", "item": "1.1", "text": "A new file, so no old text."}),
            ),
            wire(
                "item.delta",
                json!({"session": "s1", "item": "1.1", "text": "Writing."}),
            ),
            wire(
                "item.delta",
                json!({"session": "other", "item": "9.1", "text": "not ours"}),
            ),
            wire(
                "item.completed",
                json!({"session": "s1", "item": "1.1", "kind": "assistant_message", "text": "Writing.",
                       "tool_calls": [{"call_id": "c1", "tool": "fs-write",
                                       "arguments": {"path": "notes.txt", "content": "new\n"}}]}),
            ),
            wire(
                "item.started",
                json!({"session": "s1", "item": "1.2", "kind": "tool_call", "tool": "fs-write"}),
            ),
            wire(
                "item.completed",
                json!({"session": "s1", "item": "1.2", "kind": "tool_result", "call_id": "c1",
                       "tool": "fs-write", "ok": true, "content": "wrote notes.txt"}),
            ),
        ] {
            updates.extend(t.on(&message));
        }
        let path = root.join("notes.txt");
        assert_eq!(
            updates,
            vec![
                Update::Thought("A new file, so no old text.".to_owned()),
                Update::Text("Writing.".to_owned()),
                Update::ToolCall {
                    id: "c1".to_owned(),
                    title: "fs-write notes.txt".to_owned(),
                    kind: Kind::Edit,
                    locations: vec![path.clone()],
                    input: json!({"path": "notes.txt", "content": "new\n"}),
                },
                Update::ToolStatus {
                    id: "c1".to_owned(),
                    status: Status::InProgress,
                    output: None,
                    diffs: Vec::new(),
                },
                Update::ToolStatus {
                    id: "c1".to_owned(),
                    status: Status::Completed,
                    output: Some("wrote notes.txt".to_owned()),
                    diffs: vec![Diff {
                        path,
                        old: Some("old\n".to_owned()),
                        new: "new\n".to_owned()
                    }],
                },
            ]
        );
        assert_eq!(t.running(), None);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_refused_call_fails_without_a_diff_and_a_message_that_did_not_stream_is_sent_whole() {
        let mut t = Translator::new("s1", Path::new("/nowhere"));
        let mut updates = t.on(&wire(
            "item.completed",
            json!({"session": "s1", "item": "1.1", "kind": "assistant_message", "text": "Reading.",
                   "tool_calls": [{"call_id": "c1", "tool": "shell-exec",
                                   "arguments": {"argv": ["cat", ".env"]}}]}),
        ));
        updates.extend(t.on(&wire(
            "item.started",
            json!({"session": "s1", "item": "1.2", "kind": "tool_call"}),
        )));
        assert_eq!(t.running(), Some("c1"));
        updates.extend(t.on(&wire(
            "item.completed",
            json!({"session": "s1", "item": "1.2", "kind": "tool_result", "call_id": "c1",
                   "tool": "shell-exec", "ok": false, "content": "refused_by_guard: .env"}),
        )));
        assert_eq!(updates[0], Update::Text("Reading.".to_owned()));
        assert!(matches!(
            &updates[1],
            Update::ToolCall { kind: Kind::Execute, title, .. } if title == "shell-exec cat .env"
        ));
        assert_eq!(
            updates[3],
            Update::ToolStatus {
                id: "c1".to_owned(),
                status: Status::Failed,
                output: Some("refused_by_guard: .env".to_owned()),
                diffs: Vec::new(),
            }
        );
    }

    #[test]
    fn a_conversation_read_back_leaves_out_sub_agents_and_makes_no_diff() {
        let records = [
            json!({"type": "session.start"}),
            json!({"type": "conversation.item", "item": "1.1", "kind": "user_message", "text": "go"}),
            json!({"type": "conversation.item", "item": "1.2", "kind": "assistant_message",
                   "text": "", "tool_calls": [{"call_id": "c1", "tool": "fs-write",
                   "arguments": {"path": "a.txt", "content": "x"}}]}),
            json!({"type": "conversation.item", "item": "1.3", "agent": "helper",
                   "kind": "assistant_message", "text": "the helper's own words"}),
            json!({"type": "conversation.item", "item": "1.4", "kind": "tool_result",
                   "call_id": "c1", "tool": "fs-write", "ok": true, "content": "wrote a.txt"}),
        ];
        let updates = Translator::replay("s1", Path::new("/nowhere"), &records);
        assert_eq!(updates.len(), 3, "{updates:#?}");
        assert_eq!(updates[0], Update::UserText("go".to_owned()));
        assert!(matches!(
            &updates[1],
            Update::ToolCall {
                kind: Kind::Edit,
                ..
            }
        ));
        assert!(matches!(
            &updates[2],
            Update::ToolStatus {
                status: Status::Completed,
                diffs,
                ..
            } if diffs.is_empty()
        ));
    }
}
