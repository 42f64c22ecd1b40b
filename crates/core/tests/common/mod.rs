//! What core's integration tests share: git with a fixed identity, and a person who says yes.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use nodwyn_core::person::{Person, Question, Reply};

/// Runs `git ARGS` in `dir` as a test author, asserting it succeeds.
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A person who approves everything (a test's stand-in for a terminal).
pub(crate) struct Approves;

impl Person for Approves {
    fn ask(&mut self, _question: &Question) -> Option<Reply> {
        Some(Reply::Allow)
    }
}
