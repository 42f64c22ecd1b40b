//! What every request to the console's listener must show before anything answers it, as a
//! function of the request's head alone, so each refusal is tested without a socket.
//!
//! Local web servers of agent tools have been taken over from ordinary web pages: a page the
//! person visits can make the browser send requests to a loopback port (cross-site request
//! forgery), and a name the attacker's DNS points at 127.0.0.1 makes those requests same-origin
//! (DNS rebinding). So a request whose `Host` is not this listener's own loopback address is
//! refused (421: the name is not this server's); a POST or a WebSocket whose `Origin` is another
//! site's is refused (403); a POST whose body is not `application/json` is refused (415: the
//! types a form may send without asking are never accepted); and everything but the console's
//! own page and code needs the per-launch token, carried by its cookie (401).

use std::net::SocketAddr;

/// The cookie that carries the token once the page exchanged it.
pub(crate) const COOKIE: &str = "nodwyn_console";

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
    /// The `Cookie` header.
    pub(crate) cookie: Option<&'a str>,
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

/// The paths served to any request from this listener's own address: the console's page and
/// code, which hold no data. Everything else needs the token.
pub(crate) const OPEN_PATHS: &[&str] = &["/", "/app.js", "/style.css", "/favicon.ico", "/login"];

/// The listener's own names: its address, and `localhost` with its port.
pub(crate) fn own_hosts(addr: SocketAddr) -> Vec<String> {
    vec![addr.to_string(), format!("localhost:{}", addr.port())]
}

/// Whether `head` may be answered by the listener at `addr`, whose token is `token`.
pub(crate) fn check(head: &Head<'_>, addr: SocketAddr, token: &str) -> Result<(), Refused> {
    let hosts = own_hosts(addr);
    let Some(host) = head.host.filter(|host| hosts.iter().any(|own| own == host)) else {
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
    if OPEN_PATHS.contains(&head.path) && !head.upgrade {
        return Ok(());
    }
    if head
        .cookie
        .and_then(cookie_token)
        .is_some_and(|given| same(given, token))
    {
        Ok(())
    } else {
        Err(Refused {
            status: 401,
            why: "open the console at the address nodwyn serve printed (its token changes each time it starts)".to_owned(),
        })
    }
}

/// The token a `Cookie` header carries.
fn cookie_token(header: &str) -> Option<&str> {
    header.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        (name == COOKIE).then_some(value)
    })
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
        ] {
            let head = Head {
                host,
                cookie: Some("nodwyn_console=0123456789abcdef"),
                ..head("GET", "/")
            };
            assert_eq!(status(&head), 421, "{host:?}");
        }
        assert_eq!(
            status(&Head {
                host: Some("localhost:4242"),
                ..head("GET", "/")
            }),
            200
        );
    }

    #[test]
    fn another_origin_may_neither_post_nor_open_a_websocket() {
        let cookie = Some("nodwyn_console=0123456789abcdef");
        let post = Head {
            origin: Some("http://evil.example"),
            content_type: Some("application/json"),
            cookie,
            ..head("POST", "/login")
        };
        assert_eq!(status(&post), 403);
        let socket = Head {
            origin: Some("http://localhost:4242"),
            upgrade: true,
            cookie,
            ..head("GET", "/ws")
        };
        assert_eq!(
            status(&socket),
            403,
            "localhost is not the page's own origin here"
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
                ..head("POST", "/login")
            };
            assert_eq!(status(&post), 415, "{kind:?}");
        }
        let json = Head {
            content_type: Some("application/json; charset=utf-8"),
            ..head("POST", "/login")
        };
        assert_eq!(status(&json), 200);
    }

    #[test]
    fn data_needs_the_tokens_cookie_and_the_page_does_not() {
        assert_eq!(status(&head("GET", "/app.js")), 200);
        for cookie in [
            None,
            Some("nodwyn_console=wrong"),
            Some("other=0123456789abcdef"),
            Some("nodwyn_console=0123456789abcde"),
        ] {
            let socket = Head {
                upgrade: true,
                cookie,
                ..head("GET", "/ws")
            };
            assert_eq!(status(&socket), 401, "{cookie:?}");
        }
        let socket = Head {
            upgrade: true,
            cookie: Some("theme=dark; nodwyn_console=0123456789abcdef"),
            ..head("GET", "/ws")
        };
        assert_eq!(status(&socket), 200);
        assert_eq!(status(&head("GET", "/anything-else")), 401);
    }
}
