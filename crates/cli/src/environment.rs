//! What the command line takes from the environment for primitives and landings: the host
//! settings, with the sandbox and the person's limits chosen from their configuration. Where
//! things are is `nodwyn_config`'s.

pub(crate) use nodwyn_config::{data_dir, data_dir_location, user_config_file, user_prompts_file};

/// What primitives and landings take from the person's environment (see
/// `nodwyn_core::host::HostSettings`).
pub(crate) fn host_settings() -> nodwyn_core::host::HostSettings {
    nodwyn_core::host::HostSettings::from_environment(std::env::vars_os())
}

/// The host settings for a command that may run an agent's commands (`nodwyn call`, `eval`, a
/// strategy): with the sandbox chosen from the person's own configuration and what the system
/// offers. When the configuration cannot be read, commands are not confined and so ask, each
/// time, with the reason.
pub(crate) fn host_settings_confined() -> nodwyn_core::host::HostSettings {
    let mut settings = host_settings();
    let chosen = nodwyn_config::Settings::resolve(user_config_file().as_deref(), None)
        .and_then(|config| Ok((config, data_dir()?)));
    match chosen {
        Ok((config, data)) => {
            if let Some(deadline) = config.git_network {
                settings.limits.git_network = deadline;
            }
            let choice = config.sandbox;
            settings.choose_sandbox(&choice, std::env::current_exe().ok(), &data);
        }
        Err(e) => {
            settings.sandbox = nodwyn_core::prim::sandbox::Sandbox::Unavailable(format!(
                "the sandbox settings could not be read: {e:#}"
            ));
        }
    }
    settings
}

/// The host settings, with Ctrl-C, SIGTERM and SIGHUP caught for the rest of the command: the
/// first raises the settings' interrupt flag, which a landing looks at between its steps so it
/// stops where it can say what state it left; a second one ends nodwyn at once.
pub(crate) fn host_settings_interruptible() -> anyhow::Result<nodwyn_core::host::HostSettings> {
    let mut settings = host_settings();
    let config = nodwyn_config::Settings::resolve(user_config_file().as_deref(), None)?;
    if let Some(deadline) = config.git_network {
        settings.limits.git_network = deadline;
    }
    catch_interrupts_of(&settings.interrupt)?;
    Ok(settings)
}

/// Has Ctrl-C, SIGTERM and SIGHUP raise `interrupt`; the second ends nodwyn at once.
fn catch_interrupts_of(interrupt: &nodwyn_core::prim::Interrupt) -> anyhow::Result<()> {
    catch_interrupts(&interrupt.flag())
}

/// Has Ctrl-C, SIGTERM and SIGHUP set `flag`; the second (while it is still set) ends nodwyn at
/// once.
pub(crate) fn catch_interrupts(
    flag: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, std::sync::Arc::clone(flag))?;
        signal_hook::flag::register(signal, std::sync::Arc::clone(flag))?;
    }
    Ok(())
}

/// Where the daemon's socket is: `$XDG_RUNTIME_DIR/nodwyn/nodwyn.sock`, else `run/nodwyn.sock`
/// in the data directory.
pub(crate) fn daemon_socket() -> anyhow::Result<std::path::PathBuf> {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(runtime) => Ok(std::path::PathBuf::from(runtime).join("nodwyn/nodwyn.sock")),
        None => Ok(data_dir()?.join("run/nodwyn.sock")),
    }
}
