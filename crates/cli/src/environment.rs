//! The folders nodwyn reads from the environment: the data directory and the user's
//! configuration file. Only the command line reads these; libraries get them as arguments.

use std::path::PathBuf;

use anyhow::{Context, bail};

/// `$NODWYN_HOME`, else `$XDG_DATA_HOME/nodwyn`, else `~/.local/share/nodwyn`; made if missing,
/// and canonical, so paths nodwyn records under it compare equal later.
pub fn data_dir() -> anyhow::Result<PathBuf> {
    let dir = data_dir_location()?;
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("could not make the data directory {}", dir.display()))?;
    std::fs::canonicalize(&dir)
        .with_context(|| format!("could not use the data directory {}", dir.display()))
}

/// Where the data directory is, without making it.
pub fn data_dir_location() -> anyhow::Result<PathBuf> {
    Ok(if let Some(home) = non_empty("NODWYN_HOME") {
        PathBuf::from(home)
    } else if let Some(xdg) = non_empty("XDG_DATA_HOME") {
        PathBuf::from(xdg).join("nodwyn")
    } else {
        home()?.join(".local").join("share").join("nodwyn")
    })
}

/// `$XDG_CONFIG_HOME/nodwyn/config.toml`, else `~/.config/nodwyn/config.toml`.
pub fn user_config_file() -> Option<PathBuf> {
    user_config_dir().map(|dir| dir.join("config.toml"))
}

/// `$XDG_CONFIG_HOME/nodwyn/prompts.scm`, else `~/.config/nodwyn/prompts.scm`.
pub fn user_prompts_file() -> Option<PathBuf> {
    user_config_dir().map(|dir| dir.join("prompts.scm"))
}

fn user_config_dir() -> Option<PathBuf> {
    if let Some(xdg) = non_empty("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(xdg).join("nodwyn"));
    }
    home().ok().map(|h| h.join(".config").join("nodwyn"))
}

fn home() -> anyhow::Result<PathBuf> {
    match non_empty("HOME") {
        Some(home) => Ok(PathBuf::from(home)),
        None => bail!("HOME is not set, so nodwyn cannot find its data directory; set NODWYN_HOME"),
    }
}

fn non_empty(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// What primitives and landings take from the person's environment (see
/// `nodwyn_core::host::HostSettings`).
pub fn host_settings() -> nodwyn_core::host::HostSettings {
    nodwyn_core::host::HostSettings::from_environment(std::env::vars_os())
}

/// The host settings for a command that may run an agent's commands (`nodwyn call`, `eval`, a
/// strategy): with the sandbox chosen from the person's own configuration and what the system
/// offers. When the configuration cannot be read, commands are not confined and so ask, each
/// time, with the reason.
pub fn host_settings_confined() -> nodwyn_core::host::HostSettings {
    let mut settings = host_settings();
    let chosen = crate::config::Settings::resolve(user_config_file().as_deref(), None)
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
pub fn host_settings_interruptible() -> anyhow::Result<nodwyn_core::host::HostSettings> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut settings = host_settings();
    let config = crate::config::Settings::resolve(user_config_file().as_deref(), None)?;
    if let Some(deadline) = config.git_network {
        settings.limits.git_network = deadline;
    }
    let flag = settings.interrupt.flag();
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, std::sync::Arc::clone(&flag))?;
        signal_hook::flag::register(signal, std::sync::Arc::clone(&flag))?;
    }
    Ok(settings)
}
