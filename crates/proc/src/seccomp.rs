//! What Landlock cannot mediate, a seccomp filter refuses: creating a Unix-domain socket, any
//! other socket when the network is off (Landlock covers only TCP; this takes UDP, raw and
//! netlink sockets too), io_uring, and the kernel's keyrings (`keyctl`, `add_key`,
//! `request_key`), as container runtimes refuse them.
//!
//! Landlock governs opening files, not connecting to a socket by its path, and the sockets a
//! person's session keeps have well-known paths: the user's D-Bus (`/run/user/UID/bus`, through
//! which `systemd-run --user` starts a program outside any sandbox), an ssh or gpg agent, a
//! keyring, Docker's socket. Through any of them something unconfined acts for the command. A
//! confined command therefore cannot create an `AF_UNIX` socket (`socketpair`, which connects
//! only its own processes, stays allowed); the person may allow it in their own configuration
//! (`[sandbox] unix_sockets = true`). io_uring is refused because its operations (a socket among
//! them) are made without the system calls a filter sees. Every call the filter refuses fails
//! with `EPERM` ("Operation not permitted"), which a program and a model can read; a system call
//! of another architecture (a 32-bit call on a 64-bit system) is refused the same way.

/// Whether nodwyn builds the filter for this system; where it does not, commands cannot be
/// confined (see [`crate::availability`]).
pub(crate) const BUILT: bool = cfg!(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
));

/// What the filter lets a command create.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sockets {
    /// Unix-domain sockets.
    pub unix: bool,
    /// Every other kind (the network's).
    pub network: bool,
}

/// Installs the filter on the calling process and everything it starts afterwards. It cannot be
/// removed; `no_new_privs` is set first, as the kernel requires.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub(crate) fn install(sockets: Sockets) -> Result<(), crate::Error> {
    let program = filter(sockets);
    let program = libc::sock_fprog {
        len: u16::try_from(program.len()).expect("a short filter"),
        filter: program.as_ptr().cast_mut(),
    };
    let failed = |what: &str| {
        crate::Error::Sandbox(format!(
            "could not {what}: {}",
            std::io::Error::last_os_error()
        ))
    };
    // SAFETY: prctl with these options reads only its integer arguments.
    #[allow(unsafe_code)]
    let set = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    if set != 0 {
        return Err(failed("set no_new_privs"));
    }
    // SAFETY: `program` points at `filter`'s instructions, alive for the whole call; the kernel
    // copies them.
    #[allow(unsafe_code)]
    let set = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &raw const program,
            0,
            0,
        )
    };
    if set != 0 {
        return Err(failed("install the seccomp filter"));
    }
    Ok(())
}

/// Where nodwyn builds no filter, confinement is refused rather than run without it.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
pub(crate) fn install(_: Sockets) -> Result<(), crate::Error> {
    Err(crate::Error::Sandbox(
        "sockets cannot be refused on this system".to_owned(),
    ))
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn filter(sockets: Sockets) -> Vec<libc::sock_filter> {
    // `struct seccomp_data`: the call's number, its architecture, then its arguments (the first
    // argument's low half, on these little-endian systems, at 16).
    const NUMBER: u32 = 0;
    const ARCHITECTURE: u32 = 4;
    const FIRST_ARGUMENT: u32 = 16;
    #[cfg(target_arch = "x86_64")]
    const NATIVE: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
    #[cfg(target_arch = "aarch64")]
    const NATIVE: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64
    const LOAD: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const IS: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RETURN: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
    const REFUSE: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let load = |offset| libc::sock_filter {
        code: LOAD,
        jt: 0,
        jf: 0,
        k: offset,
    };
    // Equal: go on with the next instruction; not: skip `skip` of them.
    let unless = |value, skip| libc::sock_filter {
        code: IS,
        jt: 0,
        jf: skip,
        k: value,
    };
    let answer = |value| libc::sock_filter {
        code: RETURN,
        jt: 0,
        jf: 0,
        k: value,
    };
    let mut program = vec![
        load(ARCHITECTURE),
        // Another architecture's call (numbered differently): refused.
        libc::sock_filter {
            code: IS,
            jt: 1,
            jf: 0,
            k: NATIVE,
        },
        answer(REFUSE),
        load(NUMBER),
    ];
    #[cfg(target_arch = "x86_64")]
    program.extend([
        // An x32 call (its number has bit 30 set): refused.
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: 0x4000_0000,
        },
        answer(REFUSE),
    ]);
    let (unix, other) = (
        if sockets.unix { ALLOW } else { REFUSE },
        if sockets.network { ALLOW } else { REFUSE },
    );
    // io_uring; the kernel's keyrings, where a person's Kerberos tickets and other keys live
    // (`keyctl(KEYCTL_GET_PERSISTENT)` hands any process of theirs the persistent keyring).
    for refused in [
        libc::SYS_io_uring_setup,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
    ] {
        program.extend([unless(refused as u32, 1), answer(REFUSE)]);
    }
    program.extend([
        // Not `socket`: allowed.
        unless(libc::SYS_socket as u32, 4),
        load(FIRST_ARGUMENT),
        unless(libc::AF_UNIX as u32, 1),
        answer(unix),
        answer(other),
        answer(ALLOW),
    ]);
    program
}
