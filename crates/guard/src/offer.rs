//! What a person may answer "always" to: the narrowest standing answer that would settle one
//! ordinary question for the rest of a session.
//!
//! A command is offered as its program and subcommand (`cargo test`, with any further
//! arguments), and only when that prefix cannot run just anything: never for a shell, an
//! interpreter (`python3 -c ...`), a program that runs the program it is given (`env`, `xargs`,
//! `timeout`, `sudo`), a network client, a program named by a path (a file in the worktree the
//! agent can rewrite), nor a subcommand that runs what follows it (`npm exec`, `uv run`). A
//! write is offered as the folder the file is in (`src/**`), or the file alone at the top of
//! the session's folder. Nothing is offered for a security confirm, an action that cannot be
//! undone, or one that sends anything off the machine: those are asked each time.

use std::path::Path;

use crate::effect::CommandLine;
use crate::standing::{StandingAnswer, plain_words};

/// A standing answer a person may give instead of a single allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// The answer.
    pub answer: StandingAnswer,
    /// What it allows, in words a person reads before choosing it.
    pub allows: String,
}

/// Programs a prefix of which allows anything: shells, interpreters, programs that run
/// another program or a command given in their arguments, editors and pagers with a shell
/// escape, and network clients.
const RUNS_ANYTHING: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "toybox",
    "env",
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "time",
    "exec",
    "eval",
    "command",
    "builtin",
    "watch",
    "strace",
    "ltrace",
    "gdb",
    "lldb",
    "valgrind",
    "chroot",
    "unshare",
    "nsenter",
    "setsid",
    "flock",
    "stdbuf",
    "unbuffer",
    "script",
    "parallel",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "find",
    "osascript",
    "pwsh",
    "powershell",
    "tclsh",
    "wish",
    "expect",
    "rscript",
    "r",
    "julia",
    "deno",
    "bun",
    "bunx",
    "npx",
    "pnpx",
    "uvx",
    "pipx",
    "docker",
    "podman",
    "kubectl",
    "vi",
    "vim",
    "nvim",
    "emacs",
    "less",
    "more",
    "man",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ftp",
];

/// Families of interpreters, named with a version (`python3.12`, `perl5`, `node22`).
const INTERPRETER_FAMILIES: &[&str] = &[
    "python", "pypy", "perl", "ruby", "irb", "php", "lua", "node", "java", "jshell", "ghci",
    "runghc", "ocaml", "guile", "racket", "sbcl", "clisp", "scheme", "erl", "elixir", "iex",
];

/// Subcommands that run whatever follows them (`npm exec`, `uv run`, `poetry run`).
const RUNS_WHAT_FOLLOWS: &[&str] = &["exec", "x", "dlx", "run", "eval", "shell", "sh", "-c"];

/// The command prefix that may be offered for `command`, with what it allows.
pub(crate) fn for_command(command: &CommandLine) -> Option<Offer> {
    let words = match command {
        CommandLine::Argv(argv) => argv.clone(),
        CommandLine::Shell(line) => plain_words(line)?,
    };
    let program = words.first()?;
    let subcommand = words.get(1)?;
    let named = program.to_ascii_lowercase();
    let runs_anything = program.contains('/')
        || program.contains('=')
        || RUNS_ANYTHING.contains(&named.as_str())
        || INTERPRETER_FAMILIES
            .iter()
            .any(|family| named.starts_with(family));
    let is_subcommand = subcommand
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase())
        && subcommand
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if runs_anything || !is_subcommand || RUNS_WHAT_FOLLOWS.contains(&subcommand.as_str()) {
        return None;
    }
    Some(Offer {
        allows: format!(
            "`{program} {subcommand}` with any arguments, for the rest of this session"
        ),
        answer: StandingAnswer::Command(vec![program.clone(), subcommand.clone()]),
    })
}

/// The write glob that may be offered for `relative` (a path inside the session's folder).
pub(crate) fn for_write(relative: &Path) -> Option<Offer> {
    let text = relative.to_str()?;
    if text.is_empty() || relative.is_absolute() {
        return None;
    }
    Some(match relative.parent().and_then(Path::to_str) {
        Some(folder) if !folder.is_empty() => Offer {
            allows: format!("writes under `{folder}/`, for the rest of this session"),
            answer: StandingAnswer::Write(format!("{}/**", globset::escape(folder))),
        },
        _ => Offer {
            allows: format!("writes to `{text}`, for the rest of this session"),
            answer: StandingAnswer::Write(globset::escape(text)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(line: &str) -> Option<Vec<String>> {
        match for_command(&CommandLine::Shell(line.to_owned()))?.answer {
            StandingAnswer::Command(words) => Some(words),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_command_is_offered_as_program_and_subcommand() {
        assert_eq!(
            offered("cargo test --all"),
            Some(vec!["cargo".to_owned(), "test".to_owned()])
        );
        assert_eq!(
            offered("git status"),
            Some(vec!["git".to_owned(), "status".to_owned()])
        );
        let offer = for_command(&CommandLine::Shell("cargo test".to_owned())).unwrap();
        assert_eq!(
            offer.allows,
            "`cargo test` with any arguments, for the rest of this session"
        );
    }

    #[test]
    fn nothing_is_offered_for_what_could_run_anything() {
        for line in [
            "python3 -c print(1)",
            "python3.12 script.py",
            "bash -c ls",
            "sh build.sh",
            "env FOO=1 cargo test",
            "xargs rm",
            "timeout 5 cargo test",
            "sudo apt install x",
            "node index.js",
            "npm exec cowsay",
            "uv run pytest",
            "poetry run anything",
            "./build.sh test",
            "scripts/test all",
            "curl example.invalid",
            "find . -delete",
            "ls",
            "rg -n foo",
            "cargo --version",
            "cargo test; rm -rf /",
            "cargo $(id)",
            "FOO=1 cargo test",
        ] {
            assert_eq!(offered(line), None, "{line:?}");
        }
    }

    #[test]
    fn a_write_is_offered_as_its_folder_or_the_file_at_the_top() {
        let offer = for_write(Path::new("src/lib.rs")).unwrap();
        assert_eq!(offer.answer, StandingAnswer::Write("src/**".to_owned()));
        assert_eq!(
            offer.allows,
            "writes under `src/`, for the rest of this session"
        );
        let offer = for_write(Path::new("README.md")).unwrap();
        assert_eq!(offer.answer, StandingAnswer::Write("README.md".to_owned()));
        let offer = for_write(Path::new("we[i]rd/*.rs")).unwrap();
        assert_eq!(
            offer.answer,
            StandingAnswer::Write("we[[]i[]]rd/**".to_owned())
        );
    }
}
