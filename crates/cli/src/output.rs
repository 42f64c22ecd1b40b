//! Writing results: JSON documents or human text on stdout, notes on stderr.

use std::io::{IsTerminal, Write};

use serde::Serialize;

/// Prints `value` as one pretty JSON document on stdout, written in large blocks (stdout alone
/// writes each line as it ends: a scan's report of 256 findings took 1,800 writes).
pub(crate) fn json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut stdout, value)?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Prints human text on stdout, every control, escape sequence, bidi control and invisible
/// character shown escaped (line breaks and tabs kept): whatever repository content or an agent
/// put in it, the terminal shows it and obeys none of it.
pub(crate) fn text(text: impl AsRef<str>) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", nodwyn_text::escape_lines(text.as_ref()))?;
    Ok(())
}

/// Prints bytes as they are on stdout (generated text such as shell completions).
pub(crate) fn bytes(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()?;
    Ok(())
}

/// Prints a note for the person on stderr, escaped as [`text`] is.
pub(crate) fn note(text: impl AsRef<str>) {
    let _ = writeln!(
        std::io::stderr(),
        "{}",
        nodwyn_text::escape_lines(text.as_ref())
    );
}

/// Each of `notes` on stderr, as `note: ...`.
pub(crate) fn notes(notes: &[String]) {
    for text in notes {
        note(format!("note: {text}"));
    }
}

/// Names, on stderr, each session log that could not be read and was left out.
pub(crate) fn note_unreadable(unreadable: &[nodwyn_core::Unreadable]) {
    for bad in unreadable {
        note(format!(
            "note: left out {}, which cannot be read ({})",
            bad.log.display(),
            bad.error
        ));
    }
}

/// Whether stderr is a terminal (for colour and progress).
pub(crate) fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Whether a person is there to be asked: stdin and stderr are both terminals (an agent's
/// commands have stdin closed).
pub(crate) fn person_at_terminal() -> bool {
    std::io::stdin().is_terminal() && stderr_is_terminal()
}

/// Lays out rows as aligned columns under a header.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len() - 1;
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == last {
                    (*c).to_owned()
                } else {
                    format!("{c:<width$}", width = widths[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = vec![line(header.to_vec())];
    out.extend(
        rows.iter()
            .map(|r| line(r.iter().map(String::as_str).collect())),
    );
    out.join("\n")
}

/// The first 12 hex digits of a commit id.
pub(crate) fn short_commit(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// `text` as one line for a person to read: line breaks, controls, escape sequences, bidi
/// controls and invisible characters shown as `\u{..}` (see `nodwyn_text`).
pub(crate) fn printable(text: &str) -> String {
    nodwyn_text::escape_line(text)
}

/// A duration in seconds as a person reads an age: `42s`, `5m`, `3h`, `2d`.
pub(crate) fn age(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m", seconds / 60),
        3600..86400 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(printable("(a)\u{1b}[2K\r(b)"), "(a)\\u{1b}[2K\\u{d}(b)");
    }
}
