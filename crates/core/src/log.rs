//! A session's event log: one JSON Lines file, append-only.
//!
//! A record is written with one `write` on a file opened for appending, so concurrent writers
//! never interleave within a line. A reader tolerates a torn last line (a crash mid-write), and
//! the next append starts on a fresh line so the torn bytes never spoil a good record.
//!
//! Appends are not followed by `fsync`: on ext4's ordered mode an fsync just after
//! `git worktree add` waits for every file the checkout wrote, which doubled the cost of making a
//! worktree. A power cut can lose the last records, never the ones before them (git does not sync
//! a checkout's files either).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;
use crate::event::Record;

/// The log file of one session.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
}

/// Holds a session's log locked against other nodwyn processes changing the same session.
#[derive(Debug)]
pub struct LogLock {
    _file: File,
}

impl EventLog {
    /// The log at `path`, which may not exist yet.
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// Where the log lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the log with its first record; fails if the file exists already.
    /// A log whose first record could not be written (a full disk) is removed again: a log
    /// without its `session.start` would be read as a damaged session ever after.
    pub fn create(path: PathBuf, first: &Record) -> Result<Self, Error> {
        let first = line(first)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        if let Err(e) = file.write_all(&first) {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(Error::io(&path)(e));
        }
        Ok(Self { path })
    }

    /// Appends one record.
    pub fn append(&self, record: &Record) -> Result<(), Error> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&self.path)
            .map_err(Error::io(&self.path))?;
        let mut bytes = line(record)?;
        let torn = torn_tail(&mut file).map_err(Error::io(&self.path))?;
        if torn > 0 {
            // The torn line is ended and said to be torn, once: readers pass it quietly.
            let mut healed = vec![b'\n'];
            healed.extend(line(&Record::new(
                record.at.clone(),
                crate::event::Event::LogTorn { bytes: torn },
            ))?);
            healed.extend(bytes);
            bytes = healed;
        }
        file.write_all(&bytes).map_err(Error::io(&self.path))
    }

    /// Calls `each` with every record, as a JSON value, in order, one at a time, until it says
    /// to stop: a log of any size costs the memory of its longest line. Lines that are not JSON
    /// objects (a torn last line) are skipped.
    pub fn each_value(&self, mut each: impl FnMut(Value) -> ControlFlow<()>) -> Result<(), Error> {
        let file = File::open(&self.path).map_err(Error::io(&self.path))?;
        let mut skips = Skips::of(&self.path);
        each_line(
            std::io::BufReader::new(file),
            LONGEST_LINE,
            Last::Read,
            |line, _| match line.and_then(|l| serde_json::from_slice::<Value>(l).ok()) {
                Some(value @ Value::Object(_)) => {
                    skips.read(&value);
                    each(value)
                }
                _ => skips.skip(),
            },
        )
        .map(drop)
        .map_err(Error::io(&self.path))
    }

    /// Calls `each` with every record nodwyn can read on the whole lines after byte `offset`, in
    /// order, one at a time, and returns the offset just past the last whole line: reading again
    /// from there gives only what was appended since (a torn last line is read again once it is
    /// followed by a line break).
    pub fn each_record_from(
        &self,
        offset: u64,
        mut each: impl FnMut(Record),
    ) -> Result<u64, Error> {
        self.each_placed_record_from(offset, |record, _| each(record))
    }

    /// [`EventLog::each_record_from`], giving each record with the offset just past its line
    /// (where reading again would start after it).
    pub fn each_placed_record_from(
        &self,
        offset: u64,
        mut each: impl FnMut(Record, u64),
    ) -> Result<u64, Error> {
        let mut file = File::open(&self.path).map_err(Error::io(&self.path))?;
        file.seek(SeekFrom::Start(offset))
            .map_err(Error::io(&self.path))?;
        let mut skips = Skips::of(&self.path);
        let whole = each_line(
            std::io::BufReader::new(file),
            LONGEST_LINE,
            Last::LeftForLater,
            |line, end| match line.and_then(|l| serde_json::from_slice::<Value>(l).ok()) {
                Some(value @ Value::Object(_)) => {
                    skips.read(&value);
                    if let Ok(record) = serde_json::from_value::<Record>(value) {
                        each(record, offset + end);
                    }
                    ControlFlow::Continue(())
                }
                _ => skips.skip(),
            },
        )
        .map_err(Error::io(&self.path))?;
        Ok(offset + whole)
    }

    /// How many records nodwyn can read on the log's whole lines: the place the next record
    /// appended will have, as a session's fold counts them.
    pub fn count(&self) -> Result<usize, Error> {
        let mut count = 0;
        self.each_record_from(0, |_| count += 1)?;
        Ok(count)
    }

    /// The first record alone (`session.start`), read without reading the rest of the log.
    pub fn first(&self) -> Result<Option<Record>, Error> {
        use std::io::BufRead;
        let file = File::open(&self.path).map_err(Error::io(&self.path))?;
        let mut line = String::new();
        std::io::BufReader::new(file)
            .read_line(&mut line)
            .map_err(Error::io(&self.path))?;
        Ok(serde_json::from_str::<Record>(&line).ok())
    }

    /// Waits for, then takes, the session's lock; it is released when the guard is dropped.
    pub fn lock(&self) -> Result<LogLock, Error> {
        let file = File::open(&self.path).map_err(Error::io(&self.path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                // Another command holds it (a call holds it until its command ends, at most its
                // time limit): say so before waiting, so the wait is never silent.
                if let Some(notice) = WAITING_NOTICE.get() {
                    notice(&self.path);
                }
                file.lock().map_err(Error::io(&self.path))?;
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&self.path)(e)),
        }
        Ok(LogLock { _file: file })
    }

    /// Waits for, then takes, the session's lock shared with other holders of a shared lock (calls
    /// that may run side by side); an exclusive holder (a command that changes the session) waits
    /// for them all, and they for it.
    pub(crate) fn lock_shared(&self) -> Result<LogLock, Error> {
        let file = File::open(&self.path).map_err(Error::io(&self.path))?;
        file.lock_shared().map_err(Error::io(&self.path))?;
        Ok(LogLock { _file: file })
    }
}

/// The lines a read of a log skips, told apart: a torn line a `log.torn` record follows was
/// said to be torn when it was healed, and passes quietly; a torn last line is healed by the next
/// append; any other unreadable line is damage, and warned of.
struct Skips<'a> {
    path: &'a Path,
    /// An unreadable line was just skipped, and what follows it is not known yet.
    pending: bool,
}

impl<'a> Skips<'a> {
    fn of(path: &'a Path) -> Self {
        Self {
            path,
            pending: false,
        }
    }

    fn skip(&mut self) -> ControlFlow<()> {
        if self.pending {
            self.warn();
        }
        self.pending = true;
        ControlFlow::Continue(())
    }

    fn read(&mut self, value: &Value) {
        if std::mem::take(&mut self.pending)
            && value.get("type").and_then(Value::as_str) != Some("log.torn")
        {
            self.warn();
        }
    }

    fn warn(&self) {
        tracing::warn!(log = %self.path.display(), "skipping an unreadable log line");
    }
}

/// What to do when a command must wait for a session's lock; the command line sets it to tell
/// the person.
static WAITING_NOTICE: std::sync::OnceLock<fn(&Path)> = std::sync::OnceLock::new();

/// Has `notice` called with the log's path whenever a command must wait for a session's lock
/// that another command holds.
pub fn on_waiting_for_lock(notice: fn(&Path)) {
    let _ = WAITING_NOTICE.set(notice);
}

/// The longest string field a record keeps whole; a longer one keeps its start and says how
/// long it was, so no call (a 20 MB path, a huge error) can grow the log by its own size.
const LONGEST_FIELD: usize = 4096;

/// A line longer than this is not read as a record (no record nodwyn writes comes near it):
/// it is skipped, and skipping it costs no memory.
const LONGEST_LINE: usize = 1 << 20;

fn line(record: &Record) -> Result<Vec<u8>, Error> {
    let value = bounded(serde_json::to_value(record).map_err(Error::Encode)?);
    let mut bytes = serde_json::to_vec(&value).map_err(Error::Encode)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `value` with every string longer than [`LONGEST_FIELD`] cut to its start and its length.
fn bounded(value: Value) -> Value {
    match value {
        Value::String(s) if s.len() > LONGEST_FIELD => {
            let mut end = 256;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            Value::String(format!("{}... [{} bytes in all]", &s[..end], s.len()))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(bounded).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, bounded(v))).collect())
        }
        other => other,
    }
}

/// What [`each_line`] does with a last line no line break ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Reads it as any other line.
    Read,
    /// Leaves it for a later read: it may be a record still being written.
    LeftForLater,
}

/// Calls `each` with every non-empty line of `reader` (without its line break), or with `None`
/// for a line longer than `longest`, which is read past without being kept, until it says to
/// stop. Returns how many bytes the whole lines it read took, line breaks included.
fn each_line(
    mut reader: impl std::io::BufRead,
    longest: usize,
    last: Last,
    mut each: impl FnMut(Option<&[u8]>, u64) -> ControlFlow<()>,
) -> std::io::Result<u64> {
    let mut line = Vec::new();
    let mut too_long = false;
    let (mut read, mut whole) = (0u64, 0u64);
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let (chunk, ends_line) = match memchr_newline(buffer) {
            Some(at) => (&buffer[..at], true),
            None => (buffer, false),
        };
        if !too_long {
            if line.len() + chunk.len() > longest {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(ends_line);
        reader.consume(used);
        read += used as u64;
        if ends_line {
            whole = read;
            if emit(&mut line, &mut too_long, &mut |l| each(l, whole)).is_break() {
                return Ok(whole);
            }
        }
    }
    if last == Last::Read {
        let _ = emit(&mut line, &mut too_long, &mut |l| each(l, read));
    }
    Ok(whole)
}

fn emit(
    line: &mut Vec<u8>,
    too_long: &mut bool,
    each: &mut impl FnMut(Option<&[u8]>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let flow = if *too_long {
        each(None)
    } else if !line.iter().all(u8::is_ascii_whitespace) {
        each(Some(line))
    } else {
        ControlFlow::Continue(())
    };
    line.clear();
    *too_long = false;
    flow
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

/// How many bytes follow the file's last line break (0 when it ends with one, or is empty): a
/// torn last line.
fn torn_tail(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if let Some(at) = part.iter().rposition(|b| *b == b'\n') {
            return Ok(len - (start + at as u64 + 1));
        }
        end = start;
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use crate::event::Event;

    /// The records after `offset`, and the offset past the last whole line.
    fn read_from(log: &EventLog, offset: u64) -> (Vec<Record>, u64) {
        let mut records = Vec::new();
        let end = log
            .each_record_from(offset, |record| records.push(record))
            .unwrap();
        (records, end)
    }

    fn read(log: &EventLog) -> Vec<Record> {
        read_from(log, 0).0
    }

    fn close(kept: &[&str]) -> Record {
        Record::new(
            Timestamp::from_unix_millis(0),
            Event::SessionClose {
                kept: kept.iter().map(|s| s.to_string()).collect(),
            },
        )
    }

    fn torn(bytes: u64) -> Record {
        Record::new(Timestamp::from_unix_millis(0), Event::LogTorn { bytes })
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_the_next_record_starts_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let log = EventLog::create(path.clone(), &close(&["a"])).unwrap();
        // A crash in the middle of a write.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"type":"session.clo"#).unwrap();
        assert_eq!(read(&log), vec![close(&["a"])]);
        // The append ends the torn line and says it was torn, once.
        log.append(&close(&["b"])).unwrap();
        assert_eq!(read(&log), vec![close(&["a"]), torn(20), close(&["b"])]);
        log.append(&close(&["c"])).unwrap();
        assert_eq!(
            read(&log),
            vec![close(&["a"]), torn(20), close(&["b"]), close(&["c"])]
        );
    }

    #[test]
    fn reading_from_an_offset_gives_only_what_was_appended_since() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let log = EventLog::create(path.clone(), &close(&["a"])).unwrap();
        let (first, offset) = read_from(&log, 0);
        assert_eq!(first, vec![close(&["a"])]);
        assert_eq!(read_from(&log, offset), (vec![], offset));
        // A torn line is not read, nor skipped past, until a line break follows it.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"type":"session.clo"#).unwrap();
        assert_eq!(read_from(&log, offset), (vec![], offset));
        log.append(&close(&["b"])).unwrap();
        let (next, end) = read_from(&log, offset);
        assert_eq!(next, vec![torn(20), close(&["b"])]);
        assert_eq!(end, std::fs::metadata(&path).unwrap().len());
        assert_eq!(read(&log), vec![close(&["a"]), torn(20), close(&["b"])]);
    }

    #[test]
    fn create_refuses_an_existing_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        EventLog::create(path.clone(), &close(&[])).unwrap();
        assert!(EventLog::create(path, &close(&[])).is_err());
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    #[test]
    fn long_fields_are_cut_and_long_lines_skipped_without_being_kept() {
        let long = "p".repeat(20 * 1024 * 1024);
        let cut = bounded(serde_json::json!({"action": long, "n": [1, "short"]}));
        let action = cut["action"].as_str().unwrap();
        assert!(action.len() < 400, "{}", action.len());
        assert!(action.ends_with("[20971520 bytes in all]"));
        assert_eq!(cut["n"], serde_json::json!([1, "short"]));

        let text = format!("{{\"a\":1}}\n{}\n\n{{\"b\":2}}", "x".repeat(3000));
        let mut seen = Vec::new();
        each_line(
            std::io::BufReader::with_capacity(64, text.as_bytes()),
            1000,
            Last::Read,
            |line, _| {
                seen.push(line.map(|l| String::from_utf8_lossy(l).into_owned()));
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            [
                Some("{\"a\":1}".to_owned()),
                None,
                Some("{\"b\":2}".to_owned())
            ]
        );
    }
}
