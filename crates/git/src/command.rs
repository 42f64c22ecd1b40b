//! The one way nodwyn runs the `git` program.
//!
//! Every call goes through [`GitCommand`]: a fixed argument list (never a shell string), a
//! working directory, an environment scrubbed of the variables that would point git at another
//! repository, no terminal prompts, and stdin closed. In a linked worktree it runs pinned to the
//! worktree's own git directory, checked first (see [`crate::gitdir`]); and no run starts the
//! fsmonitor program a configuration names. Each run is traced with its arguments and its
//! duration; failures carry the exit code and git's own stderr for the person to read, but
//! nodwyn never decides anything by parsing that (localized) text.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::Error;

/// Variables that redirect git to another repository, index or object store. A nodwyn command
/// started from a git hook, or from a shell where a person exported one of these, would
/// otherwise act on the wrong repository.
const SCRUBBED_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_QUARANTINE_PATH",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
];

/// How a fetch or push reaches a remote: the ssh program to use, if any, how long it may take,
/// and the flag that stops it early.
#[derive(Debug, Clone)]
pub struct Network<'a> {
    /// `GIT_SSH_COMMAND` for the call, when given (a fetch or push that must not fall back to an
    /// interactive ssh).
    pub ssh_command: Option<&'a str>,
    /// When the call is stopped (a server that stalls must not hold a landing forever).
    pub deadline: Duration,
    /// Raised by the person's Ctrl-C: the call is stopped at once.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Network<'_> {
    /// The deadline a fetch or push gets unless the person set another.
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
}

impl Default for Network<'_> {
    fn default() -> Self {
        Self {
            ssh_command: None,
            deadline: Self::DEFAULT_DEADLINE,
            cancel: None,
        }
    }
}

/// The empty tree. Read as the attribute source (`--attr-source`), it makes git ignore every
/// `.gitattributes` in the checkout; as a commit's parent, it stands for "nothing before".
pub const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// A `git` invocation under construction. See the module documentation for what it guarantees.
#[derive(Debug)]
pub struct GitCommand {
    dir: PathBuf,
    /// Options for git itself, given before the subcommand.
    global: Vec<OsString>,
    args: Vec<OsString>,
    removed: Vec<OsString>,
    set: Vec<(OsString, OsString)>,
    input: Option<Vec<u8>>,
    group: nodwyn_proc::Group,
    deadline: Option<Duration>,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Why git must not run here at all: the worktree's `.git` cannot be trusted.
    refused: Option<Error>,
}

/// Settings given to every run: no fsmonitor program (a hook git starts on any status, diff or
/// add), and no fetch of missing objects behind a read's back.
const ALWAYS: &[&str] = &["-c", "core.fsmonitor=false"];

/// Settings given to every read besides [`ALWAYS`]: no signature checks (which run the
/// configuration's gpg program), no recursion into submodules (each with a configuration of its
/// own). (A read also runs without attributes and hooks: [`GitCommand::read_only`].)
const READS: &[&str] = &[
    "-c",
    "log.showSignature=false",
    "-c",
    "submodule.recurse=false",
];

impl GitCommand {
    /// A `git` run in `dir`, with the scrubbed environment.
    pub fn new(dir: &Path) -> Self {
        let mut set: Vec<(OsString, OsString)> = vec![
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            ("GIT_NO_LAZY_FETCH".into(), "1".into()),
        ];
        let mut refused = None;
        match crate::gitdir::of(dir) {
            Ok(crate::gitdir::GitDir::Plain) => {}
            Ok(crate::gitdir::GitDir::Linked { top, git_dir }) => {
                set.push(("GIT_DIR".into(), git_dir.into()));
                set.push(("GIT_WORK_TREE".into(), top.into()));
            }
            Err(e) => refused = Some(e),
        }
        Self {
            dir: dir.to_path_buf(),
            global: ALWAYS.iter().map(OsString::from).collect(),
            args: Vec::new(),
            removed: SCRUBBED_VARIABLES.iter().map(OsString::from).collect(),
            set,
            input: None,
            group: nodwyn_proc::Group::Shared,
            deadline: None,
            cancel: None,
            refused,
        }
    }

    /// Marks the call as a read: git takes no optional lock (such as the index refresh of
    /// `git status`), so a read never collides with an agent's own git in the same worktree; and
    /// it reads [`Self::without_attributes`], so repository content cannot make a read run
    /// anything.
    pub fn read_only(mut self) -> Self {
        if !self.global.iter().any(|o| *o == *READS[1]) {
            self.global.extend(READS.iter().map(OsString::from));
        }
        self.env("GIT_OPTIONAL_LOCKS", "0")
            .without_attributes()
            .without_hooks()
    }

    /// Makes git read no `.gitattributes` (`--attr-source` on the empty tree). Attributes are
    /// repository content, which an agent writes: they choose which of the drivers defined in
    /// git's configuration (a clean filter such as LFS's, a diff text conversion, a merge driver)
    /// run on which file. Without them git hashes, compares and merges bytes as they are.
    /// The attributes file the configuration names is left out too: it may be a file of the
    /// checkout (an agent's to write) as well.
    pub fn without_attributes(mut self) -> Self {
        let option = format!("--attr-source={EMPTY_TREE}");
        if !self.global.iter().any(|o| *o == *option) {
            self.global.push(option.into());
        }
        self.set_once("core.attributesFile=/dev/null")
    }

    /// Runs none of the repository's hooks: the hooks folder the configuration names may be a
    /// folder of the checkout (husky's `.husky`), whose scripts an agent rewrites, and a step that
    /// writes an index of nodwyn's own (a snapshot) would start `post-index-change`.
    pub fn without_hooks(self) -> Self {
        self.set_once("core.hooksPath=/dev/null")
    }

    /// `-c SETTING`, once.
    fn set_once(mut self, setting: &str) -> Self {
        let present = self
            .global
            .windows(2)
            .any(|pair| pair[0] == *"-c" && pair[1] == *setting);
        if !present {
            self.global.push("-c".into());
            self.global.push(setting.into());
        }
        self
    }

    /// Turns off every prompt git or a program it starts could show: no askpass helper for ssh,
    /// no terminal for gpg's pinentry. A step that would need a passphrase the person's agent
    /// does not hold fails at once instead of waiting for an answer nobody can give.
    pub fn without_prompts(mut self) -> Self {
        self.removed.push("GPG_TTY".into());
        self.env("SSH_ASKPASS_REQUIRE", "never")
    }

    /// Starts git in a process group of its own, so the Ctrl-C a person types at the terminal
    /// (which goes to the whole foreground group) does not stop it half way. For the short steps
    /// that must run to their end once begun (moving a worktree's files and index); the caller
    /// decides what an interrupt means before and after.
    pub fn shielded(mut self) -> Self {
        self.group = nodwyn_proc::Group::Own;
        self
    }

    /// Kills git (and, when it runs [`shielded`](Self::shielded), everything in its group) if
    /// it has not finished after `deadline`: a fetch or push whose server stalls must not hold a
    /// landing forever. The failure says how long it was given.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// A call that reaches a remote: its ssh program, its deadline and its cancel flag (see
    /// [`Network`]), in a process group of its own, so at the deadline or on the flag the whole
    /// of it (the ssh it started included) is ended.
    pub fn network(mut self, network: Network<'_>) -> Self {
        self.cancel = network.cancel.clone();
        let command = self.shielded().deadline(network.deadline);
        match network.ssh_command {
            Some(ssh) => command.env("GIT_SSH_COMMAND", ssh),
            None => command,
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// Appends several arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Sets one environment variable for this call.
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.set
            .push((name.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// Gives git `bytes` on its standard input (a list of paths for `--stdin`), instead of none.
    pub fn input(mut self, bytes: Vec<u8>) -> Self {
        self.input = Some(bytes);
        self
    }

    /// Runs git and returns its output whatever the exit status; only a failure to start git at
    /// all, or its deadline passing, is an error.
    pub fn output(mut self) -> Result<Output, Error> {
        if let Some(refused) = self.refused.take() {
            return Err(refused);
        }
        let argv = std::iter::once(OsString::from("git"))
            .chain(self.global.iter().cloned())
            .chain(self.args.iter().cloned())
            .collect();
        let spec = nodwyn_proc::Spec {
            stdin: self.input.clone(),
            group: self.group,
            deadline: self.deadline,
            cancel: self.cancel.clone(),
            ..nodwyn_proc::Spec::new(
                argv,
                self.dir.clone(),
                nodwyn_proc::Environment::Inherited {
                    removed: self.removed.clone(),
                    set: self.set.clone(),
                },
            )
        };
        let started = Instant::now();
        let ran = nodwyn_proc::run(&spec).map_err(|e| Error::Spawn {
            dir: self.dir.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        tracing::info!(
            dir = %self.dir.display(),
            args = %self.display_args(),
            status = ?ran.status,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "git"
        );
        if ran.cancelled {
            return Err(Error::Failed {
                dir: self.dir.clone(),
                args: self.display_args(),
                code: None,
                stderr: "git was stopped (interrupted)".to_owned(),
            });
        }
        if ran.timed_out {
            return Err(Error::Failed {
                dir: self.dir.clone(),
                args: self.display_args(),
                code: None,
                stderr: format!(
                    "git did not finish within {} s and was stopped",
                    self.deadline.unwrap_or_default().as_secs()
                ),
            });
        }
        Ok(Output {
            status: ran.exit,
            stdout: ran.stdout,
            stderr: ran.stderr,
        })
    }

    /// Runs git and returns its output, with the [`Error::Failed`] a non-zero exit makes, for a
    /// caller that reads stdout even when git fails (`git push --porcelain`).
    pub fn output_checked(self) -> Result<(Output, Option<Error>), Error> {
        let dir = self.dir.clone();
        let args = self.display_args();
        let output = self.output()?;
        if output.status.success() {
            return Ok((output, None));
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        tracing::debug!(%stderr, "git failed");
        let failure = Error::Failed {
            dir,
            args,
            code: output.status.code(),
            stderr: telling_line(&stderr),
        };
        Ok((output, Some(failure)))
    }

    /// Runs git and returns its stdout, or [`Error::Failed`] when it exits non-zero.
    pub fn run(self) -> Result<Vec<u8>, Error> {
        match self.output_checked()? {
            (output, None) => Ok(output.stdout),
            (_, Some(failure)) => Err(failure),
        }
    }

    /// Runs git and returns its stdout as text with the trailing newline removed.
    pub fn run_text(self) -> Result<String, Error> {
        let stdout = self.run()?;
        Ok(String::from_utf8_lossy(&stdout).trim_end().to_owned())
    }

    fn display_args(&self) -> String {
        self.global
            .iter()
            .chain(&self.args)
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The one line of git's stderr that says what went wrong, for a one-sentence message (the whole
/// text is traced): the first `fatal:` line (git's most specific, before any advice such as
/// "Please make sure you have the correct access rights"), else the last `error:` line, else the
/// last line.
fn telling_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find(|l| l.starts_with("fatal:"))
        .or_else(|| lines.iter().rfind(|l| l.starts_with("error:")))
        .or(lines.last())
        .copied()
        .unwrap_or("(git printed nothing)")
        .to_owned()
}

/// Splits `-z` output into its NUL-terminated records, as bytes (file names need not be UTF-8).
pub(crate) fn nul_byte_records(stdout: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    stdout.split(|b| *b == 0).filter(|r| !r.is_empty())
}

/// Splits `-z` output into its NUL-terminated records, as text.
pub(crate) fn nul_records(stdout: &[u8]) -> impl Iterator<Item = String> + '_ {
    stdout
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8_lossy(r).into_owned())
}

#[cfg(test)]
mod tests {
    use super::telling_line;

    #[test]
    fn the_telling_line_is_the_first_fatal_one() {
        let unreachable = "fatal: '/x/nowhere.git' does not appear to be a git repository\n\
                           fatal: Could not read from remote repository.\n\n\
                           Please make sure you have the correct access rights\n\
                           and the repository exists.\n";
        assert_eq!(
            telling_line(unreachable),
            "fatal: '/x/nowhere.git' does not appear to be a git repository"
        );
        assert_eq!(
            telling_line("hint: a\nerror: first\nerror: second\nhint: b\n"),
            "error: second"
        );
        assert_eq!(telling_line("just this\n"), "just this");
        assert_eq!(telling_line(""), "(git printed nothing)");
    }
}
