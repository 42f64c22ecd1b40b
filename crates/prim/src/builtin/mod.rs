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
pub use shell_exec::ShellExec;
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
