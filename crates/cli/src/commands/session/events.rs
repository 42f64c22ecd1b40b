//! `nodwyn session events`.

use std::io::Write as _;
use std::ops::ControlFlow;

use clap::Args;
use serde::ser::{SerializeSeq as _, Serializer as _};
use serde_json::Value;

use crate::commands::Invocation;

/// Print a session's event log: one line per record, or with --json all records as an array
/// exactly as they are stored. An agent's conversation reads as one: who said what, each tool
/// call and how it went, each model call's tokens.
#[derive(Debug, Args)]
pub(crate) struct EventsArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a
    /// unique start of it); by default, the session whose worktree holds the current folder.
    id: Option<String>,
}

pub(super) fn run(args: EventsArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let id = crate::commands::session_or_here(args.id.clone(), &invocation.store()?)?;
    let stored = invocation.store()?.find(&id)?;
    // Printed as they are read: a log of any size costs the memory of one record, and the
    // reading stops when the printing fails (a closed pipe).
    let mut stdout = std::io::stdout().lock();
    let mut failed = None;
    if invocation.json {
        let mut json = serde_json::Serializer::with_formatter(
            &mut stdout,
            serde_json::ser::PrettyFormatter::new(),
        );
        let mut array = json.serialize_seq(None)?;
        stored
            .log
            .each_value(|record| go_on(&mut failed, array.serialize_element(&record)))?;
        if let Some(error) = failed {
            return Err(error);
        }
        array.end()?;
        writeln!(stdout)?;
        return Ok(());
    }
    stored
        .log
        .each_value(|record| go_on(&mut failed, writeln!(stdout, "{}", describe(&record))))?;
    failed.map_or(Ok(()), Err)
}

/// Whether to go on printing after `printed`; a failure is kept in `failed`.
fn go_on<E: Into<anyhow::Error>>(
    failed: &mut Option<anyhow::Error>,
    printed: Result<(), E>,
) -> ControlFlow<()> {
    match printed {
        Ok(()) => ControlFlow::Continue(()),
        Err(error) => {
            *failed = Some(error.into());
            ControlFlow::Break(())
        }
    }
}

/// `at  type  field=value ...`, values as compact JSON, each field on the record's one line: a
/// value's line breaks and controls are shown escaped, so no field can make a line of its own.
fn describe(record: &Value) -> String {
    nodwyn_text::escape_line(&describe_raw(record))
}

fn describe_raw(record: &Value) -> String {
    let Value::Object(fields) = record else {
        return record.to_string();
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or("?");
    if let Some(line) = conversation(record) {
        return format!("{}  {line}", text("at"));
    }
    let rest: Vec<String> = fields
        .iter()
        .filter(|(key, _)| *key != "at" && *key != "type")
        .map(|(key, value)| match value {
            Value::String(s) => format!("{key}={s}"),
            other => format!("{key}={other}"),
        })
        .collect();
    format!("{}  {}  {}", text("at"), text("type"), rest.join(" "))
}

/// A conversation record as a person reads it, or `None` for the other records.
fn conversation(record: &Value) -> Option<String> {
    let text = |key: &str| record[key].as_str().unwrap_or_default().to_owned();
    let turn = record["turn"].as_u64().unwrap_or(0);
    Some(match (record["type"].as_str()?, record["kind"].as_str()) {
        ("turn.start", _) => format!("turn {turn} begins"),
        ("turn.end", _) => {
            let usage = &record["usage"];
            let mut line = format!(
                "turn {turn} ends: {} ({} model call(s), {} tokens in, {} out)",
                text("reason"),
                usage["model_calls"],
                usage["input_tokens"],
                usage["output_tokens"]
            );
            if let Some(why) = record["why"].as_str() {
                line.push_str(&format!(": {why}"));
            }
            line
        }
        ("model.call", _) => format!(
            "  model {}: {} tokens in, {} out, stopped: {}{}",
            text("model"),
            record["input_tokens"],
            record["output_tokens"],
            text("stop"),
            record["first_output_ms"]
                .as_u64()
                .map(|ms| format!(", first output after {ms} ms"))
                .unwrap_or_default()
        ),
        // A sub-agent's items are its own, indented under its caller's: its message is the task
        // its caller gave it, not the person's.
        ("conversation.item", Some("user_message")) => match record["agent"].as_str() {
            Some(agent) => format!(
                "{}task for {agent}: {}",
                indent(agent),
                at_most(&text("text"), 400)
            ),
            None => format!("  person: {}", at_most(&text("text"), 400)),
        },
        ("conversation.item", Some("assistant_message")) => {
            let calls: Vec<String> = record["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|call| {
                    format!(
                        "{} {}",
                        call["tool"].as_str().unwrap_or("?"),
                        call["arguments"]
                    )
                })
                .collect();
            let mut line = match record["agent"].as_str() {
                Some(agent) => format!("{}{agent}: {}", indent(agent), at_most(&text("text"), 400)),
                None => format!("  model: {}", at_most(&text("text"), 400)),
            };
            if !calls.is_empty() {
                line.push_str(&format!(" [calls: {}]", calls.join("; ")));
            }
            line
        }
        ("conversation.item", Some("tool_result")) => format!(
            "{}{} {}: {}",
            record["agent"].as_str().map_or("  ".to_owned(), indent),
            text("tool"),
            if record["ok"] == true {
                "gave"
            } else {
                "refused or failed"
            },
            at_most(&text("content"), 200)
        ),
        ("conversation.item", Some("notice")) => {
            // A notice the engine wrote for the model may say already whose it is.
            let notice = text("text");
            format!(
                "{}nodwyn: {}",
                record["agent"].as_str().map_or("  ".to_owned(), indent),
                notice.strip_prefix("nodwyn: ").unwrap_or(&notice)
            )
        }
        _ => return None,
    })
}

/// The indentation of sub-agent `agent`'s lines (`lead/reader`): one step deeper per level.
fn indent(agent: &str) -> String {
    "  ".repeat(1 + agent.split('/').count())
}

/// `text` on one line (each run of spaces and line breaks one space), cut to `longest`
/// characters, saying how many more there were.
fn at_most(text: &str, longest: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let count = text.chars().count();
    if count <= longest {
        return text.to_owned();
    }
    let kept: String = text.chars().take(longest).collect();
    format!("{kept}... ({} more characters)", count - longest)
}
