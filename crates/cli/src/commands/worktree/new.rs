//! `nodwyn worktree new`.

use clap::Args;
use nodwyn_core::scripts::{ScriptOptions, session_started};
use nodwyn_core::worktree::hooks::HookEvent;
use nodwyn_core::worktree::{Created, NewWorktree, create};

use crate::commands::scheme_options::with_scripting;
use crate::commands::{Invocation, RepoArg};
use crate::environment::{self, user_config_file};
use crate::output::{self, short_commit};
use crate::person::Terminal;
use nodwyn_config::Settings;

/// Open a session in a new worktree of the repository, on a new branch `nodwyn/ID` (or
/// `nodwyn/NAME-ID` with --name).
///
/// The worktree starts from the checkout's HEAD (or --base, or a pull request's head with --pr),
/// without its uncommitted changes. It works from any folder of a checkout (it uses the
/// checkout's top); run from inside a worktree, it makes a sibling based on that worktree's HEAD. `.worktreeinclude` at the repository's top lists untracked files to copy in.
/// When the new worktree has a `.nodwyn/init.scm` a person approved (asked on this terminal the
/// first time and whenever it changes), its `(on-session-start)` runs.
#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    #[command(flatten)]
    repo: RepoArg,
    /// Start from this branch, remote-tracking branch (origin/main: the session lands on main
    /// of origin), tag or commit instead of HEAD.
    #[arg(long, value_name = "REF", conflicts_with = "pr")]
    base: Option<String>,
    /// The branch the session lands on, when it is not the one it starts from (default: the
    /// branch it starts from, else the repository's default branch: origin/HEAD's, else the main
    /// checkout's).
    #[arg(long, value_name = "BRANCH")]
    onto: Option<String>,
    /// Start from a pull request's head (N, #N or its URL), found with the `gh` program.
    #[arg(long, value_name = "N")]
    pr: Option<String>,
    /// A name for the session: commands take it in place of the id, and the branch carries it
    /// (lowercased, other characters as `-`, at most 40 characters).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Run no worktree hooks (the repository's .nodwyn/hooks.toml, nor your own).
    #[arg(long)]
    no_hooks: bool,
}

pub(super) fn run(args: NewArgs, invocation: &Invocation) -> anyhow::Result<()> {
    let dir = args.repo.dir()?;
    let repository = nodwyn_core::repository_of(&dir)?;
    let settings = Settings::resolve(user_config_file().as_deref(), Some(&repository))?;
    // Started from another revision, the checkout's own changes are nothing it could carry.
    let from_the_checkouts_head = args.base.is_none() && args.pr.is_none();
    let created = create(
        &invocation.store()?,
        &NewWorktree {
            dir,
            base: args.base,
            pull_request: args.pr,
            name: args.name,
            onto: args.onto,
            location: settings.worktree_location,
            ports: settings.worktree_ports,
            progress: copy_progress(),
        },
    )?;
    if invocation.json {
        output::json(&created)?;
    } else {
        print_human(&created, from_the_checkouts_head)?;
    }
    let store = invocation.store()?;
    start_strategy(&store, &created.session.to_string());
    crate::hooks::run_after(
        &store,
        &created.id,
        HookEvent::PostCreate,
        args.no_hooks,
        || {
            format!(
                "the worktree was made and is kept (session {} in {})",
                created.id,
                created.worktree.path.display()
            )
        },
    )
}

/// Runs the repository's `(on-session-start)` from an approved `.nodwyn/init.scm`, if there is
/// one. The session exists whatever happens here, so a failure is a note, not the command's
/// error.
fn start_strategy(store: &nodwyn_core::Store, id: &str) {
    let options = ScriptOptions {
        user_prompts: environment::user_prompts_file(),
        limits: Default::default(),
    };
    match with_scripting(store, &options, |scripting| {
        session_started(scripting, id, &mut Terminal)
    }) {
        Ok((ran, notes)) => {
            output::notes(&notes);
            if ran.is_some() {
                output::note("ran (on-session-start) from .nodwyn/init.scm");
            }
        }
        Err(e) => output::note(format!(
            "note: (on-session-start) from .nodwyn/init.scm failed: {e}"
        )),
    }
}

/// A size in bytes, in the unit that reads best.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Where the copy of a large folder `.worktreeinclude` chose tells how it goes: one line of the
/// terminal, written over as it goes (nothing when stderr is not a terminal).
fn copy_progress() -> nodwyn_core::prim::Notices {
    use std::io::{IsTerminal, Write};
    if !std::io::stderr().is_terminal() {
        return nodwyn_core::prim::Notices::default();
    }
    nodwyn_core::prim::Notices::to(|text| {
        let line = output::printable(text);
        let mut stderr = std::io::stderr().lock();
        // A carriage return goes back over the line; the spaces wipe a longer one before it.
        let _ = write!(stderr, "\r{line:<72}");
        if text.starts_with("copied ") {
            let _ = writeln!(stderr);
        }
        let _ = stderr.flush();
    })
}

fn print_human(created: &Created, from_the_checkouts_head: bool) -> anyhow::Result<()> {
    let facts = &created.worktree;
    let lands = match (facts.base.as_str(), &created.lands_on) {
        ("", _) => "no branch to land on; `nodwyn land --onto BRANCH` chooses one".to_owned(),
        (base, Some(on)) if *on == format!("the local {base}") => format!("lands on {base}"),
        (base, Some(on)) if on.starts_with(&format!("{base} of ")) => format!("lands on {on}"),
        (base, Some(on)) => format!("lands on {base}, pushed to {on}"),
        (base, None) => format!("lands on {base}"),
    };
    let from = format!("at {}, {lands}", short_commit(&facts.base_commit));
    output::text(format!(
        "Opened session {} in a new worktree\n  path    {}\n  branch  {} ({from})",
        created.session,
        facts.path.display(),
        facts.branch,
    ))?;
    if let Some(number) = facts.pull_request {
        output::text(format!("  pull request #{number}"))?;
    }
    if let Some(port) = facts.port {
        output::text(format!("  port    {port} (NODWYN_PORT in its commands)"))?;
    }
    let counts = &created.include_counts;
    if !counts.is_empty() {
        output::text(format!(
            "  copied  {} file(s), {} from .worktreeinclude{}",
            counts.files,
            size(counts.bytes),
            match counts.reflinked {
                0 => String::new(),
                n if n == counts.files =>
                    ", every one a reflink (sharing the original's blocks)".to_owned(),
                n => format!(", {n} of them as reflinks"),
            }
        ))?;
    }
    if created.uncommitted > 0 && from_the_checkouts_head {
        output::note(format!(
            "note: {} uncommitted change(s) in the checkout it came from were not carried over",
            created.uncommitted
        ));
    }
    if let Some(why) = created.lands_refused.as_ref().filter(|why| !why.is_empty()) {
        output::note(format!("note: a landing would be refused now: {why}"));
    }
    if !created.strategy_not_carried.is_empty() {
        output::note(format!(
            "note: the checkout's {} is not committed, so this worktree does not have it and its sessions run without it; commit it to have it in every worktree",
            created.strategy_not_carried.join(" and ")
        ));
    }
    if !created.included.is_empty() {
        output::note(format!(
            "copied from .worktreeinclude: {}",
            created.included.join(", ")
        ));
    }
    for failure in &created.include_failed {
        output::note(format!(
            "could not copy {} from .worktreeinclude: {}",
            failure.path, failure.error
        ));
    }
    Ok(())
}
