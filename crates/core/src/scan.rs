//! `nodwyn scan`: L1 over files and folders (respecting `.gitignore`), over standard input, or
//! over the lines a git revision range adds. Files are read on every core at once; binary files
//! (a NUL byte in their first 8 KiB) are skipped.

use std::path::{Path, PathBuf};

use nodwyn_guard::Scanner;
use nodwyn_guard::scan::diff::scan_diff;
use nodwyn_guard::scan::{BINARY_PROBE, looks_binary};
use rayon::prelude::*;
use serde::Serialize;

use crate::Error;

/// One credential found, with where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    /// The file (`-` for standard input).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
    /// The rule that found it.
    pub rule: &'static str,
    /// The secret, redacted.
    pub redacted: String,
}

/// What a scan found, and how much it read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Every credential found, by path then position.
    pub findings: Vec<Located>,
    /// Bytes scanned.
    pub bytes: u64,
    /// Files scanned.
    #[serde(skip)]
    pub files: usize,
}

/// Scans files and folders; folders are walked respecting `.gitignore` (hidden files included,
/// `.git` skipped).
pub fn scan_paths(paths: &[PathBuf]) -> Result<Report, Error> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(Error::io(path))?;
        if meta.is_file() {
            files.push(path.clone());
            continue;
        }
        for entry in ignore::WalkBuilder::new(path)
            .hidden(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build()
        {
            let entry = entry.map_err(|e| Error::Walk(e.to_string()))?;
            if entry.file_type().is_some_and(|t| t.is_file()) {
                files.push(entry.into_path());
            }
        }
    }
    let scanner = Scanner::global();
    let scanned: Vec<(Vec<Located>, u64)> = files
        .par_iter()
        .map(|file| -> Result<_, Error> {
            let Some(bytes) = read_text(file)? else {
                return Ok((Vec::new(), 0));
            };
            // `./src/x.rs` reads as `src/x.rs`, as git and grep print it.
            let name = file.strip_prefix(".").unwrap_or(file).display().to_string();
            Ok((locate(scanner, &name, &bytes), bytes.len() as u64))
        })
        .collect::<Result<_, _>>()?;
    let mut report = Report {
        files: files.len(),
        ..Report::default()
    };
    for (findings, bytes) in scanned {
        report.findings.extend(findings);
        report.bytes += bytes;
    }
    report
        .findings
        .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    Ok(report)
}

/// Scans one buffer, reported under `name`.
pub fn scan_bytes(name: &str, bytes: &[u8]) -> Report {
    Report {
        findings: locate(Scanner::global(), name, bytes),
        bytes: bytes.len() as u64,
        files: 1,
    }
}

/// Scans the lines that the revision range `range` adds, in the repository at `dir`.
pub fn scan_revisions(dir: &Path, range: &str) -> Result<Report, Error> {
    let top = nodwyn_git::discover(dir)?.toplevel;
    let sides = match range.split_once("...").or_else(|| range.split_once("..")) {
        Some((from, to)) => vec![from, to],
        None => vec![range],
    };
    // An empty side is HEAD, as git reads it.
    for side in sides.into_iter().filter(|side| !side.is_empty()) {
        if !nodwyn_git::repo::names_an_object(&top, side)? {
            return Err(Error::Refused(format!(
                "`{side}` is not a revision of this repository, so `{range}` cannot be scanned"
            )));
        }
    }
    let diff = nodwyn_git::diff::unified(dir, range)?;
    let findings = scan_diff(Scanner::global(), &diff)
        .into_iter()
        .map(|f| Located {
            path: f.path,
            line: f.line,
            column: f.column,
            rule: f.rule,
            redacted: f.redacted,
        })
        .collect();
    Ok(Report {
        findings,
        bytes: diff.len() as u64,
        files: 0,
    })
}

fn locate(scanner: &Scanner, name: &str, bytes: &[u8]) -> Vec<Located> {
    scanner
        .scan(bytes)
        .into_iter()
        .map(|f| Located {
            path: name.to_owned(),
            line: f.line,
            column: f.column,
            rule: f.rule,
            redacted: f.redacted,
        })
        .collect()
}

/// The file's bytes, or `None` for a binary file (a NUL in its first 8 KiB), which is judged
/// from those 8 KiB alone rather than read whole.
fn read_text(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(BINARY_PROBE as u64)
        .read_to_end(&mut bytes)
        .map_err(Error::io(path))?;
    if looks_binary(&bytes) {
        return Ok(None);
    }
    file.read_to_end(&mut bytes).map_err(Error::io(path))?;
    Ok(Some(bytes))
}
