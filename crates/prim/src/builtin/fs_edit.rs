//! `fs-edit`: replaces one exact, unique occurrence of a text in a file. No occurrence, or more
//! than one, is an error that says which (and where the several are), and changes nothing.

use nodwyn_guard::Effect;
use serde::Deserialize;

use super::fs_write::{Written, replace, write_effect};
use crate::Error;
use crate::context::Context;
use crate::paths::resolve;
use crate::primitive::{Param, ParamKind, Primitive};

/// `fs-edit PATH OLD NEW`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsEdit;

/// The arguments of `fs-edit`.
#[derive(Debug, Deserialize)]
pub struct FsEditArgs {
    /// The file.
    pub path: String,
    /// The exact text to replace; it must occur exactly once.
    pub old: String,
    /// What replaces it.
    pub new: String,
}

const PARAMS: &[Param] = &[
    Param::required("path", ParamKind::String, "the file to edit"),
    Param::required(
        "old",
        ParamKind::String,
        "the exact text to replace, occurring once",
    ),
    Param::required("new", ParamKind::String, "the text that replaces it"),
];

impl Primitive for FsEdit {
    type Args = FsEditArgs;
    type Output = Written;

    fn name(&self) -> &str {
        "fs-edit"
    }
    fn description(&self) -> &str {
        "Replaces one exact, unique occurrence of a text in a file."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn effect(&self, args: &FsEditArgs, ctx: &Context) -> Result<Effect, Error> {
        let mut effect = write_effect("fs-edit", &args.path, ctx)?;
        effect.reads = effect.writes.clone();
        Ok(effect)
    }
    fn run(
        &self,
        args: FsEditArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Written, Error> {
        let target = resolve(ctx, &args.path)?;
        let shown = target.shown(ctx);
        if args.old.is_empty() {
            return Err(Error::declined(
                "empty_old",
                "fs-edit: `old` is empty; give the exact text to replace",
            ));
        }
        super::fs_write::refuse_redaction_marker("fs-edit", &args.new)?;
        let bytes = std::fs::read(&target.path).map_err(Error::io(&target.path))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::declined("not_utf8", format!("{shown} is not UTF-8 text")))?;
        let starts: Vec<usize> = text.match_indices(&args.old).map(|(i, _)| i).collect();
        let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
        match starts.as_slice() {
            [] => Err(Error::declined(
                "text_not_found",
                format!(
                    "fs-edit: the text to replace does not occur in {shown}; nothing was changed"
                ),
            )),
            [start] => {
                let mut edited = String::with_capacity(text.len() + args.new.len());
                edited.push_str(&text[..*start]);
                edited.push_str(&args.new);
                edited.push_str(&text[start + args.old.len()..]);
                replace(ctx, "fs-edit", &args.path, edited.as_bytes())
            }
            several => Err(Error::declined(
                "text_not_unique",
                format!(
                    "fs-edit: the text to replace occurs {} times in {shown} (lines {}); give more of the surrounding text so it occurs once; nothing was changed",
                    several.len(),
                    several
                        .iter()
                        .map(|s| line_of(*s).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
}
