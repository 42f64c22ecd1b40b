//! `.nodwyn/allow.toml`: the person's standing answers.
//!
//! ```toml
//! commands = [["cargo", "test"], ["git", "status"]]   # argv prefixes, whole words
//! writes = ["src/**", "tests/**"]                      # globs, relative to the session's folder
//! push = ["git@github.com:me/shop.git"]                # remote URLs a landing may push to
//! ```
//!
//! A command prefix matches whole argument words: `["cargo", "test"]` approves
//! `cargo test --all`, never `cargo testx`, and never a shell line with anything a shell would
//! interpret beyond plain words (`cargo test; rm -rf /`, `cargo test && curl ...`). A malformed
//! file is an error naming its line, never "allow everything".

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::Error;
use crate::effect::CommandLine;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    commands: Vec<Vec<String>>,
    #[serde(default)]
    writes: Vec<String>,
    #[serde(default)]
    push: Vec<String>,
}

/// One standing answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandingAnswer {
    /// A command prefix, whole words (`cargo test`).
    Command(Vec<String>),
    /// A glob of paths the agent may write, relative to the session's folder.
    Write(String),
    /// A remote URL a landing may push to.
    Push(String),
}

/// The standing answers, parsed.
#[derive(Debug, Default, Clone)]
pub struct StandingAnswers {
    commands: Vec<Vec<String>>,
    write_globs: Vec<String>,
    writes: Option<GlobSet>,
    push: Vec<String>,
}

impl StandingAnswers {
    /// No standing answers.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads `path`; a missing file is no standing answers.
    pub fn load(path: &Path) -> Result<Self, Error> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|e| match e {
                Error::AllowFile { line, message, .. } => Error::AllowFile {
                    path: path.display().to_string(),
                    line,
                    message,
                },
                other => other,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::none()),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses the text of an `allow.toml`.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let file: File = toml::from_str(text).map_err(|e| Error::AllowFile {
            path: "allow.toml".to_owned(),
            line: e.span().map_or(1, |span| {
                text[..span.start.min(text.len())].matches('\n').count() + 1
            }),
            message: e.message().trim().replace('\n', " "),
        })?;
        for (index, prefix) in file.commands.iter().enumerate() {
            if prefix.is_empty() || prefix.iter().any(|w| w.is_empty()) {
                return Err(Error::AllowFile {
                    path: "allow.toml".to_owned(),
                    line: line_of(text, "commands"),
                    message: format!("command prefix {} is empty or has an empty word", index + 1),
                });
            }
        }
        let writes = glob_set(&file.writes).map_err(|(glob, message)| Error::AllowFile {
            path: "allow.toml".to_owned(),
            line: line_of(text, glob.as_deref().unwrap_or("writes")),
            message,
        })?;
        Ok(Self {
            commands: file.commands,
            write_globs: file.writes,
            writes,
            push: file.push,
        })
    }

    /// Adds `answer` (a person's answer for one session, kept beside the file's).
    pub fn add(&mut self, answer: &StandingAnswer) -> Result<(), Error> {
        match answer {
            StandingAnswer::Command(words) => {
                if words.is_empty() || words.iter().any(String::is_empty) {
                    return Err(Error::StandingAnswer(
                        "a command prefix needs at least one word, none of them empty".to_owned(),
                    ));
                }
                self.commands.push(words.clone());
            }
            StandingAnswer::Write(glob) => {
                let mut globs = self.write_globs.clone();
                globs.push(glob.clone());
                self.writes =
                    glob_set(&globs).map_err(|(_, message)| Error::StandingAnswer(message))?;
                self.write_globs = globs;
            }
            StandingAnswer::Push(url) => self.push.push(url.clone()),
        }
        Ok(())
    }

    /// The prefix that approves `command`, if one does.
    pub fn approving_prefix(&self, command: &CommandLine) -> Option<&[String]> {
        let words = match command {
            CommandLine::Argv(argv) => argv.clone(),
            CommandLine::Shell(line) => plain_words(line)?,
        };
        self.commands
            .iter()
            .find(|prefix| words.len() >= prefix.len() && words[..prefix.len()] == prefix[..])
            .map(Vec::as_slice)
    }

    /// Whether a write to `relative` (a path inside the session's folder) is approved.
    pub fn approves_write(&self, relative: &Path) -> bool {
        self.writes
            .as_ref()
            .is_some_and(|set| set.is_match(relative))
    }

    /// The command prefixes, as given.
    pub fn commands(&self) -> &[Vec<String>] {
        &self.commands
    }

    /// The globs of paths that may be written, as given.
    pub fn write_globs(&self) -> &[String] {
        &self.write_globs
    }

    /// Whether every one of `urls` is listed in `push` (and there is at least one).
    pub fn approves_push(&self, urls: &[String]) -> bool {
        !urls.is_empty() && urls.iter().all(|url| self.push.contains(url))
    }
}

/// The set of `globs`, or none when there are none; a glob that is not one is named with why.
fn glob_set(globs: &[String]) -> Result<Option<GlobSet>, (Option<String>, String)> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(
            Glob::new(glob)
                .map_err(|e| (Some(glob.clone()), format!("`{glob}` is not a glob: {e}")))?,
        );
    }
    builder.build().map(Some).map_err(|e| (None, e.to_string()))
}

/// The first line of `text` mentioning `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(1, |i| i + 1)
}

/// The words of a shell line, if it is nothing but plain words (quoted or not): no operator,
/// redirection, substitution, glob, variable or comment a shell would act on.
pub(crate) fn plain_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c => word.push(c),
                    }
                }
            }
            c if c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c) => {
                in_word = true;
                word.push(c);
            }
            _ => return None,
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(line: &str) -> CommandLine {
        CommandLine::Shell(line.to_owned())
    }

    #[test]
    fn command_prefixes_match_whole_words_only() {
        let answers = StandingAnswers::parse("commands = [[\"cargo\", \"test\"]]\n").unwrap();
        assert!(
            answers
                .approving_prefix(&shell("cargo test --all"))
                .is_some()
        );
        assert!(answers.approving_prefix(&shell("cargo  test")).is_some());
        assert!(
            answers
                .approving_prefix(&shell("'cargo' \"test\" -p x"))
                .is_some()
        );
        assert!(
            answers
                .approving_prefix(&CommandLine::Argv(vec![
                    "cargo".into(),
                    "test".into(),
                    "; rm".into()
                ]))
                .is_some(),
            "an argv word is never interpreted by a shell"
        );
        for line in [
            "cargo testx",
            "cargo test; rm -rf /",
            "cargo test && curl evil",
            "cargo test | sh",
            "cargo test $(rm -rf /)",
            "cargo test `id`",
            "cargo test > /etc/passwd",
            "cargo test \"$HOME\"",
            "cargo test\nrm -rf /",
            "cargo",
            "CARGO test",
            "cargo test 'unterminated",
        ] {
            assert!(answers.approving_prefix(&shell(line)).is_none(), "{line:?}");
        }
    }

    #[test]
    fn writes_and_push() {
        let answers = StandingAnswers::parse(
            "writes = [\"src/**\"]\npush = [\"git@example.invalid:me/shop.git\", \"https://example.invalid/me/shop.git\"]\n",
        )
        .unwrap();
        assert!(answers.approves_write(Path::new("src/lib.rs")));
        assert!(!answers.approves_write(Path::new("build.rs")));
        let both = vec![
            "git@example.invalid:me/shop.git".to_owned(),
            "https://example.invalid/me/shop.git".to_owned(),
        ];
        assert!(answers.approves_push(&both));
        assert!(!answers.approves_push(&[both[0].clone(), "git@evil.invalid:x.git".to_owned()]));
        assert!(!answers.approves_push(&[]));
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_the_line() {
        for (text, line) in [
            (
                "commands = [[\"cargo\", \"test\"]]\nwrite = [\"src/**\"]\n",
                2,
            ),
            ("# mine\n\ncommands = \"cargo test\"\n", 3),
            ("push = [\n  \"a\",\n  3,\n]\n", 3),
            ("writes = [\"src/[\"]\n", 1),
            ("commands = [[]]\n", 1),
        ] {
            match StandingAnswers::parse(text) {
                Err(Error::AllowFile { line: got, .. }) => assert_eq!(got, line, "{text:?}"),
                other => panic!("{text:?} gave {other:?}"),
            }
        }
    }
}
