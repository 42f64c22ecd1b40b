//! `fs-read`: the text of a file. A file outside the session's folder may be read and is said to
//! be outside; a credential file goes to the guard, which refuses it.

use std::io::Read;

use nodwyn_guard::Effect;
use nodwyn_guard::scan::looks_binary;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::context::Context;
use crate::paths::resolve;
use crate::primitive::{Param, ParamKind, Primitive};

/// `fs-read PATH`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsRead;

/// The arguments of `fs-read`.
#[derive(Debug, Deserialize)]
pub struct FsReadArgs {
    /// The file.
    pub path: String,
}

/// What `fs-read` gives back.
#[derive(Debug, Serialize)]
pub struct FsReadOutput {
    /// The file as shown (relative to the session's folder when inside it).
    pub path: String,
    /// Its text, up to the read limit.
    pub content: String,
    /// Whether the text stops at the limit.
    pub truncated: bool,
    /// Its size in bytes.
    pub size: u64,
    /// Whether it lies outside the session's folder.
    pub outside: bool,
}

const PARAMS: &[Param] = &[Param::required(
    "path",
    ParamKind::String,
    "the file, relative to the session's folder or absolute",
)];

impl Primitive for FsRead {
    type Args = FsReadArgs;
    type Output = FsReadOutput;

    fn name(&self) -> &str {
        "fs-read"
    }
    fn description(&self) -> &str {
        "Reads a text file."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn read_only(&self) -> bool {
        true
    }
    fn effect(&self, args: &FsReadArgs, ctx: &Context) -> Result<Effect, Error> {
        let target = resolve(ctx, &args.path)?;
        let mut effect = Effect::named(target.read_action("fs-read", ctx));
        effect.reads.push(target.path);
        Ok(effect)
    }
    fn run(
        &self,
        args: FsReadArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<FsReadOutput, Error> {
        let target = resolve(ctx, &args.path)?;
        let shown = target.shown(ctx);
        let meta = std::fs::metadata(&target.path).map_err(Error::io(&target.path))?;
        if !meta.is_file() {
            return Err(Error::declined(
                "not_a_file",
                format!("{shown} is not a file"),
            ));
        }
        let limit = ctx.limits.read;
        let mut bytes = Vec::new();
        std::fs::File::open(&target.path)
            .and_then(|file| file.take(limit as u64 + 1).read_to_end(&mut bytes))
            .map_err(Error::io(&target.path))?;
        if looks_binary(&bytes) {
            return Err(Error::declined(
                "binary_file",
                format!("{shown} is a binary file; fs-read gives text only"),
            ));
        }
        let truncated = bytes.len() > limit;
        let kept = &bytes[..bytes.len().min(limit)];
        Ok(FsReadOutput {
            path: shown,
            content: String::from_utf8_lossy(kept).into_owned(),
            truncated,
            size: meta.len(),
            outside: !target.inside,
        })
    }
}
