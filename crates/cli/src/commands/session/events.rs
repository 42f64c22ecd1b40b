//! `nodwyn session events`.

use clap::Args;
use serde_json::Value;

use crate::commands::Invocation;
use crate::output;

/// Print a session's event log: one line per record, or with --json all records as an array
/// exactly as they are stored.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// The session: its full id, its 8 hex digits (or a unique start of them), or its name (or a unique start of it).
    id: String,
}

pub fn run(args: EventsArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let stored = invocation.store()?.find(&args.id)?;
    let records = stored.log.read_values()?;
    if invocation.json {
        return output::json(&records);
    }
    let lines: Vec<String> = records.iter().map(describe).collect();
    output::text(lines.join("\n"))
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
