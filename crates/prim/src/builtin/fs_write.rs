//! `fs-write`: replaces a file's content (or makes the file and its folders). The previous
//! content is kept first (see `versions`).

use nodwyn_guard::Effect;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::beneath::Beneath;
use crate::context::{Context, Fact};
use crate::paths::resolve;
use crate::primitive::{Param, ParamKind, Primitive};
use crate::versions::VersionStore;

/// `fs-write PATH CONTENT`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsWrite;

/// The arguments of `fs-write`.
#[derive(Debug, Deserialize)]
pub struct FsWriteArgs {
    /// The file.
    pub path: String,
    /// Its new content.
    pub content: String,
}

/// What `fs-write` and `fs-edit` give back.
#[derive(Debug, Serialize)]
pub struct Written {
    /// The file as shown.
    pub path: String,
    /// Bytes written.
    pub bytes: usize,
    /// Whether the file is new.
    pub created: bool,
    /// The kept version of the previous content, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_version: Option<u64>,
}

const PARAMS: &[Param] = &[
    Param::required("path", ParamKind::String, "the file to write"),
    Param::required("content", ParamKind::String, "its whole new content"),
];

impl Primitive for FsWrite {
    type Args = FsWriteArgs;
    type Output = Written;

    fn name(&self) -> &str {
        "fs-write"
    }
    fn description(&self) -> &str {
        "Writes a file's whole content, keeping the previous content as a version."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn effect(&self, args: &FsWriteArgs, ctx: &Context) -> Result<Effect, Error> {
        write_effect("fs-write", &args.path, ctx)
    }
    fn run(
        &self,
        args: FsWriteArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Written, Error> {
        refuse_redaction_marker("fs-write", &args.content)?;
        replace(ctx, "fs-write", &args.path, args.content.as_bytes())
    }
}

/// Refuses text that holds a redaction marker: what an agent read had its credentials replaced
/// by markers, and writing one back would replace the credential it stands for.
pub(crate) fn refuse_redaction_marker(primitive: &str, text: &str) -> Result<(), Error> {
    if text.contains(nodwyn_guard::scan::REDACTION_MARKER) {
        return Err(Error::declined(
            "redaction_marker",
            format!(
                "{primitive}: the text holds a redaction marker (`{}...]`), which stands for a credential the agent was not shown; writing it would destroy that credential. Edit around it instead (fs-edit of the lines next to it)",
                nodwyn_guard::scan::REDACTION_MARKER
            ),
        ));
    }
    Ok(())
}

/// The effect of a primitive that writes `path`.
pub(crate) fn write_effect(primitive: &str, path: &str, ctx: &Context) -> Result<Effect, Error> {
    let target = resolve(ctx, path)?;
    let mut effect = Effect::named(format!("{primitive} {}", target.shown(ctx)));
    effect.writes.push(target.path);
    Ok(effect)
}

/// Keeps `path`'s previous content, then writes `content` over it.
pub(crate) fn replace(
    ctx: &Context,
    primitive: &str,
    path: &str,
    content: &[u8],
) -> Result<Written, Error> {
    let target = resolve(ctx, path)?;
    let shown = target.shown(ctx);
    // The file is written exactly where the guard judged it: its folder is opened without
    // following links, and everything after happens in that open folder.
    let file = Beneath::for_session(&ctx.root, &target.path)?;
    if file.is_folder() {
        return Err(Error::declined(
            "is_a_folder",
            format!("{shown} is a folder"),
        ));
    }
    let created = !file.exists();
    let kept_version =
        VersionStore::new(&ctx.repository, &ctx.session).replace(&file, content, primitive)?;
    if let Some(version) = kept_version {
        ctx.report(Fact::VersionKept {
            path: target.path.clone(),
            version,
        })?;
    }
    Ok(Written {
        path: shown,
        bytes: content.len(),
        created,
        kept_version,
    })
}
