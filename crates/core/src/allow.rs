//! `nodwyn allow`: a person adds a standing answer to the repository's `.nodwyn/allow.toml`
//! without editing TOML by hand. The file keeps its comments and layout (it is edited, not
//! rewritten), the result must parse as the guard reads it before anything is written, and the
//! write is atomic. The file counts only while git does not track it, so nodwyn also lists it in
//! the repository's `info/exclude`, keeping it out of `git status` and out of an `add -A`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml_edit::{Array, DocumentMut, Item, Value};

use crate::Error;
use crate::host::allow_file;

pub use nodwyn_guard::StandingAnswer;

/// What `allow` did.
#[derive(Debug, Clone, Serialize)]
pub struct Allowed {
    /// The file.
    pub path: PathBuf,
    /// Whether the answer was new (`false`: the file had it already).
    pub added: bool,
    /// Whether `info/exclude` had to be told about the file.
    pub excluded_now: bool,
}

/// The pattern `info/exclude` gets for the file.
const EXCLUDED: &str = "/.nodwyn/allow.toml";

/// Adds `answer` to the standing answers of `repository` (its main checkout).
pub fn allow(repository: &Path, answer: &StandingAnswer) -> Result<Allowed, Error> {
    let path = allow_file(repository);
    let folder = path.parent().unwrap_or(repository);
    refuse_link(folder)?;
    refuse_link(&path)?;
    if nodwyn_git::untracked::is_tracked(repository, ".nodwyn/allow.toml")? {
        return Err(Error::declined(
            "allow_toml_committed",
            format!(
                "{} is committed to the repository, where nodwyn does not trust it; untrack it first (`git rm --cached .nodwyn/allow.toml`)",
                path.display()
            ),
        ));
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&path)(e)),
    };
    nodwyn_guard::StandingAnswers::parse(&text).map_err(|e| {
        Error::declined(
            "allow_toml_unreadable",
            format!(
                "{} cannot be read ({e}); fix it by hand first",
                path.display()
            ),
        )
    })?;
    let mut document: DocumentMut = text.parse().map_err(|e| {
        Error::declined(
            "allow_toml_unreadable",
            format!("{} cannot be read: {e}", path.display()),
        )
    })?;
    let (key, value) = match answer {
        StandingAnswer::Command(words) => {
            if words.is_empty() || words.iter().any(|w| w.is_empty()) {
                return Err(Error::declined(
                    "empty_command_prefix",
                    "a command prefix needs at least one word, none of them empty".to_owned(),
                ));
            }
            let mut prefix = Array::new();
            for word in words {
                prefix.push(word.as_str());
            }
            ("commands", Value::Array(prefix))
        }
        StandingAnswer::Write(glob) => ("writes", Value::from(glob.as_str())),
        StandingAnswer::Push(url) => ("push", Value::from(url.as_str())),
    };
    let list = document
        .entry(key)
        .or_insert_with(|| Item::Value(Value::Array(Array::new())));
    let Some(list) = list.as_array_mut() else {
        return Err(Error::declined(
            "allow_toml_not_a_list",
            format!(
                "`{key}` in {} is not a list; fix it by hand first",
                path.display()
            ),
        ));
    };
    let shown = value.to_string();
    let added = !list.iter().any(|v| v.to_string().trim() == shown.trim());
    if added {
        list.push_formatted(value.decorated(" ", ""));
    }
    let new_text = document.to_string();
    nodwyn_guard::StandingAnswers::parse(&new_text).map_err(|e| {
        Error::declined(
            "bad_standing_answer",
            format!("that answer is not valid: {e}; nothing was written"),
        )
    })?;
    if added {
        std::fs::create_dir_all(folder).map_err(Error::io(folder))?;
        write_atomically(&path, &new_text)?;
    }
    let excluded_now = exclude(repository)?;
    Ok(Allowed {
        path,
        added,
        excluded_now,
    })
}

fn refuse_link(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::declined(
            "allow_toml_link",
            format!(
                "{} is a link; nodwyn writes standing answers only into a plain file of the main checkout",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

fn write_atomically(path: &Path, text: &str) -> Result<(), Error> {
    Ok(nodwyn_prim::versions::write_file(path, text.as_bytes())?)
}

/// Lists the file in the repository's `info/exclude` unless it is there; says whether it had to.
fn exclude(repository: &Path) -> Result<bool, Error> {
    crate::exclude::exclude_from_git(
        repository,
        EXCLUDED,
        "the person's standing answers, never committed",
    )
}
