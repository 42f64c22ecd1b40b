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
            return Err(Error::declined(
                "bad_revision",
                format!(
                    "`{side}` is not a revision of this repository, so `{range}` cannot be scanned"
                ),
            ));
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
/// from those 8 KiB alone rather than read whole. A large file is read in pieces on every core
/// (see [`read_in_pieces`]).
fn read_text(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(BINARY_PROBE as u64)
        .read_to_end(&mut bytes)
        .map_err(Error::io(path))?;
    if looks_binary(&bytes) {
        return Ok(None);
    }
    let size = file.metadata().map_or(0, |meta| meta.len());
    if let Ok(size) = usize::try_from(size)
        && size >= 2 * READ_PIECE
        && bytes.len() == BINARY_PROBE
    {
        bytes = read_in_pieces(&file, bytes, size).map_err(Error::io(path))?;
        file.seek(SeekFrom::Start(bytes.len() as u64))
            .map_err(Error::io(path))?;
    }
    // The whole file when it is small; past the pieces, whatever the file grew by since.
    file.read_to_end(&mut bytes).map_err(Error::io(path))?;
    Ok(Some(bytes))
}

/// How much of a large file one core reads at a time.
const READ_PIECE: usize = 8 << 20;

/// A file of `size` bytes whose first bytes are `start`, read in [`READ_PIECE`]s on every core
/// at once. Reading a large file is mostly the kernel handing over fresh pages of memory, one
/// core's work when one read asks for them all: 67 MB took 35 ms, a third as long as scanning it
/// on two cores. A piece cut short (the file shrank meanwhile) ends the text there.
fn read_in_pieces(file: &std::fs::File, start: Vec<u8>, size: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    // Zeroed memory comes from the kernel untouched, so each page is first touched by the core
    // that reads into it.
    let mut bytes = vec![0u8; size];
    bytes[..start.len()].copy_from_slice(&start);
    let filled: Vec<(usize, usize)> = bytes[start.len()..]
        .par_chunks_mut(READ_PIECE)
        .enumerate()
        .map(|(index, piece)| -> std::io::Result<(usize, usize)> {
            let at = start.len() + index * READ_PIECE;
            let mut done = 0;
            while done < piece.len() {
                match file.read_at(&mut piece[done..], (at + done) as u64) {
                    Ok(0) => break,
                    Ok(read) => done += read,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok((at, done))
        })
        .collect::<Result<_, _>>()?;
    let end = filled
        .iter()
        .zip(bytes[start.len()..].chunks(READ_PIECE))
        .find(|((_, done), piece)| *done < piece.len())
        .map_or(size, |((at, done), _)| at + done);
    bytes.truncate(end);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file read in pieces is the file, to its last byte, whatever its length against
    /// the pieces; a small one is read as it always was.
    #[test]
    fn a_large_file_read_in_pieces_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        for size in [
            100,
            2 * READ_PIECE - 1,
            2 * READ_PIECE + BINARY_PROBE,
            3 * READ_PIECE + 12_345,
        ] {
            let text: Vec<u8> = (0..size).map(|i| b'a' + (i % 23) as u8).collect();
            let path = dir.path().join(format!("f{size}"));
            std::fs::write(&path, &text).unwrap();
            let read = read_text(&path).unwrap().expect("text");
            assert!(read == text, "{size} bytes read as {}", read.len());
        }
    }
}
