//! Where nodwyn keeps its data, and finding sessions in it.
//!
//! ```text
//! $NODWYN_HOME/sessions/<project id>/<session id>.jsonl   one event log per session
//! $NODWYN_HOME/worktrees/<project id>/<short id>           worktrees, with worktrees.location = "data"
//! ```
//!
//! A *project id* names a repository (its main worktree): the folder's name and a hash of its
//! canonical path, such as `nodwyn-3f9c0a1b2c3d4e5f`. Sessions key on it, so every checkout of
//! the repository (the main one, nodwyn's worktrees, a person's own) sees the same sessions.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::clock::Timestamp;
use crate::event::Record;
use crate::id::{SessionId, is_short_id};
use crate::log::EventLog;

/// nodwyn's data directory.
#[derive(Debug, Clone)]
pub struct Store {
    home: PathBuf,
    /// The repository whose sessions an id or name is looked for first (the one the person is
    /// in), when there is one.
    preferred: Option<PathBuf>,
}

/// A session found in the store: its id and its log.
#[derive(Debug, Clone)]
pub struct StoredSession {
    /// The session's id.
    pub id: SessionId,
    /// Its event log.
    pub log: EventLog,
}

impl StoredSession {
    /// Where the snapshots of its worktree's files taken as turns begin keep their objects
    /// (beside its log, `<id>.objects/`): in the data directory, out of every agent's reach.
    pub fn kept_objects(&self) -> PathBuf {
        kept_objects_beside(self.log.path())
    }
}

/// The kept objects' folder of the session whose log is `log` (see
/// [`StoredSession::kept_objects`]); removed with the session's worktree.
pub(crate) fn kept_objects_beside(log: &Path) -> PathBuf {
    log.with_extension("objects")
}

impl Store {
    /// The store rooted at `home` (`$NODWYN_HOME`).
    pub fn new(home: PathBuf) -> Self {
        Self {
            home,
            preferred: None,
        }
    }

    /// The store, looking an id or name up among `repository`'s sessions first (see
    /// [`Store::find`]).
    pub fn preferring(mut self, repository: Option<PathBuf>) -> Self {
        self.preferred = repository;
        self
    }

    /// The data directory itself.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The project id of a repository.
    pub fn project_id(repository: &Path) -> String {
        let name: String = repository
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".to_owned())
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let hash = fnv1a64(repository.as_os_str().as_encoded_bytes());
        format!("{name}-{hash:016x}")
    }

    /// Where worktrees of `repository` go with `worktrees.location = "data"`.
    pub(crate) fn worktrees_dir(&self, repository: &Path) -> PathBuf {
        self.home
            .join("worktrees")
            .join(Self::project_id(repository))
    }

    /// The data directory a session log at `log` belongs to (logs live in
    /// `<data>/sessions/<project>/`).
    pub(crate) fn data_dir_of(log: &Path) -> Option<PathBuf> {
        log.parent()?.parent()?.parent().map(Path::to_path_buf)
    }

    fn sessions_dir(&self, repository: &Path) -> PathBuf {
        self.home
            .join("sessions")
            .join(Self::project_id(repository))
    }

    /// Opens a new session of `repository`: picks an id whose short id no other session, branch
    /// or folder uses (`taken` answers for branches and folders), and writes the log's first
    /// record, which `start` makes from the id.
    pub(crate) fn open_session(
        &self,
        repository: &Path,
        now: Timestamp,
        taken: impl Fn(&str) -> bool,
        start: impl FnOnce(&SessionId) -> Record,
    ) -> Result<StoredSession, Error> {
        let dir = self.sessions_dir(repository);
        std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        for _ in 0..16 {
            let id = SessionId::generate(now)?;
            if taken(id.short()) || !self.find_by_short(id.short())?.is_empty() {
                continue;
            }
            let log = EventLog::create(dir.join(format!("{id}.jsonl")), &start(&id))?;
            return Ok(StoredSession { id, log });
        }
        Err(Error::NoFreeId)
    }

    /// Writes the log of session `id`, which ran elsewhere, with its `records` as they came
    /// (one JSON object to a line), among `repository`'s; refuses an id whose short id a session
    /// here has.
    pub(crate) fn import_session(
        &self,
        repository: &Path,
        id: &SessionId,
        records: &[serde_json::Value],
    ) -> Result<StoredSession, Error> {
        if !self.find_by_short(id.short())?.is_empty() {
            return Err(Error::declined(
                "already_imported",
                format!(
                    "a session here has the short id {} already, so session {id} was not imported",
                    id.short()
                ),
            ));
        }
        let dir = self.sessions_dir(repository);
        std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        let path = dir.join(format!("{id}.jsonl"));
        let mut text = String::new();
        for record in records {
            text.push_str(&record.to_string());
            text.push('\n');
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(Error::io(&path))?;
        file.sync_all().map_err(Error::io(&path))?;
        Ok(StoredSession {
            id: id.clone(),
            log: EventLog::at(path),
        })
    }

    /// Finds a session by its full id, its 8 hex digits or any unique start of them (any case),
    /// or its name (as given to `--name`, or its slug) or a unique start of it. The preferred
    /// repository's sessions are searched first, then every repository's. In each, an exact match
    /// wins (the full id, the 8 digits, then a whole name) over a start of one; several matches of
    /// the same rank are refused, naming them.
    pub fn find(&self, text: &str) -> Result<StoredSession, Error> {
        let all = self.all_logs()?;
        if let Some(repository) = &self.preferred {
            let folder = self.sessions_dir(repository);
            let here: Vec<StoredSession> = all
                .iter()
                .filter(|s| s.log.path().parent() == Some(folder.as_path()))
                .cloned()
                .collect();
            match find_among(text, here) {
                Err(Error::NoSuchSession(_)) => {}
                found => return found,
            }
        }
        find_among(text, all)
    }

    /// Every session of `repository`, oldest first.
    pub fn sessions_of(&self, repository: &Path) -> Result<Vec<StoredSession>, Error> {
        let mut sessions = logs_in(&self.sessions_dir(repository))?;
        sessions.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(sessions)
    }

    fn find_by_short(&self, short: &str) -> Result<Vec<StoredSession>, Error> {
        Ok(self
            .all_logs()?
            .into_iter()
            .filter(|s| s.id.short() == short)
            .collect())
    }

    /// The repositories nodwyn keeps sessions of, each once, sorted: each project folder's
    /// repository as the first record of one of its logs names it. A folder whose logs cannot be
    /// read is left out.
    pub fn repositories(&self) -> Result<Vec<PathBuf>, Error> {
        let mut repositories = Vec::new();
        for project in self.project_folders()? {
            // A log whose first record names a repository of another project folder (one that
            // ran elsewhere and was imported here) does not say which repository this folder is;
            // its `session.import` record does.
            let folder = project
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let ours =
                |repository: &PathBuf| folder.as_deref() == Some(&Self::project_id(repository));
            let logs = logs_in(&project)?;
            let named = logs
                .iter()
                .find_map(|stored| first_record_repository(stored.log.path()).filter(ours))
                .or_else(|| {
                    logs.iter()
                        .find_map(|stored| imported_repository(&stored.log).filter(ours))
                });
            if let Some(repository) = named
                && !repositories.contains(&repository)
            {
                repositories.push(repository);
            }
        }
        repositories.sort();
        Ok(repositories)
    }

    fn all_logs(&self) -> Result<Vec<StoredSession>, Error> {
        let mut sessions = Vec::new();
        for project in self.project_folders()? {
            sessions.extend(logs_in(&project)?);
        }
        Ok(sessions)
    }

    /// The folders of `sessions/`, one a project; none before the first session.
    fn project_folders(&self) -> Result<Vec<PathBuf>, Error> {
        let root = self.home.join("sessions");
        let projects = match std::fs::read_dir(&root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&root)(e)),
        };
        projects
            .map(|project| project.map(|p| p.path()).map_err(Error::io(&root)))
            .collect()
    }
}

/// The session `text` names among `sessions` (see [`Store::find`]).
fn find_among(text: &str, sessions: Vec<StoredSession>) -> Result<StoredSession, Error> {
    if let Some(id) = SessionId::parse(text) {
        return one_of(text, sessions.into_iter().filter(|s| s.id == id).collect());
    }
    let wanted = text.trim().to_ascii_lowercase();
    let could_be = |b: u8| b.is_ascii_alphanumeric() || b"-_ ".contains(&b);
    if wanted.is_empty() || !wanted.bytes().all(could_be) {
        return Err(Error::BadId(text.to_owned()));
    }
    // A name is looked up as `--name` made it a slug, so `my fix` finds `my-fix`.
    let name = crate::worktree::create::slug(&wanted).ok();
    let digits = is_short_id_prefix(&wanted).then_some(wanted.as_str());
    if name.is_none() && digits.is_none() {
        return Err(Error::BadId(text.to_owned()));
    }
    let named: Vec<(StoredSession, Option<String>)> = sessions
        .into_iter()
        .map(|stored| {
            let name = name_of(&stored);
            (stored, name)
        })
        .collect();
    let exact = |(stored, _): &(StoredSession, Option<String>)| {
        digits.is_some_and(|d| is_short_id(d) && stored.id.short() == d)
    };
    let whole = |(_, own): &(StoredSession, Option<String>)| {
        name.as_ref().is_some_and(|n| own.as_ref() == Some(n))
    };
    let start = |(stored, own): &(StoredSession, Option<String>)| {
        digits.is_some_and(|d| stored.id.short().starts_with(d))
            || name
                .as_ref()
                .is_some_and(|n| own.as_ref().is_some_and(|o| o.starts_with(n.as_str())))
    };
    for rank in [&exact as &dyn Fn(&_) -> bool, &whole, &start] {
        let matches: Vec<StoredSession> = named
            .iter()
            .filter(|entry| rank(entry))
            .map(|(stored, _)| stored.clone())
            .collect();
        if !matches.is_empty() {
            return one_of(text, matches);
        }
    }
    Err(Error::NoSuchSession(text.to_owned()))
}

/// The one session of `matches`, or the error of none or several.
fn one_of(text: &str, matches: Vec<StoredSession>) -> Result<StoredSession, Error> {
    match <[StoredSession; 1]>::try_from(matches) {
        Ok([one]) => Ok(one),
        Err(matches) if matches.is_empty() => Err(Error::NoSuchSession(text.to_owned())),
        Err(matches) => {
            let mut sessions: Vec<String> = matches.into_iter().map(|s| s.id.to_string()).collect();
            sessions.sort();
            Err(Error::AmbiguousId {
                short: text.to_owned(),
                sessions,
            })
        }
    }
}

/// The name a session was given, from its first record.
fn name_of(stored: &StoredSession) -> Option<String> {
    match stored.log.first().ok()??.event {
        crate::event::Event::SessionStart { worktree, .. } => worktree?.name,
        _ => None,
    }
}

/// Whether `text` could be the start of a short id: one to eight lowercase hex digits.
fn is_short_id_prefix(text: &str) -> bool {
    (1..=8).contains(&text.len()) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn logs_in(dir: &Path) -> Result<Vec<StoredSession>, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir)(e)),
    };
    let mut sessions = Vec::new();
    for entry in entries {
        let path = entry.map_err(Error::io(dir))?.path();
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".jsonl"))
            .and_then(SessionId::parse)
        else {
            continue;
        };
        sessions.push(StoredSession {
            id,
            log: EventLog::at(path),
        });
    }
    Ok(sessions)
}

/// FNV-1a, 64 bits: a stable hash (unlike std's) for naming a repository's folders.
/// The repository the `session.start` record on the first line of the log at `path` names.
fn first_record_repository(path: &Path) -> Option<PathBuf> {
    use std::io::BufRead;
    let mut first = String::new();
    std::io::BufReader::new(std::fs::File::open(path).ok()?)
        .read_line(&mut first)
        .ok()?;
    let record: serde_json::Value = serde_json::from_str(&first).ok()?;
    (record["type"] == "session.start")
        .then(|| record["repository"].as_str().map(PathBuf::from))
        .flatten()
}

/// The repository a log's `session.import` record re-homed its session to, if it has one.
fn imported_repository(log: &EventLog) -> Option<PathBuf> {
    let mut found = None;
    log.each_value(|record| {
        if record["type"] == "session.import" {
            found = record["repository"].as_str().map(PathBuf::from);
        }
        std::ops::ControlFlow::Continue(())
    })
    .ok()?;
    found
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn start(repository: &Path) -> impl FnOnce(&SessionId) -> Record + '_ {
        move |_| {
            Record::new(
                Timestamp::now(),
                Event::SessionStart {
                    root: repository.to_path_buf(),
                    repository: repository.to_path_buf(),
                    worktree: None,
                },
            )
        }
    }

    #[test]
    fn an_imported_session_names_its_home_repository_not_the_runners() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf());
        let (here, runner) = (Path::new("/src/shop"), Path::new("/home/runner/work/shop"));
        let id = SessionId::parse("20261203T120000Z-1234abcd").unwrap();
        let start = serde_json::to_value(start(runner)(&id)).unwrap();
        let stored = store.import_session(here, &id, &[start]).unwrap();
        // Before its import record, the log names only the runner's repository: not listed.
        assert_eq!(store.repositories().unwrap(), Vec::<PathBuf>::new());
        stored
            .log
            .append(&Record::new(
                Timestamp::now(),
                Event::SessionImport {
                    source: "export.json".to_owned(),
                    ran_on: Box::default(),
                    repository: here.to_path_buf(),
                    worktree: Box::new(crate::event::WorktreeFacts {
                        repository: here.to_path_buf(),
                        path: here.join(".nodwyn/worktrees/1234abcd"),
                        branch: "nodwyn/1234abcd".to_owned(),
                        name: None,
                        base: "main".to_owned(),
                        base_remote: None,
                        base_commit: "a".repeat(40),
                        pull_request: None,
                        port: None,
                    }),
                },
            ))
            .unwrap();
        assert_eq!(store.repositories().unwrap(), vec![here.to_path_buf()]);
    }

    #[test]
    fn project_ids_are_stable_and_distinct() {
        let a = Store::project_id(Path::new("/home/me/src/nodwyn"));
        assert_eq!(a, Store::project_id(Path::new("/home/me/src/nodwyn")));
        assert!(a.starts_with("nodwyn-"));
        assert_ne!(a, Store::project_id(Path::new("/home/you/src/nodwyn")));
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn sessions_are_found_by_full_or_short_id_and_listed_per_repository() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf());
        let (one, two) = (Path::new("/r/one"), Path::new("/r/two"));
        let a = store
            .open_session(one, Timestamp::now(), |_| false, start(one))
            .unwrap();
        let b = store
            .open_session(two, Timestamp::now(), |_| false, start(two))
            .unwrap();
        assert_eq!(store.find(a.id.as_str()).unwrap().id, a.id);
        assert_eq!(store.find(b.id.short()).unwrap().id, b.id);
        let listed: Vec<_> = store
            .sessions_of(one)
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(listed, vec![a.id]);
        assert!(matches!(
            store.find("deadbeef"),
            Err(Error::NoSuchSession(_))
        ));
        assert!(matches!(store.find("../x"), Err(Error::BadId(_))));
    }

    #[test]
    fn a_taken_short_id_is_never_handed_out() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf());
        let repo = Path::new("/r/one");
        let refused = std::cell::RefCell::new(Vec::new());
        let session = store
            .open_session(
                repo,
                Timestamp::now(),
                |short| {
                    let mut refused = refused.borrow_mut();
                    refused.push(short.to_owned());
                    refused.len() < 3
                },
                start(repo),
            )
            .unwrap();
        let refused = refused.into_inner();
        assert_eq!(refused.len(), 3);
        assert_eq!(session.id.short(), refused[2]);
    }
}
