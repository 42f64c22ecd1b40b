//! `nodwyn mcp install`: the configuration an agent needs to use nodwyn's server, merged into the
//! files the agent reads without losing anything else in them.
//!
//! | agent | project scope | user scope |
//! | --- | --- | --- |
//! | Claude Code | `.mcp.json`, `.claude/settings.local.json` | `~/.claude.json`, `~/.claude/settings.json` |
//! | Codex | `.codex/config.toml` | `~/.codex/config.toml` |
//! | Gemini CLI | `.gemini/settings.json` | `~/.gemini/settings.json` |
//! | Cursor | `.cursor/mcp.json` | `~/.cursor/mcp.json` |
//!
//! Each file gets the server `nodwyn` (this binary, `mcp`: `--repo` the repository in project
//! scope, the folder the agent starts it in for user scope). Claude Code's project `.mcp.json` is
//! a file teams commit, so it names the server portably: `nodwyn mcp` from the `PATH`, started in
//! the project (a machine's own paths only when nodwyn is not on the `PATH`). Its settings deny
//! its built-in tools that edit files, run commands and read files (`Bash`, `Edit`, `Write`,
//! `MultiEdit`, `NotebookEdit`, `Read`, `Grep`, `Glob`, `LS`: its own Read would open the `.env`
//! nodwyn's `fs_read` refuses) and allow nodwyn's (`mcp__nodwyn__*`), so its work goes through
//! nodwyn's guard; in project scope they are the person's own, in `.claude/settings.local.json`,
//! never the shared `.claude/settings.json`. A file that is not what the agent reads (not a JSON object, not TOML)
//! is refused, never overwritten; files are written whole and atomically, mode 0600.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// An agent whose configuration nodwyn writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
}

/// Where the configuration goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The repository's own files (shared with whoever clones it, unless ignored).
    Project,
    /// The person's files, for every repository.
    User,
}

/// One file to write: where, and its whole new content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file.
    pub path: PathBuf,
    /// What it holds afterwards.
    pub content: String,
}

/// Claude Code's built-in tools that edit files, run commands or read files: denied, so they go
/// through nodwyn instead.
pub const CLAUDE_DENIED: &[&str] = &[
    "Bash",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Read",
    "Grep",
    "Glob",
    "LS",
];

/// The changes that configure `agent` in `scope` to start `nodwyn` (this program) as `nodwyn mcp
/// --repo REPO`; `top` is the repository's top folder, `home` the person's home. `on_path` says
/// that `nodwyn` on the `PATH` is this program, so a shared file can name it portably.
pub fn changes(
    agent: Agent,
    scope: Scope,
    top: &Path,
    home: &Path,
    nodwyn: &Path,
    on_path: bool,
) -> Result<Vec<Change>, String> {
    let base = match scope {
        Scope::Project => top,
        Scope::User => home,
    };
    // A project's server works on that repository; a person's, on whichever folder the agent
    // starts it in (its project).
    let arguments: Vec<String> = match scope {
        Scope::Project => vec!["mcp".into(), "--repo".into(), top.display().to_string()],
        Scope::User => vec!["mcp".into()],
    };
    let server = json!({
        "command": nodwyn.display().to_string(),
        "args": arguments,
    });
    match agent {
        Agent::Claude => {
            let (servers, settings) = match scope {
                Scope::Project => (
                    top.join(".mcp.json"),
                    top.join(".claude/settings.local.json"),
                ),
                Scope::User => (
                    home.join(".claude.json"),
                    home.join(".claude/settings.json"),
                ),
            };
            let mut stdio = match scope {
                // Claude Code starts a project's servers in the project.
                Scope::Project if on_path => json!({"command": "nodwyn", "args": ["mcp"]}),
                _ => server.clone(),
            };
            stdio["type"] = json!("stdio");
            Ok(vec![
                json_change(&servers, |config| {
                    object_at(config, "mcpServers")?.insert("nodwyn".to_owned(), stdio.clone());
                    Ok(())
                })?,
                json_change(&settings, |config| {
                    let permissions = object_at(config, "permissions")?;
                    add_to_list(permissions, "deny", CLAUDE_DENIED)?;
                    add_to_list(permissions, "allow", &["mcp__nodwyn__*"])?;
                    Ok(())
                })?,
            ])
        }
        Agent::Gemini => Ok(vec![json_change(
            &base.join(".gemini/settings.json"),
            |config| {
                object_at(config, "mcpServers")?.insert("nodwyn".to_owned(), server.clone());
                Ok(())
            },
        )?]),
        Agent::Cursor => Ok(vec![json_change(
            &base.join(".cursor/mcp.json"),
            |config| {
                object_at(config, "mcpServers")?.insert("nodwyn".to_owned(), server.clone());
                Ok(())
            },
        )?]),
        Agent::Codex => {
            let path = base.join(".codex/config.toml");
            let text = read(&path)?.unwrap_or_default();
            let mut document: toml_edit::DocumentMut = text.parse().map_err(|e| {
                format!("{} is not TOML ({e}); nothing was written", path.display())
            })?;
            let servers = document
                .entry("mcp_servers")
                .or_insert_with(|| {
                    let mut table = toml_edit::Table::new();
                    table.set_implicit(true);
                    toml_edit::Item::Table(table)
                })
                .as_table_mut()
                .ok_or_else(|| format!("{}: mcp_servers is not a table", path.display()))?;
            let mut entry = toml_edit::Table::new();
            entry["command"] = toml_edit::value(nodwyn.display().to_string());
            let mut args = toml_edit::Array::new();
            for arg in &arguments {
                args.push(arg.as_str());
            }
            entry["args"] = toml_edit::value(args);
            servers.insert("nodwyn", toml_edit::Item::Table(entry));
            Ok(vec![Change {
                path,
                content: document.to_string(),
            }])
        }
    }
}

/// Writes a change atomically, the file readable and writable by its owner alone.
pub fn write(change: &Change) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = &change.path;
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)
        .map_err(|e| format!("could not make {}: {e}", folder.display()))?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{} is a link; nodwyn writes only plain files",
            path.display()
        ));
    }
    let temporary = folder.join(format!(
        ".{}.nodwyn-{}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .and_then(|mut file| file.write_all(change.content.as_bytes()))
        .and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("could not write {}: {e}", path.display())
    })
}

fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("could not read {}: {e}", path.display())),
    }
}

/// The JSON file at `path`, changed by `edit` (an empty or missing file is `{}`); a file that is
/// not a JSON object is refused, naming it, and nothing is written. `nodwyn acp install` merges
/// editors' files with it too.
pub fn json_change(
    path: &Path,
    edit: impl FnOnce(&mut Value) -> Result<(), String>,
) -> Result<Change, String> {
    let mut config = match read(path)? {
        Some(text) if !text.trim().is_empty() => serde_json::from_str::<Value>(&text)
            .map_err(|e| format!("{} is not JSON ({e}); nothing was written", path.display()))?,
        _ => json!({}),
    };
    if !config.is_object() {
        return Err(format!(
            "{} is not a JSON object; nothing was written",
            path.display()
        ));
    }
    edit(&mut config).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut content = serde_json::to_string_pretty(&config).map_err(|e| e.to_string())?;
    content.push('\n');
    Ok(Change {
        path: path.to_path_buf(),
        content,
    })
}

/// The object under `key`, made when missing.
fn object_at<'a>(
    config: &'a mut Value,
    key: &str,
) -> Result<&'a mut serde_json::Map<String, Value>, String> {
    config
        .as_object_mut()
        .ok_or("not a JSON object")?
        .entry(key)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| format!("`{key}` is not an object"))
}

/// Adds each of `items` to the list under `key` unless it is there.
fn add_to_list(
    object: &mut serde_json::Map<String, Value>,
    key: &str,
    items: &[&str],
) -> Result<(), String> {
    let list = object
        .entry(key)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| format!("`{key}` is not a list"))?;
    for item in items {
        if !list.iter().any(|v| v == item) {
            list.push(json!(item));
        }
    }
    Ok(())
}
