//! The person's switches for a session, kept in its log under nodwyn's seal: "Don't ask"
//! (`session.dont_ask`: while it is on, the guard answers ordinary questions itself; security
//! confirms still go to the person), and handing the session to another kind of client
//! (`session.handed`), and the standing answers a person gives for the session alone when a
//! question offers one (`session.allow_always`). Only the command line's `nodwyn session
//! dont-ask` and `session hand` write them, nodwyn's MCP server when it opens a session, and a
//! person's "allow always" answer: no primitive can.

use crate::Error;
use crate::call::append;
use crate::event::Event;
use crate::store::Store;
use crate::worktree::locked_session;

/// Turns "Don't ask" on (`on`) or off for session `id`, as `person`. Returns the session's full id.
pub fn set_dont_ask(store: &Store, id: &str, on: bool, person: &str) -> Result<String, Error> {
    append_sealed(store, id, |session, place, seal| {
        (
            crate::seal::dont_ask_sealed(session, place, on, person),
            Event::SessionDontAsk {
                on,
                by: person.to_owned(),
                seal,
            },
        )
    })
}

/// Hands session `id` to clients of kind `to` (`mcp`), as `by` (a person, or `mcp` when an MCP
/// connection opened it): such a client may then resume it. Returns the session's full id.
pub fn hand_to(store: &Store, id: &str, to: &str, by: &str) -> Result<String, Error> {
    append_sealed(store, id, |session, place, seal| {
        (
            crate::seal::handed_sealed(session, place, to, by),
            Event::SessionHanded {
                to: to.to_owned(),
                by: by.to_owned(),
                seal,
            },
        )
    })
}

/// Ends the standing answers a person gave for session `id` alone, as `by` (an MCP connection
/// that resumes it: they were given to the client the person answered through). Returns
/// whether there were any.
pub fn end_always(store: &Store, id: &str, by: &str) -> Result<bool, Error> {
    let locked = locked_session(store, id)?;
    if locked.session.always.is_empty() {
        return Ok(false);
    }
    append(
        &locked.stored.log,
        Event::SessionAllowAlwaysEnded { by: by.to_owned() },
    )?;
    Ok(true)
}

/// Records, in session `session`'s `log` (whose lock the call holds), the standing answer
/// `offer` a person chose for the rest of the session, through `through` (a client) or at the
/// terminal.
pub(crate) fn record_always(
    store: &Store,
    log: &crate::log::EventLog,
    session: &str,
    offer: &nodwyn_guard::Offer,
    through: Option<&str>,
) -> Result<(), Error> {
    let (command, write) = match &offer.answer {
        nodwyn_guard::StandingAnswer::Command(words) => (Some(words.clone()), None),
        nodwyn_guard::StandingAnswer::Write(glob) => (None, Some(glob.clone())),
        // Never offered: a push goes to the person each time.
        nodwyn_guard::StandingAnswer::Push(_) => return Ok(()),
    };
    let by = match through {
        Some(channel) => format!("the person, through {channel}"),
        None => "the person, at the terminal".to_owned(),
    };
    let place = log.count()?;
    let what = crate::seal::always_sealed(
        session,
        place,
        command.as_deref(),
        write.as_deref(),
        &offer.allows,
        &by,
    );
    let seal = crate::seal::Seal::of(store.home())?.sign(&what);
    append(
        log,
        Event::SessionAllowAlways {
            command,
            write,
            allows: offer.allows.clone(),
            by,
            seal: Some(seal),
        },
    )
}

/// Appends to session `id`'s log, under its lock, the record `record` makes for the session's
/// full id and the record's place, sealed over what it says is sealed (`record` is called once
/// without the seal, for what to seal, then with it). Returns the session's full id.
fn append_sealed(
    store: &Store,
    id: &str,
    record: impl Fn(&str, usize, Option<String>) -> (String, Event),
) -> Result<String, Error> {
    let locked = locked_session(store, id)?;
    let place = locked.stored.log.count()?;
    let session = locked.session.id.to_string();
    let (what, _) = record(&session, place, None);
    let seal = crate::seal::Seal::of(store.home())?.sign(&what);
    let (_, event) = record(&session, place, Some(seal));
    append(&locked.stored.log, event)?;
    Ok(session)
}
