//! The console's page and code, embedded in the binary: plain files under `crates/server/web/`,
//! served as they are (no build step).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// One embedded file and its type.
pub(crate) struct Asset {
    text: &'static str,
    kind: &'static str,
}

impl Asset {
    /// The file as an answer.
    pub(crate) fn response(&self) -> Response {
        let mut response = self.text.into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(self.kind));
        response
    }
}

/// The page.
pub(crate) const PAGE: Asset = Asset {
    text: include_str!("../../web/index.html"),
    kind: "text/html; charset=utf-8",
};

/// Its code.
pub(crate) const SCRIPT: Asset = Asset {
    text: include_str!("../../web/app.js"),
    kind: "text/javascript; charset=utf-8",
};

/// Its rules for showing text it did not write.
pub(crate) const TEXT: Asset = Asset {
    text: include_str!("../../web/text.js"),
    kind: "text/javascript; charset=utf-8",
};

/// Its style.
pub(crate) const STYLE: Asset = Asset {
    text: include_str!("../../web/style.css"),
    kind: "text/css; charset=utf-8",
};
