//! Scanning a unified diff: only the lines it adds, each reported with its file and its line
//! number in the new file.
//!
//! Hunks are read by their counts (`@@ -a,b +c,d @@`), not by guessing from a line's first
//! characters, so an added line that itself starts with `++ ` or `-- ` is read as content, never
//! as a file header. Consecutive added lines are scanned together, so a private key added as a
//! block is found whole.

use serde::Serialize;

use super::Scanner;

/// A credential found in an added line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffFinding {
    /// The file, as the diff names it in the new tree.
    pub path: String,
    /// 1-based line in the new file.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// The rule that found it.
    pub rule: &'static str,
    /// The secret, redacted.
    pub redacted: String,
}

/// One added line's place: where it starts in the buffer of added text, and where it is.
struct Origin {
    offset: usize,
    path: usize,
    line: usize,
}

/// The added lines of a diff, laid end to end, and where each came from.
#[derive(Default)]
struct Added {
    text: Vec<u8>,
    origins: Vec<Origin>,
    paths: Vec<String>,
}

/// Scans the lines `diff` adds.
pub fn scan_diff(scanner: &Scanner, diff: &[u8]) -> Vec<DiffFinding> {
    let added = added_lines(diff);
    scanner
        .scan(&added.text)
        .into_iter()
        .map(|finding| {
            let at = added
                .origins
                .partition_point(|o| o.offset <= finding.start)
                .saturating_sub(1);
            let origin = &added.origins[at];
            DiffFinding {
                path: added.paths[origin.path].clone(),
                line: origin.line,
                column: finding.start - origin.offset + 1,
                rule: finding.rule,
                redacted: finding.redacted,
            }
        })
        .collect()
}

fn added_lines(diff: &[u8]) -> Added {
    let mut added = Added::default();
    let mut path: Option<usize> = None;
    // Lines still to come in the current hunk, old side and new side.
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut new_line = 0usize;
    for raw in diff.split(|b| *b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if old_left > 0 || new_left > 0 {
            match line.first() {
                Some(b'+') => {
                    if let Some(path) = path {
                        added.origins.push(Origin {
                            offset: added.text.len(),
                            path,
                            line: new_line,
                        });
                        added.text.extend_from_slice(&line[1..]);
                        added.text.push(b'\n');
                    }
                    new_line += 1;
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') => old_left = old_left.saturating_sub(1),
                Some(b'\\') => {}
                // A context line (a lone empty line is a context line whose space was trimmed).
                _ => {
                    new_line += 1;
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
            }
            continue;
        }
        if line.starts_with(b"diff ") {
            path = None;
        } else if let Some(name) = line.strip_prefix(b"+++ ") {
            path = new_path(name).map(|name| {
                added.paths.push(name);
                added.paths.len() - 1
            });
        } else if let Some(header) = line.strip_prefix(b"@@ ")
            && let Some((old, new)) = hunk_counts(header)
        {
            (old_left, new_left, new_line) = (old.1, new.1, new.0);
        }
    }
    added
}

/// The new file's name from a `+++ ` line: `b/src/x.rs`, `"b/with space"`, or `/dev/null`.
fn new_path(name: &[u8]) -> Option<String> {
    let name = String::from_utf8_lossy(name);
    let name = name.split('\t').next().unwrap_or_default().trim_end();
    if name == "/dev/null" {
        return None;
    }
    let unquoted = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .map(unescape)
        .unwrap_or_else(|| name.to_owned());
    Some(
        unquoted
            .strip_prefix("b/")
            .map(str::to_owned)
            .unwrap_or(unquoted),
    )
}

/// Undoes git's C-style quoting of a path (`\"`, `\\`, `\t`, `\n`, octal bytes).
fn unescape(quoted: &str) -> String {
    let mut bytes = Vec::with_capacity(quoted.len());
    let mut input = quoted.bytes().peekable();
    while let Some(b) = input.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match input.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&next @ b'0'..=b'7') = input.peek() {
                        value = value * 8 + u32::from(next - b'0');
                        input.next();
                    }
                }
                bytes.push(value as u8);
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `-a,b +c,d @@ ...` as ((a, b), (c, d)); a missing count is 1.
type Range = (usize, usize);

fn hunk_counts(header: &[u8]) -> Option<(Range, Range)> {
    let header = std::str::from_utf8(header).ok()?;
    let mut parts = header.split_whitespace();
    let old = range(parts.next()?.strip_prefix('-')?)?;
    let new = range(parts.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

fn range(text: &str) -> Option<Range> {
    match text.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(seed: u8) -> String {
        // A generated stand-in with the shape of a classic GitHub token.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let body: String = (0..36u32)
            .map(|i| alphabet[((i * 7 + u32::from(seed) * 13 + i * i) % 62) as usize] as char)
            .collect();
        format!("ghp_{body}")
    }

    #[test]
    fn reports_added_lines_with_their_new_line_numbers() {
        let diff = format!(
            "diff --git a/app.py b/app.py\n\
             index 1111111..2222222 100644\n\
             --- a/app.py\n\
             +++ b/app.py\n\
             @@ -1,3 +1,4 @@\n\
             \x20import os\n\
             -OLD = \"{old}\"\n\
             +NEW = \"{new}\"\n\
             +\n\
             \x20print(1)\n\
             diff --git a/\"b/odd name.txt\" b/\"odd name.txt\"\n\
             new file mode 100644\n\
             --- /dev/null\n\
             +++ \"b/odd\\tname.txt\"\n\
             @@ -0,0 +1,2 @@\n\
             +++ {third}\n\
             +-- fine\n",
            old = token(1),
            new = token(2),
            third = token(3),
        );
        let found = scan_diff(&Scanner::new(), diff.as_bytes());
        let places: Vec<(&str, usize, usize)> = found
            .iter()
            .map(|f| (f.path.as_str(), f.line, f.column))
            .collect();
        assert_eq!(places, [("app.py", 2, 8), ("odd\tname.txt", 1, 4)]);
        assert!(found.iter().all(|f| f.rule == "github-pat"));
    }

    #[test]
    fn removed_lines_and_deleted_files_are_not_scanned() {
        let diff = format!(
            "diff --git a/gone.txt b/gone.txt\n\
             deleted file mode 100644\n\
             --- a/gone.txt\n\
             +++ /dev/null\n\
             @@ -1 +0,0 @@\n\
             -{}\n",
            token(4)
        );
        assert!(scan_diff(&Scanner::new(), diff.as_bytes()).is_empty());
    }

    #[test]
    fn hunk_headers_without_counts() {
        assert_eq!(hunk_counts(b"-3 +4 @@"), Some(((3, 1), (4, 1))));
        assert_eq!(
            hunk_counts(b"-0,0 +1,12 @@ fn x()"),
            Some(((0, 0), (1, 12)))
        );
        assert_eq!(hunk_counts(b"garbage"), None);
    }
}
