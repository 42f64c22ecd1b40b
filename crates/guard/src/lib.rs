//! `nodwyn-guard`: what stands around every action an agent takes.
//!
//! - [`scan`]: L1, credential shapes in text and in the added lines of diffs.
//! - [`denylist`]: paths that hold credentials, which an agent may neither read, write nor
//!   commit.
//!
//! The crate depends on no other nodwyn crate and never prints.

pub mod scan;

pub use scan::{Finding, Scanner};
