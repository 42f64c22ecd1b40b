//! `fs-list`: the entries of a folder, sorted by name.

use nodwyn_guard::Effect;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::context::Context;
use crate::paths::resolve;
use crate::primitive::{Param, ParamKind, Primitive};

/// `fs-list [PATH]`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsList;

/// The arguments of `fs-list`.
#[derive(Debug, Deserialize)]
pub struct FsListArgs {
    /// The folder; the session's folder when left out.
    #[serde(default)]
    pub path: Option<String>,
}

/// One entry of a folder.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// `file`, `folder` or `link`.
    pub kind: &'static str,
    /// Its size in bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// What `fs-list` gives back.
#[derive(Debug, Serialize)]
pub struct Listing {
    /// The folder as shown.
    pub path: String,
    /// Its entries, the first [`Limits::list`](crate::Limits) by name.
    pub entries: Vec<Entry>,
    /// How many entries there are past those shown.
    #[serde(skip_serializing_if = "is_zero")]
    pub left_out: u64,
    /// Whether it lies outside the session's folder.
    pub outside: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

const PARAMS: &[Param] = &[Param::optional(
    "path",
    ParamKind::String,
    "the folder (the session's folder when left out)",
)];

impl Primitive for FsList {
    type Args = FsListArgs;
    type Output = Listing;

    fn name(&self) -> &str {
        "fs-list"
    }
    fn description(&self) -> &str {
        "Lists a folder's entries."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn read_only(&self) -> bool {
        true
    }
    fn effect(&self, args: &FsListArgs, ctx: &Context) -> Result<Effect, Error> {
        let target = resolve(ctx, args.path.as_deref().unwrap_or("."))?;
        let mut effect = Effect::named(target.read_action("fs-list", ctx));
        effect.reads.push(target.path);
        Ok(effect)
    }
    fn run(
        &self,
        args: FsListArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Listing, Error> {
        let target = resolve(ctx, args.path.as_deref().unwrap_or("."))?;
        let read = std::fs::read_dir(&target.path).map_err(Error::io(&target.path))?;
        // The first `cap` names in order, kept in a bounded heap while the folder is read: a
        // folder of a million entries costs time in proportion, and memory for `cap`.
        let cap = ctx.limits.list;
        let mut first = std::collections::BinaryHeap::new();
        let mut total = 0u64;
        for entry in read.filter_map(Result::ok) {
            total += 1;
            let name = nodwyn_git::quote::quote(entry.file_name().as_encoded_bytes());
            if first.len() < cap {
                first.push((name, entry.path()));
            } else if first.peek().is_some_and(|(last, _)| name < *last) {
                first.pop();
                first.push((name, entry.path()));
            }
        }
        let left_out = total - first.len() as u64;
        let mut entries: Vec<Entry> = first
            .into_iter()
            .map(|(name, path)| {
                let meta = path.symlink_metadata().ok();
                let kind = match &meta {
                    Some(m) if m.file_type().is_symlink() => "link",
                    Some(m) if m.is_dir() => "folder",
                    _ => "file",
                };
                Entry {
                    name,
                    kind,
                    size: meta.filter(|m| m.is_file()).map(|m| m.len()),
                }
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Listing {
            path: target.shown(ctx),
            entries,
            left_out,
            outside: !target.inside,
        })
    }
}
