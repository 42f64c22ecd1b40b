//! Where things are: the data directory and the person's configuration and prompts files, found
//! from the environment (`NODWYN_HOME`, `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `HOME`).

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

pub(crate) fn non_empty(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}
