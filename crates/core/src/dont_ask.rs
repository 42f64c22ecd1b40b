//! The person's switches for a session, kept in its log under nodwyn's seal: "Don't ask"
//! (`session.dont_ask`), and handing the session to another kind of client (`session.handed`).
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

/// Hands session `id` to clients of kind `to` (`mcp`), as `by` (a person, or `mcp` when an MCP
/// connection opened it): such a client may then resume it. Returns the session's full id.
pub fn hand_to(store: &Store, id: &str, to: &str, by: &str) -> Result<String, Error> {
    let locked = locked_session(store, id)?;
    let place = locked.stored.log.count()?;
    let seal = crate::seal::Seal::of(store.home())?.sign(&crate::seal::handed_sealed(
        &locked.session.id.to_string(),
        place,
        to,
        by,
    ));
    append(
        &locked.stored.log,
        Event::SessionHanded {
            to: to.to_owned(),
            by: by.to_owned(),
            seal: Some(seal),
        },
    )?;
    Ok(locked.session.id.to_string())
}
