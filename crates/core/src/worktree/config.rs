//! The fingerprint of a repository's git configuration for a session (see
//! `nodwyn_git::fingerprint`): recorded when the worktree is made, compared by the checks before
//! git runs (`nodwyn_prim::checkout::verified`), and accepted again by a person after a change.

use std::path::Path;

use crate::Error;
use crate::clock::Timestamp;
use crate::event::Event;
use crate::event::Record;
use crate::log::EventLog;
use crate::session::Session;
use crate::store::Store;

use super::{active_worktree, locked_session};

/// Records the fingerprint of the repository's configuration as the worktree at `path` sees it
/// (`session.config`), taken by nodwyn (`accepted_by` empty) or accepted by a person.
pub(crate) fn record(
    log: &EventLog,
    session: &str,
    path: &Path,
    accepted_by: Option<String>,
) -> Result<(), Error> {
    let fingerprint = nodwyn_git::fingerprint::fingerprint(path)?;
    let home = crate::store::Store::data_dir_of(log.path()).ok_or_else(|| {
        Error::declined(
            "not_in_a_data_directory",
            format!("{} is not in a data directory", log.path().display()),
        )
    })?;
    let place = log.count()?;
    let seal = crate::seal::Seal::of(&home)?.sign(&crate::seal::config_sealed(
        session,
        place,
        &fingerprint,
        accepted_by.as_deref(),
    ));
    log.append(&Record::new(
        Timestamp::now(),
        Event::SessionConfig {
            fingerprint,
            accepted_by,
            seal: Some(seal),
        },
    ))?;
    Ok(())
}

/// What changed in the repository's configuration since session `id` recorded it, in words;
/// empty when nothing did (or nothing was recorded).
pub fn changes(store: &Store, id: &str) -> Result<Vec<String>, Error> {
    let session = Session::load(&store.find(id)?)?;
    let facts = active_worktree(&session)?;
    let Some(recorded) = &session.config else {
        return Ok(Vec::new());
    };
    let now = nodwyn_git::fingerprint::fingerprint(&facts.path)?;
    Ok(nodwyn_git::fingerprint::differences(recorded, &now))
}

/// Records the configuration as it is now for session `id`, accepted by `person`: the checks
/// before git runs compare against it from now on.
pub fn accept(store: &Store, id: &str, person: &str) -> Result<(), Error> {
    let locked = locked_session(store, id)?;
    let facts = active_worktree(&locked.session)?;
    record(
        &locked.stored.log,
        &locked.session.id.to_string(),
        &facts.path,
        Some(person.to_owned()),
    )
}
