//! The web console's listener: the console's page and nodwyn's protocol over a WebSocket, on a
//! loopback address beside the Unix socket (`nodwyn serve --web`). The page is a client of the
//! protocol like every other front-end; this module adds no engine logic, only the checks a
//! browser's neighbourhood needs (`checks`) and the way in: the per-launch token, printed once
//! in the address's fragment (which a browser never sends), kept by the page in its tab and
//! offered as the WebSocket's subprotocol. A process an agent's command started answers no
//! question even with the token: the connection is traced to its process (`peer::tcp_peer`),
//! as the Unix socket's peers are.

mod assets;
mod capped;
mod checks;
mod socket;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::server::Server;

/// A console this process serves: where, and the token that opens it.
#[derive(Debug, Clone)]
pub struct Console {
    addr: SocketAddr,
    token: String,
}

impl Console {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address to open, the token in its fragment.
    pub fn url(&self) -> String {
        format!("http://{}/#token={}", self.addr, self.token)
    }
}

/// Binds the console's listener at `addr` (port 0: one the system picks), or says in one
/// sentence why not. Only a loopback address: the console carries the sessions' code, questions
/// and answers, and the token in the clear, which only TLS could carry further.
pub async fn bind(addr: SocketAddr) -> anyhow::Result<(tokio::net::TcpListener, Console)> {
    if !addr.ip().is_loopback() {
        anyhow::bail!(
            "the console listens only on a loopback address (127.0.0.1 or ::1), and {addr} is not one: it would send your sessions and its token unencrypted over the network, and nodwyn does not serve TLS"
        );
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("could not listen on {addr}: {e}"))?;
    let addr = listener.local_addr()?;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("no random bytes for the token: {e}"))?;
    let token = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok((listener, Console { addr, token }))
}

/// What every handler shares.
#[derive(Clone)]
struct Web {
    server: Arc<Server>,
    addr: SocketAddr,
    token: Arc<str>,
}

/// Serves the console on `listener` until `stop` completes.
pub async fn serve(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    console: Console,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let web = Web {
        server,
        addr: console.addr,
        token: Arc::from(console.token),
    };
    let mut app = Router::new();
    for (path, asset) in assets::ASSETS {
        app = app.route(path, get(|| async { asset.response() }));
    }
    let app = app
        // Browsers ask for it on their own: nothing, rather than a refusal.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/ws", get(upgrade))
        .fallback(|| async { (StatusCode::NOT_FOUND, "no such page") })
        .layer(middleware::from_fn_with_state(web.clone(), guard))
        .with_state(web);
    if let Err(error) = axum::serve(
        capped::Capped::new(listener),
        app.into_make_service_with_connect_info::<capped::Remote>(),
    )
    .with_graceful_shutdown(stop)
    .await
    {
        tracing::warn!(%error, "the console's listener stopped");
    }
}

/// Answers only what passes `checks::check`, and sends every answer with the headers that
/// keep the page to itself.
async fn guard(State(web): State<Web>, request: Request, next: Next) -> Response {
    let verdict = {
        let headers = request.headers();
        let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
        checks::check(
            &checks::Head {
                method: request.method().as_str(),
                path: request.uri().path(),
                host: text(header::HOST),
                origin: text(header::ORIGIN),
                content_type: text(header::CONTENT_TYPE),
                protocols: text(header::SEC_WEBSOCKET_PROTOCOL),
                authorization: text(header::AUTHORIZATION),
                upgrade: text(header::UPGRADE).is_some_and(|u| u.eq_ignore_ascii_case("websocket")),
            },
            web.addr,
            &web.token,
        )
    };
    let mut response = match verdict {
        Ok(()) => next.run(request).await,
        Err(refused) => (
            StatusCode::from_u16(refused.status).unwrap_or(StatusCode::FORBIDDEN),
            refused.why,
        )
            .into_response(),
    };
    protect(response.headers_mut(), web.addr);
    response
}

/// The headers every answer carries: the page runs only its own code and talks only to its own
/// WebSocket, is never framed, and nothing is guessed or cached.
fn protect(headers: &mut HeaderMap, addr: SocketAddr) {
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self' ws://{addr}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, policy.as_str()),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        // A page another site opened gets no handle on this one.
        (
            header::HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
}

/// The WebSocket: one protocol connection, its token's subprotocol chosen (a browser closes a
/// socket whose server chose none of those it offered). Its answers to questions count unless
/// it comes from a process an agent's command started.
async fn upgrade(
    State(web): State<Web>,
    ConnectInfo(capped::Remote(remote)): ConnectInfo<capped::Remote>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let local = web.addr;
    let may_answer = tokio::task::spawn_blocking(move || {
        crate::peer::tcp_peer(local, remote).is_none_or(|pid| !crate::peer::started_by_agent(pid))
    })
    .await
    .unwrap_or(false);
    upgrade
        .protocols([format!("{}{}", checks::PROTOCOL, web.token)])
        .max_message_size(crate::socket::MAX_LINE as usize)
        .on_upgrade(move |socket| socket::connection(web.server, socket, may_answer))
}
