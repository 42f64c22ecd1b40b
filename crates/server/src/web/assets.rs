//! The console's page and code, embedded in the binary: plain files under `crates/server/web/`,
//! served as they are (no build step), each at its own path.

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

const HTML: &str = "text/html; charset=utf-8";
const SCRIPT: &str = "text/javascript; charset=utf-8";
const STYLE: &str = "text/css; charset=utf-8";

/// Every file of the console, at the path it is served from: the page, its modules (the page's
/// code, making elements, the rules for text it did not write, records in words, the review's
/// logic and view) and
/// its style. They hold no data, so they are served without the token.
pub(crate) const ASSETS: &[(&str, Asset)] = &[
    (
        "/",
        Asset {
            text: include_str!("../../web/index.html"),
            kind: HTML,
        },
    ),
    (
        "/app.js",
        Asset {
            text: include_str!("../../web/app.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/dom.js",
        Asset {
            text: include_str!("../../web/dom.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/text.js",
        Asset {
            text: include_str!("../../web/text.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/review.js",
        Asset {
            text: include_str!("../../web/review.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/words.js",
        Asset {
            text: include_str!("../../web/words.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/review_view.js",
        Asset {
            text: include_str!("../../web/review_view.js"),
            kind: SCRIPT,
        },
    ),
    (
        "/style.css",
        Asset {
            text: include_str!("../../web/style.css"),
            kind: STYLE,
        },
    ),
];

/// Whether `path` is one of the console's own files.
pub(crate) fn is_asset(path: &str) -> bool {
    ASSETS.iter().any(|(served, _)| *served == path)
}

#[cfg(test)]
mod tests {
    use super::ASSETS;

    /// A file of the page left out of the table would be refused to the browser (401) and the
    /// page would stop where it imports it.
    #[test]
    fn every_file_of_the_page_is_served() {
        let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        for entry in std::fs::read_dir(&web).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            // The page's tests, and what they read.
            if name.ends_with(".test.mjs") || name.ends_with(".fixtures.json") {
                continue;
            }
            let path = if name == "index.html" {
                "/".to_owned()
            } else {
                format!("/{name}")
            };
            assert!(
                ASSETS.iter().any(|(served, _)| *served == path),
                "{name} is not served"
            );
        }
    }
}
