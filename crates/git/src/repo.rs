//! Finding the repository a folder belongs to, and reading facts about its commits.
//!
//! A *checkout* is the working tree a folder is in: the main worktree or a linked one. Its
//! *repository* is the main worktree, found from the git common directory, so every linked
//! worktree (nodwyn's or one a person made with `git worktree add`) maps to the same
//! repository. Reads go through libgit2, which in a linked worktree opens the git directory
//! [`crate::gitdir`] checked, never the one the worktree's `.git` file names unchecked.

use std::path::{Path, PathBuf};

use git2::{ErrorCode, ObjectType, Oid, Repository};

use crate::Error;

/// The working tree a folder is in, and the repository it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The top folder of the working tree, canonical.
    pub toplevel: PathBuf,
    /// The main worktree of the repository, canonical.
    pub repository: PathBuf,
    /// The checkout's own git directory (`.git`, or `.git/worktrees/<name>`).
    pub git_dir: PathBuf,
    /// The git directory shared by all worktrees.
    pub common_dir: PathBuf,
    /// What the checkout has checked out.
    pub head: Head,
}

/// What a checkout's HEAD names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The short name of the checked-out branch; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// The commit HEAD points at; `None` in a repository with no commit yet.
    pub commit: Option<String>,
}

/// Finds the checkout that contains `dir`, searching upwards.
pub fn discover(dir: &Path) -> Result<Checkout, Error> {
    let found = match crate::gitdir::of(dir)? {
        crate::gitdir::GitDir::Linked { git_dir, .. } => Repository::open(&git_dir),
        crate::gitdir::GitDir::Plain => Repository::discover(dir),
    };
    let repo = match found {
        Ok(repo) => repo,
        Err(e) if e.code() == ErrorCode::NotFound => {
            return Err(Error::NotARepository {
                dir: dir.to_path_buf(),
            });
        }
        Err(e) => return Err(Error::read(dir)(e)),
    };
    let Some(workdir) = repo.workdir() else {
        return Err(Error::Bare {
            dir: dir.to_path_buf(),
        });
    };
    let toplevel = canonical(workdir)?;
    let common_dir = canonical(repo.commondir())?;
    let repository = if repo.is_worktree() {
        let main = Repository::open(&common_dir).map_err(Error::read(&common_dir))?;
        match main.workdir() {
            Some(workdir) => canonical(workdir)?,
            None => {
                return Err(Error::Bare {
                    dir: common_dir.clone(),
                });
            }
        }
    } else {
        toplevel.clone()
    };
    let head = read_head(&repo, &toplevel)?;
    Ok(Checkout {
        toplevel,
        repository,
        git_dir: canonical(repo.path())?,
        common_dir,
        head,
    })
}

/// The git directory `repository` (a main worktree) shares with its linked worktrees.
pub fn common_dir(repository: &Path) -> Result<PathBuf, Error> {
    let repo = Repository::open(repository).map_err(Error::read(repository))?;
    canonical(repo.commondir())
}

/// A full commit id as libgit2's `Oid`.
pub(crate) fn oid(dir: &Path, id: &str) -> Result<Oid, Error> {
    Oid::from_str(id).map_err(Error::read(dir))
}

/// Opens the checkout or repository at exactly `dir` for reading.
pub fn open(dir: &Path) -> Result<Repository, Error> {
    match crate::gitdir::of(dir)? {
        crate::gitdir::GitDir::Linked { top, git_dir } if same(&top, dir) => {
            Repository::open(&git_dir).map_err(Error::read(dir))
        }
        _ => Repository::open(dir).map_err(Error::read(dir)),
    }
}

fn same(one: &Path, other: &Path) -> bool {
    one.canonicalize().ok() == other.canonicalize().ok()
}

/// Reads HEAD of a checkout.
pub fn read_head(repo: &Repository, dir: &Path) -> Result<Head, Error> {
    match repo.head() {
        Ok(reference) => {
            let branch = if reference.is_branch() {
                reference.shorthand().ok().map(str::to_owned)
            } else {
                None
            };
            let commit = reference
                .peel_to_commit()
                .map_err(Error::read(dir))?
                .id()
                .to_string();
            Ok(Head {
                branch,
                commit: Some(commit),
            })
        }
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
            let branch = repo
                .find_reference("HEAD")
                .ok()
                .and_then(|r| r.symbolic_target().ok().flatten().map(str::to_owned))
                .and_then(|t| t.strip_prefix("refs/heads/").map(str::to_owned));
            Ok(Head {
                branch,
                commit: None,
            })
        }
        Err(e) => Err(Error::read(dir)(e)),
    }
}

/// Resolves a revision (branch, tag, commit id, `HEAD~2`, ...) to a commit id.
pub fn resolve_commit(dir: &Path, revision: &str) -> Result<Option<String>, Error> {
    let repo = open(dir)?;
    let object = lookup(&repo, dir, revision)?;
    Ok(object
        .and_then(|object| object.peel_to_commit().ok())
        .map(|c| c.id().to_string()))
}

/// The object `revision` names in `repo` (at `dir`), if it names one.
fn lookup<'r>(
    repo: &'r Repository,
    dir: &Path,
    revision: &str,
) -> Result<Option<git2::Object<'r>>, Error> {
    match repo.revparse_single(revision) {
        Ok(object) => Ok(Some(object)),
        Err(e) if matches!(e.code(), ErrorCode::NotFound | ErrorCode::InvalidSpec) => Ok(None),
        Err(e) if e.class() == git2::ErrorClass::Reference => Ok(None),
        Err(e) => Err(Error::read(dir)(e)),
    }
}

/// Whether `revision` names an object of the repository at `dir` (a commit, or a tree such as
/// the empty tree a first push is compared with).
pub fn names_an_object(dir: &Path, revision: &str) -> Result<bool, Error> {
    let repo = open(dir)?;
    Ok(lookup(&repo, dir, revision)?.is_some())
}

/// The commit a local branch points at, if the branch exists.
pub fn branch_tip(dir: &Path, branch: &str) -> Result<Option<String>, Error> {
    let repo = open(dir)?;
    match repo.find_reference(&format!("refs/heads/{branch}")) {
        Ok(reference) => Ok(Some(
            reference
                .peel_to_commit()
                .map_err(Error::read(dir))?
                .id()
                .to_string(),
        )),
        Err(e) if e.code() == ErrorCode::NotFound || e.code() == ErrorCode::InvalidSpec => Ok(None),
        Err(e) => Err(Error::read(dir)(e)),
    }
}

/// The remote a local branch's upstream is on (its `branch.<name>.remote`), if it has one.
pub fn upstream_remote(dir: &Path, branch: &str) -> Result<Option<String>, Error> {
    let repo = open(dir)?;
    let Ok(remote) = repo.branch_upstream_remote(&format!("refs/heads/{branch}")) else {
        return Ok(None);
    };
    Ok(remote.as_str().ok().map(str::to_owned))
}

/// The commit a local branch's upstream (remote-tracking branch) points at, if it has one.
pub fn upstream_tip(dir: &Path, branch: &str) -> Result<Option<String>, Error> {
    let repo = open(dir)?;
    let Ok(local) = repo.find_branch(branch, git2::BranchType::Local) else {
        return Ok(None);
    };
    let Ok(upstream) = local.upstream() else {
        return Ok(None);
    };
    Ok(upstream
        .get()
        .peel_to_commit()
        .ok()
        .map(|c| c.id().to_string()))
}

/// Which of `paths` (slash-separated, from the root of the tree) are committed as symbolic
/// links in `commit`.
pub fn committed_links(dir: &Path, commit: &str, paths: &[&str]) -> Result<Vec<String>, Error> {
    let repo = open(dir)?;
    let oid = Oid::from_str(commit).map_err(Error::read(dir))?;
    let tree = repo
        .find_commit(oid)
        .and_then(|c| c.tree())
        .map_err(Error::read(dir))?;
    let mut links = Vec::new();
    for path in paths {
        if let Ok(entry) = tree.get_path(Path::new(path))
            && entry.kind() == Some(ObjectType::Blob)
            && entry.filemode() == 0o120000
        {
            links.push((*path).to_owned());
        }
    }
    Ok(links)
}

fn canonical(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}
