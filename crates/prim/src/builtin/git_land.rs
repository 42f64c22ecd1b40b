//! `git-land`: the agent's way to land its worktree session (see `land`). It is irreversible, so
//! the guard asks; its push goes to the guard as egress to every push URL of the remote.

use nodwyn_guard::{Effect, Egress, EgressKind};
use serde::Deserialize;

use crate::Error;
use crate::context::Context;
use crate::land::{Landed, Strategy, land, target};
use crate::primitive::{Param, ParamKind, Primitive};

/// `git-land MESSAGE [STRATEGY]`.
#[derive(Debug, Clone, Copy, Default)]
pub struct GitLand;

/// The arguments of `git-land`.
#[derive(Debug, Deserialize)]
pub struct GitLandArgs {
    /// The commit message.
    pub message: String,
    /// `ff-only` (the default), `squash` or `no-ff`.
    #[serde(default)]
    pub strategy: Option<String>,
    /// New files no primitive wrote that land all the same (made by a command, and wanted), and
    /// tracked files whose deletion lands (an agent's landing refuses any other deletion).
    #[serde(default)]
    pub include: Vec<String>,
}

const PARAMS: &[Param] = &[
    Param::required(
        "message",
        ParamKind::String,
        "the commit message for the changes (and for a squash or merge commit)",
    ),
    Param::optional(
        "strategy",
        ParamKind::String,
        "ff-only (the default), squash or no-ff",
    ),
    Param::optional(
        "include",
        ParamKind::StringList,
        "what a command did (not fs-write or fs-edit) that should land too: new files it made, and tracked files it deleted; any other new file stays in the worktree, left out and named, and any other deletion refuses the landing",
    ),
];

impl Primitive for GitLand {
    type Args = GitLandArgs;
    type Output = Landed;

    fn name(&self) -> &str {
        "git-land"
    }
    fn description(&self) -> &str {
        "Commits every change, rebases the session's commits onto the newest base, scans them, and pushes the base by fast-forward."
    }
    fn params(&self) -> &[Param] {
        PARAMS
    }
    fn worktree_only(&self) -> bool {
        true
    }
    fn exclusive(&self) -> bool {
        true
    }
    fn effect(&self, args: &GitLandArgs, ctx: &Context) -> Result<Effect, Error> {
        let worktree = ctx.require_worktree("git-land")?;
        strategy(args)?;
        // A landing its run would refuse is not put to the person.
        crate::land::refuse_unasked_deletions(ctx, &worktree.path, &args.include)?;
        let target = target(worktree)?;
        // The question names the remote branch that will move, not only the local base.
        let moves = target.remote.as_ref().map_or(String::new(), |remote| {
            format!(" (moves {} of {})", remote.branch, remote.remote)
        });
        let mut effect = Effect::named(format!(
            "git-land {} onto {}{moves}: \"{}\"; {}",
            worktree.branch,
            target.base,
            args.message,
            what_lands(ctx, worktree, &args.include)
        ));
        effect.irreversible = true;
        if let Some(remote) = target.remote {
            effect.egress = Some(Egress {
                kind: EgressKind::Push,
                destinations: remote.urls,
            });
        }
        Ok(effect)
    }
    fn run(
        &self,
        args: GitLandArgs,
        ctx: &Context,
        _permit: &nodwyn_guard::Permit,
    ) -> Result<Landed, Error> {
        land(ctx, Some(&args.message), strategy(&args)?, &args.include)
    }
}

/// What a landing would publish now, for the question: each changed file with its line counts
/// (at most [`SHOWN_FILES`]), and what is left out (credential files, new files no primitive
/// wrote and the agent did not name).
fn what_lands(
    ctx: &Context,
    worktree: &crate::context::WorktreeInfo,
    include: &[String],
) -> String {
    let review = worktree.work_starts().and_then(|since| {
        let caps = crate::review::Caps {
            per_file: 1024,
            ..crate::review::Caps::of(&ctx.limits)
        };
        crate::review::review(&worktree.path, &since, &caps)
    });
    let Ok(review) = review else {
        return "its files could not be read for this question".to_owned();
    };
    let new_files = crate::land::NewFiles {
        written: ctx.written.as_deref(),
        named: include,
    };
    let (landing, made): (Vec<_>, Vec<_>) = review
        .files
        .iter()
        .partition(|file| file.status != "added" || new_files.keeps(&file.path));
    let counted = |file: &&crate::review::FileChange| match (file.added, file.removed) {
        (Some(added), Some(removed)) => format!("{} (+{added} -{removed})", file.path),
        _ => format!("{} (binary)", file.path),
    };
    let mut said = match landing.len() {
        0 => "no file changes".to_owned(),
        n => {
            let mut shown: Vec<String> = landing.iter().take(SHOWN_FILES).map(counted).collect();
            if n > SHOWN_FILES {
                shown.push(format!("and {} more", n - SHOWN_FILES));
            }
            format!("{n} file(s): {}", shown.join(", "))
        }
    };
    let left_out: Vec<String> = review
        .omitted
        .iter()
        .map(|o| format!("{} ({})", o.path, o.why))
        .chain(
            made.iter()
                .map(|f| format!("{} (made by a command, not named)", f.path)),
        )
        .take(SHOWN_FILES)
        .collect();
    if !left_out.is_empty() {
        said.push_str(&format!("; left out: {}", left_out.join(", ")));
    }
    said
}

/// How many files the question names, at most.
const SHOWN_FILES: usize = 10;

fn strategy(args: &GitLandArgs) -> Result<Strategy, Error> {
    args.strategy
        .as_deref()
        .map_or(Ok(Strategy::default()), str::parse)
}
