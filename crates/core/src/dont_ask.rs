//! "Don't ask" for a session: a person's switch, kept in the session's log as `session.dont_ask`.
//! While it is on, the guard answers ordinary questions itself; security confirms still go to the
//! person. Only the command line's `nodwyn session dont-ask` writes it: no primitive can.

use crate::Error;
use crate::call::append;
use crate::event::Event;
use crate::store::Store;
use crate::worktree::locked_session;

/// Turns "Don't ask" on (`on`) or off for session `id`, as `person`. Returns the session's full id.
pub fn set_dont_ask(store: &Store, id: &str, on: bool, person: &str) -> Result<String, Error> {
    let locked = locked_session(store, id)?;
    let place = locked.stored.log.count()?;
    let seal = crate::seal::Seal::of(store.home())?.sign(&crate::seal::dont_ask_sealed(
        &locked.session.id.to_string(),
        place,
        on,
        person,
    ));
    append(
        &locked.stored.log,
        Event::SessionDontAsk {
            on,
            by: person.to_owned(),
            seal: Some(seal),
        },
    )?;
    Ok(locked.session.id.to_string())
}
