//! What the interface says of a session's records, in the same words the web console uses
//! (`crates/server/web/words.js`; both are checked against `words.fixtures.json`): a worktree
//! made, made again, removed or kept, a landing, a closed session.

use serde_json::Value;

/// `count` of a thing, in the singular or the plural.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A record of a session's log in words, or `None` for one told otherwise.
pub(crate) fn record_in_words(record: &Value) -> Option<String> {
    let text = |key: &str| record[key].as_str().unwrap_or_default().to_owned();
    let list = |key: &str| -> Vec<String> {
        record[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    Some(match record["type"].as_str()? {
        "worktree.create" => {
            let uncommitted = record["uncommitted"].as_u64().unwrap_or(0);
            let left = if uncommitted > 0 {
                format!(
                    "; {} of the checkout stayed behind",
                    plural(uncommitted, "uncommitted change", "uncommitted changes")
                )
            } else {
                String::new()
            };
            format!(
                "Made the worktree {} on {}{left}",
                text("path"),
                text("branch")
            )
        }
        "worktree.restore" => format!(
            "Made the worktree again at {} on {}",
            text("path"),
            text("branch")
        ),
        "worktree.remove" => {
            let branch = if record["branch_deleted"].as_bool() == Some(true) {
                format!("the branch {} was deleted", text("branch"))
            } else {
                match record["branch_kept"].as_str() {
                    Some(why) => format!("the branch {} stays: {why}", text("branch")),
                    None => format!("the branch {} stays", text("branch")),
                }
            };
            let discarded = list("discarded");
            let discarded = if discarded.is_empty() {
                String::new()
            } else {
                format!("; discarded {}", discarded.join(", "))
            };
            format!("Removed the worktree {}; {branch}{discarded}", text("path"))
        }
        "worktree.keep" => format!("Kept the worktree {}", text("path")),
        "git.land" => {
            let landed = text("landed");
            format!(
                "Landed on {} ({})",
                text("base"),
                landed.chars().take(8).collect::<String>()
            )
        }
        "session.close" => {
            let kept = list("kept");
            if kept.is_empty() {
                "Closed the session".to_owned()
            } else {
                format!(
                    "Closed the session; its worktree stays: {}",
                    kept.join("; ")
                )
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same records the console's own test reads, in the same words.
    #[test]
    fn records_are_told_as_the_console_tells_them() {
        let fixtures: Value =
            serde_json::from_str(include_str!("../../server/web/words.fixtures.json")).unwrap();
        for case in fixtures.as_array().unwrap() {
            assert_eq!(
                record_in_words(&case["record"]),
                case["words"].as_str().map(str::to_owned),
                "{case}"
            );
        }
    }
}
