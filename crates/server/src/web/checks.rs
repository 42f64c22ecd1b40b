//! What every request to the console's listener must show before anything answers it, as a
//! function of the request's head alone, so each refusal is tested without a socket.
//!
//! Local web servers of agent tools have been taken over from ordinary web pages: a page the
//! person visits can make the browser send requests to a loopback port (cross-site request
//! forgery), and a name the attacker's DNS points at 127.0.0.1 makes those requests same-origin
//! (DNS rebinding). So a request whose `Host` is not this listener's own address is refused
//! (421: the name is not this server's); a POST or a WebSocket whose `Origin` is another site's
//! is refused (403); a POST whose body is not `application/json` is refused (415: the types a
//! form may send without asking are never accepted); and everything but the console's own page
//! and code needs the per-launch token (401).
//!
//! The token travels in the request itself, never in a cookie: browsers do not keep cookies
//! apart by port, so a cookie of `127.0.0.1:PORT` would be sent to a server an agent's command
//! runs on any other port of `127.0.0.1` as soon as the person opened a link to it. The page
//! keeps the token in its tab's `sessionStorage` (the origin's, port included) and offers it as
//! the WebSocket's subprotocol (`nodwyn.TOKEN`); a plain request carries it as
//! `Authorization: Bearer TOKEN`.

use std::net::SocketAddr;

/// The prefix of the WebSocket subprotocol that carries the token.
pub(crate) const PROTOCOL: &str = "nodwyn.";

/// A request's head, as far as the checks read it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Head<'a> {
    /// `GET`, `POST`, ...
    pub(crate) method: &'a str,
    /// The path, without the query.
    pub(crate) path: &'a str,
    /// The `Host` header.
    pub(crate) host: Option<&'a str>,
    /// The `Origin` header.
    pub(crate) origin: Option<&'a str>,
    /// The `Content-Type` header.
    pub(crate) content_type: Option<&'a str>,
    /// The `Sec-WebSocket-Protocol` header: the subprotocols a WebSocket offers.
    pub(crate) protocols: Option<&'a str>,
    /// The `Authorization` header.
    pub(crate) authorization: Option<&'a str>,
    /// Whether it asks to become a WebSocket.
    pub(crate) upgrade: bool,
}

/// Why a request is refused: its status and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The HTTP status.
    pub(crate) status: u16,
    /// What was wrong, in words.
    pub(crate) why: String,
}

/// Whether `path` is served to any request from this listener's own address: the console's page
/// and code (and the icon browsers ask for), which hold no data. Everything else needs the token.
fn is_open(path: &str) -> bool {
    path == "/favicon.ico" || super::assets::is_asset(path)
}

/// Whether `head` may be answered by the listener at `addr`, whose token is `token`.
pub(crate) fn check(head: &Head<'_>, addr: SocketAddr, token: &str) -> Result<(), Refused> {
    // Its address exactly: not `localhost`, which another process may answer on `::1`.
    let own = addr.to_string();
    let Some(host) = head.host.filter(|host| *host == own) else {
        return Err(Refused {
            status: 421,
            why: format!(
                "this is nodwyn's console at {addr}, and the request named another host ({}): a web page may not reach it under another name",
                head.host.unwrap_or("none")
            ),
        });
    };
    let writes = head.method != "GET" && head.method != "HEAD";
    if (writes || head.upgrade)
        && let Some(origin) = head.origin
        && origin != format!("http://{host}")
    {
        return Err(Refused {
            status: 403,
            why: format!("a page of {origin} may not use nodwyn's console"),
        });
    }
    if writes
        && head
            .content_type
            .and_then(|kind| kind.split(';').next())
            .map(str::trim)
            != Some("application/json")
    {
        return Err(Refused {
            status: 415,
            why: "the console takes only application/json".to_owned(),
        });
    }
    if is_open(head.path) && !head.upgrade {
        return Ok(());
    }
    let given = if head.upgrade {
        head.protocols.and_then(|offered| {
            offered
                .split(',')
                .find_map(|protocol| protocol.trim().strip_prefix(PROTOCOL))
        })
    } else {
        head.authorization
            .and_then(|value| value.strip_prefix("Bearer "))
    };
    if given.is_some_and(|given| same(given, token)) {
        Ok(())
    } else {
        Err(Refused {
            status: 401,
            why: "open the console at the address nodwyn serve printed (its token changes each time it starts)".to_owned(),
        })
    }
}

/// Whether `given` is `token`, compared in full whatever differs first.
pub(crate) fn same(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef";
    const BEARER: Option<&str> = Some("Bearer 0123456789abcdef");

    fn addr() -> SocketAddr {
        "127.0.0.1:4242".parse().unwrap()
    }

    fn head<'a>(method: &'a str, path: &'a str) -> Head<'a> {
        Head {
            method,
            path,
            host: Some("127.0.0.1:4242"),
            ..Head::default()
        }
    }

    fn status(head: &Head<'_>) -> u16 {
        check(head, addr(), TOKEN).err().map_or(200, |r| r.status)
    }

    #[test]
    fn another_host_is_refused_whatever_else_it_carries() {
        for host in [
            None,
            Some("evil.example:4242"),
            Some("127.0.0.1:80"),
            Some("127.0.0.2:4242"),
            Some("localhost:4242"),
            Some("127.0.0.1.:4242"),
        ] {
            let head = Head {
                host,
                authorization: BEARER,
                ..head("GET", "/")
            };
            assert_eq!(status(&head), 421, "{host:?}");
        }
        assert_eq!(status(&head("GET", "/")), 200);
    }

    #[test]
    fn another_origin_may_neither_post_nor_open_a_websocket() {
        let post = Head {
            origin: Some("http://evil.example"),
            content_type: Some("application/json"),
            authorization: BEARER,
            ..head("POST", "/anything")
        };
        assert_eq!(status(&post), 403);
        let socket = Head {
            origin: Some("http://localhost:4242"),
            upgrade: true,
            protocols: Some("nodwyn.0123456789abcdef"),
            ..head("GET", "/ws")
        };
        assert_eq!(
            status(&socket),
            403,
            "localhost is not the page's own origin"
        );
        let own = Head {
            origin: Some("http://127.0.0.1:4242"),
            ..socket
        };
        assert_eq!(status(&own), 200);
    }

    #[test]
    fn a_post_of_a_type_a_form_can_send_is_refused() {
        for kind in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
        ] {
            let post = Head {
                content_type: kind,
                authorization: BEARER,
                ..head("POST", "/anything")
            };
            assert_eq!(status(&post), 415, "{kind:?}");
        }
        let json = Head {
            content_type: Some("application/json; charset=utf-8"),
            authorization: BEARER,
            ..head("POST", "/anything")
        };
        assert_eq!(status(&json), 200);
    }

    #[test]
    fn data_needs_the_token_in_the_request_itself_and_the_page_does_not() {
        assert_eq!(status(&head("GET", "/app.js")), 200);
        for protocols in [
            None,
            Some("nodwyn.wrong"),
            Some("other.0123456789abcdef"),
            Some("nodwyn.0123456789abcde"),
        ] {
            let socket = Head {
                upgrade: true,
                protocols,
                ..head("GET", "/ws")
            };
            assert_eq!(status(&socket), 401, "{protocols:?}");
        }
        let socket = Head {
            upgrade: true,
            protocols: Some("chat, nodwyn.0123456789abcdef"),
            ..head("GET", "/ws")
        };
        assert_eq!(status(&socket), 200);
        // A WebSocket's token is its subprotocol, which a page offers for its own socket.
        let bearer = Head {
            upgrade: true,
            authorization: BEARER,
            ..head("GET", "/ws")
        };
        assert_eq!(status(&bearer), 401);
        assert_eq!(status(&head("GET", "/anything-else")), 401);
        let bearer = Head {
            authorization: BEARER,
            ..head("GET", "/anything-else")
        };
        assert_eq!(status(&bearer), 200);
    }
}
