//! Keeping paths beneath a writable folder unchangeable: a user, mount and PID namespace of the
//! command's own (the PID one ends the command's whole tree with it: see `crate::exec`), in which
//! each such path (a worktree's `.git` file, nodwyn's `.nodwyn` folder,
//! a checkout's git directory) is bound read-only over itself.
//!
//! Landlock gives a folder's rights to everything beneath it, so it cannot keep one entry of a
//! writable folder from being rewritten, removed or renamed over. A read-only bind mount can: a
//! write fails with "Read-only file system", and removing or renaming over the mount point fails
//! with "Device or resource busy". The command cannot undo the mount: a Landlock-confined process
//! may not mount or unmount anything, and the mounts it would inherit into a namespace of its own
//! are locked together. The namespace maps only the person's own user and group, so files keep
//! their owners' numbers for the person and every other owner shows as `nobody`.
//!
//! Where the system refuses unprivileged user namespaces (some distributions turn them off), the
//! caller falls back to granting such a folder entry by entry (see `crate::confine`).

/// Binds each of `paths` read-only over itself, `/dev/null` over each file of `masked`, and a
/// file of the given content over each of `replaced`, in a new user and mount namespace of the
/// calling process. Call it while the process has one thread. A path of `paths` that does not
/// exist yet is made as an empty folder first, so nothing can be made there either; a masked or
/// replaced file that is gone is left. `Ok(false)` when the system makes no such namespace
/// (nothing changed); an error when one was made but a bind failed (the command must not run).
#[cfg(target_os = "linux")]
pub(crate) fn protect(
    paths: &[std::path::PathBuf],
    masked: &[std::path::PathBuf],
    replaced: &[(std::path::PathBuf, String)],
) -> Result<bool, String> {
    use std::os::unix::fs::DirBuilderExt;
    use std::path::Path;

    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    // SAFETY: unshare takes only flags; the process has one thread, as a new user namespace
    // requires.
    #[allow(unsafe_code)]
    let unshared =
        unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID) };
    if unshared != 0 {
        tracing::debug!(error = %std::io::Error::last_os_error(), "no user namespace");
        return Ok(false);
    }
    let write =
        |file: &str, text: String| std::fs::write(file, text).map_err(|e| format!("{file}: {e}"));
    write("/proc/self/setgroups", "deny".to_owned())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    mount(None, Path::new("/"), libc::MS_REC | libc::MS_PRIVATE)
        .map_err(|e| format!("a private mount namespace: {e}"))?;
    for path in paths {
        if std::fs::symlink_metadata(path).is_err()
            && let Err(e) = std::fs::create_dir(path)
        {
            return Err(format!("{}: {e}", path.display()));
        }
        // The flags the mount beneath already has must be kept, or the kernel refuses the
        // remount in a user namespace.
        let kept = rustix::fs::statvfs(path.as_path())
            .map(|stat| inherited_flags(stat.f_flag))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        mount(Some(path), path, libc::MS_BIND)
            .and_then(|()| {
                mount(
                    None,
                    path,
                    libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept,
                )
            })
            .map_err(|e| format!("making {} read-only: {e}", path.display()))?;
    }
    let is_file = |file: &Path| std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file());
    for file in masked.iter().filter(|file| is_file(file)) {
        mount(Some(Path::new("/dev/null")), file, libc::MS_BIND)
            .map_err(|e| format!("masking {}: {e}", file.display()))?;
    }
    // The replacements are written into a folder of the exec step's own, bound, and unlinked: the
    // mounts keep them, and nothing else can name or change them.
    let shown = std::env::temp_dir().join(format!("nodwyn-shown-{}", std::process::id()));
    if !replaced.is_empty() {
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&shown)
            .map_err(|e| format!("{}: {e}", shown.display()))?;
    }
    for (index, (file, content)) in replaced.iter().enumerate() {
        if !is_file(file) {
            continue;
        }
        let copy = shown.join(index.to_string());
        std::fs::write(&copy, content).map_err(|e| format!("{}: {e}", copy.display()))?;
        let bound = mount(Some(&copy), file, libc::MS_BIND);
        let _ = std::fs::remove_file(&copy);
        bound.map_err(|e| format!("showing {} without credentials: {e}", file.display()))?;
    }
    if !replaced.is_empty() {
        let _ = std::fs::remove_dir(&shown);
    }
    Ok(true)
}

/// `mount(2)` of `source` (none for a change of `target`'s own mount) on `target` with `flags`.
#[cfg(target_os = "linux")]
fn mount(
    source: Option<&std::path::Path>,
    target: &std::path::Path,
    flags: libc::c_ulong,
) -> Result<(), String> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let text = |path: &std::path::Path| {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| format!("{}: a NUL in the path", path.display()))
    };
    let source = source.map(text).transpose()?;
    let target = text(target)?;
    // SAFETY: both are NUL-terminated strings alive for the call, or null where the kernel takes
    // none (no file system type, no data).
    #[allow(unsafe_code)]
    let mounted = unsafe {
        libc::mount(
            source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            target.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if mounted != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    Ok(())
}

/// The mount flags of `statvfs`'s `f_flag` that a remount must repeat.
#[cfg(target_os = "linux")]
fn inherited_flags(flags: rustix::fs::StatVfsMountFlags) -> libc::c_ulong {
    use rustix::fs::StatVfsMountFlags as F;
    [
        (F::NOSUID, libc::MS_NOSUID),
        (F::NODEV, libc::MS_NODEV),
        (F::NOEXEC, libc::MS_NOEXEC),
        (F::NOATIME, libc::MS_NOATIME),
        (F::NODIRATIME, libc::MS_NODIRATIME),
        (F::RELATIME, libc::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(flag, _)| flags.contains(*flag))
    .fold(0, |all, (_, mount)| all | mount)
}

/// Elsewhere there is no such namespace.
#[cfg(not(target_os = "linux"))]
pub(crate) fn protect(
    _: &[std::path::PathBuf],
    _: &[std::path::PathBuf],
    _: &[(std::path::PathBuf, String)],
) -> Result<bool, String> {
    Ok(false)
}
