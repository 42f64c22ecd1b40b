//! How failures leave the program: usage errors (and arguments that do not parse) exit 2, a
//! command interrupted by Ctrl-C exits 130, every other error exits 1 with one sentence on stderr
//! starting `nodwyn: `. With `--json`, stdout also gets one JSON document
//! `{"error": {"message": ..., "kind": ..., "files": [...]}}`, `kind` being a stable code programs
//! act on and `files` (when the error names any) the files it is about.

use std::io::Write;
use std::process::ExitCode;

/// Prints a clap error in nodwyn's form and returns its exit code (0 for `--help`/`--version`).
/// `json` says whether `--json` was among the arguments.
pub(crate) fn usage(error: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = error.render().to_string();
            let rendered = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            let _ = write!(std::io::stderr(), "nodwyn: {rendered}");
            if json {
                let message = rendered.split("\n\n").next().unwrap_or_default();
                let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
                print_json_error(&message, "usage", &[]);
            }
            ExitCode::from(2)
        }
    }
}

/// Prints an error (and, with `json`, its JSON document on stdout) and returns `exit` (1, or 2
/// for the checks a hook runs). A closed stdout (`nodwyn ... | head`) is not an error.
pub(crate) fn report(error: &anyhow::Error, json: bool, exit: u8) -> ExitCode {
    if is_broken_pipe(error) {
        return ExitCode::SUCCESS;
    }
    let sentence = sentence(error);
    let _ = writeln!(std::io::stderr(), "nodwyn: {sentence}");
    let kind = kind(error);
    if json {
        print_json_error(&sentence, kind, files(error));
    }
    let coded_exit = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<Coded>())
        .and_then(|coded| coded.exit);
    ExitCode::from(match kind {
        "interrupted" => 130,
        _ => coded_exit.unwrap_or(exit),
    })
}

/// An error of the command line itself with a stable code (and, for arguments that do not
/// parse, exit 2 as a usage error).
#[derive(Debug)]
pub(crate) struct Coded {
    /// The stable code.
    pub code: &'static str,
    /// The sentence.
    pub sentence: String,
    /// The exit code, when not 1.
    pub exit: Option<u8>,
}

impl std::fmt::Display for Coded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

impl std::error::Error for Coded {}

/// An error with `code` and `sentence`, exit 1.
pub(crate) fn coded(code: &'static str, sentence: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code,
        sentence: sentence.into(),
        exit: None,
    })
}

/// An error with a code the daemon gave (`turn_running`, `worktree_dirty`, ...) and its
/// sentence, exit 1. The code is kept for the rest of the process, which ends with this error.
pub(crate) fn coded_owned(code: String, sentence: impl Into<String>) -> anyhow::Error {
    coded(Box::leak(code.into_boxed_str()), sentence)
}

/// Arguments that do not parse: `code` and `sentence`, exit 2 as a usage error.
pub(crate) fn bad_input(code: &'static str, sentence: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code,
        sentence: sentence.into(),
        exit: Some(2),
    })
}

/// The files the error is about (a conflict's files, what removing would discard), if it names
/// any.
fn files(error: &anyhow::Error) -> &[String] {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<nodwyn_core::Error>() {
            return e.files();
        }
        if let Some(e) = cause.downcast_ref::<nodwyn_core::prim::Error>() {
            return e.files();
        }
    }
    &[]
}

/// Whether the error is a write to a closed stdout, anywhere in its chain.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The stable code of an error: the library's own, else `error`.
pub(crate) fn kind(error: &anyhow::Error) -> &'static str {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<nodwyn_core::Error>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<nodwyn_core::prim::Error>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<Coded>() {
            return e.code;
        }
    }
    "error"
}

fn print_json_error(message: &str, kind: &str, files: &[String]) {
    let mut document = serde_json::json!({"error": {"message": message, "kind": kind}});
    if !files.is_empty() {
        document["error"]["files"] = files.into();
    }
    let _ = writeln!(std::io::stdout(), "{document:#}");
}

/// The error and those of its causes that it does not already say, on one line.
fn sentence(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    // One line, and nothing in it (an agent's command, a file's name) drives the terminal.
    crate::output::printable(&text.replace('\n', " "))
}
