//! The built-in primitives, one file each.

mod fs_edit;
mod fs_list;
mod fs_read;
mod fs_write;
mod git_diff;
mod git_land;
mod git_status;
mod shell_exec;
mod worktree;

pub use fs_edit::FsEdit;
pub use fs_list::FsList;
pub use fs_read::FsRead;
pub use fs_write::FsWrite;
pub use git_diff::GitDiff;
pub use git_land::GitLand;
pub use git_status::GitStatus;
pub use shell_exec::{Ran, ShellExec, run_confined};
pub use worktree::Worktree;

use crate::primitive::Registry;

/// Registers every built-in primitive.
pub(crate) fn register_all(registry: &mut Registry) {
    let fresh = "built-in primitives have distinct names";
    registry.register(FsRead).expect(fresh);
    registry.register(FsWrite).expect(fresh);
    registry.register(FsEdit).expect(fresh);
    registry.register(FsList).expect(fresh);
    registry.register(ShellExec).expect(fresh);
    registry.register(GitStatus).expect(fresh);
    registry.register(GitDiff).expect(fresh);
    registry.register(GitLand).expect(fresh);
    registry.register(Worktree).expect(fresh);
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use serde_json::json;

    use crate::{Context, Error, Registry};

    fn context(root: &std::path::Path) -> Context {
        Context::new(
            "20261002T054407Z-1968c13a",
            root.to_path_buf(),
            root.to_path_buf(),
        )
    }

    /// Runs `primitive` as the host does: the guard decides (with Don't ask on and a person who
    /// approves what it asks), and its permit is spent on the run.
    fn permitted(
        primitive: &dyn crate::DynPrimitive,
        args: &serde_json::Value,
        ctx: &Context,
    ) -> Result<serde_json::Value, Error> {
        let effect = primitive.effect(args, ctx)?;
        let mut guard = nodwyn_guard::Guard::new(
            &ctx.root,
            &ctx.repository,
            nodwyn_guard::StandingAnswers::default(),
        );
        guard.set_dont_ask(Some(nodwyn_guard::DontAsk {
            turned_on_by: "test".to_owned(),
        }));
        guard.decide(&effect);
        let permit = guard
            .permit(&effect)
            .or_else(|| guard.permit_approved(&effect))
            .expect("the guard allows it");
        primitive.run(args, ctx, permit)
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let registry = Registry::builtin();
        let edit = registry.get("fs-edit").unwrap();
        let message = |args| edit.effect(&args, &ctx).unwrap_err().to_string();
        assert!(message(json!({"path": "a"})).contains("needs `old`"));
        assert!(message(json!(["a", "b", "c", "d"])).contains("at most 3"));
        assert!(message(json!({"path": "a", "old": "b", "new": "c", "x": 1})).contains("`x`"));
        assert!(message(json!("a")).contains("object or array"));
        assert!(message(json!({"path": 1, "old": "b", "new": "c"})).contains("fs-edit"));
        assert!(matches!(registry.get("nope"), Err(Error::Unknown(_))));
    }

    #[test]
    fn a_quoted_name_is_read_back_and_a_quoted_nul_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(dir.path().join(name), "cafe").unwrap();
        let registry = Registry::builtin();
        let read = registry.get("fs-read").unwrap();
        let got = permitted(read, &json!(["\"caf\\351.txt\""]), &ctx).unwrap();
        assert_eq!(got["content"], "cafe");
        assert_eq!(got["path"], "\"caf\\351.txt\"");
        let refused = permitted(read, &json!(["\"a\\000b\""]), &ctx)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("NUL"), "{refused}");
    }

    #[test]
    fn git_land_is_offered_only_in_a_worktree_session() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let registry = Registry::builtin();
        let land = registry.get("git-land").unwrap();
        assert!(land.worktree_only());
        let refused = land.effect(&json!({"message": "m"}), &ctx).unwrap_err();
        assert!(
            refused.to_string().contains("only in a worktree session"),
            "{refused}"
        );
        let worktree = registry.get("worktree").unwrap();
        assert_eq!(permitted(worktree, &json!({}), &ctx).unwrap(), json!(null));
    }

    #[test]
    fn writes_keep_the_previous_content_in_the_repository_store() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        let registry = Registry::builtin();
        let write = registry.get("fs-write").unwrap();
        let first = permitted(write, &json!(["f.txt", "one"]), &ctx).unwrap();
        assert_eq!(first["created"], true);
        let second = permitted(write, &json!(["f.txt", "two"]), &ctx).unwrap();
        assert_eq!(second["kept_version"], 1);
        let store = crate::versions::VersionStore::new(dir.path(), &ctx.session);
        let (kept, content) = store.content(1).unwrap();
        assert_eq!(content, b"one");
        assert_eq!(kept.before, "fs-write");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".nodwyn/versions/.gitignore")).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn a_link_in_the_version_store_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".nodwyn")).unwrap();
        std::fs::write(dir.path().join("f.txt"), "one").unwrap();
        let ctx = context(dir.path());
        let registry = Registry::builtin();
        let write = registry.get("fs-write").unwrap();
        let refused = permitted(write, &json!(["f.txt", "two"]), &ctx).unwrap_err();
        assert!(
            refused.to_string().contains("not a real folder"),
            "{refused}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "one"
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_permit_runs_only_the_action_it_was_given_for() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(dir.path());
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        let registry = Registry::builtin();
        let read = registry.get("fs-read").unwrap();
        let effect = read.effect(&json!(["a.txt"]), &ctx).unwrap();
        let mut guard = nodwyn_guard::Guard::new(
            &ctx.root,
            &ctx.repository,
            nodwyn_guard::StandingAnswers::default(),
        );
        guard.decide(&effect);
        let permit = guard.permit(&effect).unwrap();
        let refused = read.run(&json!(["b.txt"]), &ctx, permit).unwrap_err();
        assert!(refused.to_string().contains("permit is for"), "{refused}");
    }
}
