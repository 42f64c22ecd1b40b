//! The person's own credential files, by the file they are rather than by name: a hard link made
//! under an innocent name (`notes.txt` and `~/.pgpass` being one file) is the same credential.
//!
//! The folders where credentials live under the home folder (`~/.ssh`, `~/.aws`, the dotfiles of
//! the home folder itself, the top of the tools' folders the denylist names, and the top of each
//! browser profile) are read once a call (a few hundred entries on a developer's machine), every
//! file the denylist denies is remembered by device and inode, and a path with more than one name
//! is looked up there. A file with one name cannot be another path's file, so most paths cost one
//! `stat`.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::Denylist;

/// Folders under the home folder that hold little but credentials, read to the bottom (bounded
/// by [`MOST_FILES`]).
const DEEP: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".config/gh",
    ".config/git",
    ".config/github-copilot",
    ".config/glab-cli",
    ".config/doctl",
    ".config/helm",
    ".config/rclone",
    ".config/pip",
    ".config/pypoetry",
    ".config/composer",
    ".config/gcloud/legacy_credentials",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".pki",
    ".password-store",
    ".subversion/auth",
    ".gcm",
    ".microsoft/usersecrets",
    ".local/share/uv/credentials",
    ".config/sops",
    ".config/op",
    ".config/Bitwarden CLI",
    ".oci",
    ".aliyun",
    ".tccli",
    ".cf",
    ".bluemix/.cf",
    ".config/hcloud",
    ".config/scw",
    ".config/openstack",
    ".config/argocd",
    ".argocd",
    ".talos",
    ".tsh",
    ".cloudflared",
    ".wrangler/config",
    ".config/.wrangler/config",
    ".fly",
    ".railway",
    ".supabase",
    ".netlify",
    ".config/netlify",
    ".local/share/com.vercel.cli",
    ".config/containers",
    ".config/stripe",
    ".config/ngrok",
    ".ngrok2",
    ".mc",
    ".doppler",
    ".chef",
    ".circleci",
    ".travis",
    ".dbt",
    ".kaggle",
    ".config/kaggle",
    ".config/io.datasette.llm",
    ".config/filezilla",
];

/// Folders where a tool keeps its credentials beside caches of thousands of files (`~/.cargo`'s
/// registry, `~/.m2`'s repository): only the files at their top are read.
const SHALLOW: &[&str] = &[
    ".cargo",
    ".m2",
    ".gradle",
    ".docker",
    ".kube",
    ".claude",
    ".codex",
    ".gemini",
    ".terraform.d",
    ".composer",
    ".config/gcloud",
    // `~/.config` itself holds some credentials as files (`hub`, `linode-cli`).
    ".config",
    ".config/configstore",
    ".bluemix",
    ".pulumi",
    ".snowflake",
    ".config/snowflake",
    ".snowsql",
    ".gem",
    ".local/share/gem",
    ".bundle",
    ".sbt",
    ".ivy2",
    ".cache/huggingface",
    ".huggingface",
    ".local/share/opencode",
    ".qwen",
    ".config/goose",
    ".continue",
    ".expo",
    ".render",
    ".purple",
    ".jfrog",
    ".config/pnpm",
    ".hex",
    ".config/hex",
    ".config/1Password",
    ".mlflow",
    ".android",
    ".fastlane/spaceship",
    ".cassandra",
    ".acme.sh",
    ".twilio-cli",
    ".config/remmina",
    ".local/share/remmina",
    ".config/Signal",
    "Library/Application Support/Signal",
    ".local/share/TelegramDesktop/tdata",
    ".secrets/certbot",
    ".clickhouse-client",
    ".config/MongoDB Compass/Connections",
    "Library/Application Support/MongoDB Compass/Connections",
    ".jupyter",
    ".local/share/jupyter/runtime",
    "Library/Jupyter/runtime",
];

/// Folders of browser and mail profiles (one subfolder a profile, with thousands of cache files
/// inside): their own files, each profile's top and its `Network` folder are read, where the
/// saved passwords, cookies and keys are.
const PROFILES: &[&str] = &[
    ".mozilla/firefox",
    "snap/firefox/common/.mozilla/firefox",
    ".thunderbird",
    ".librewolf",
    ".waterfox",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/chromium",
    ".config/microsoft-edge",
    ".config/BraveSoftware/Brave-Browser",
    ".config/vivaldi",
    ".config/opera",
];

/// The most files read, so a home folder of millions of files costs a bounded time.
const MOST_FILES: usize = 5_000;

/// The device and inode of each credential file of a home folder.
#[derive(Debug, Default, Clone)]
pub struct CredentialInodes(HashSet<(u64, u64)>);

impl CredentialInodes {
    /// Reads the credential files of the home folder `home`.
    pub fn of_home(home: &Path) -> Self {
        Self::of(&credential_files(home))
    }

    /// The credential files `files` (as [`credential_files`] found them), known by what they are.
    pub fn of(files: &[PathBuf]) -> Self {
        Self(
            files
                .iter()
                .filter_map(|path| std::fs::metadata(path).ok())
                .map(|meta| (meta.dev(), meta.ino()))
                .collect(),
        )
    }

    /// Whether `path` (links followed) is one of the credential files under another name.
    pub fn holds(&self, path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|m| m.nlink() > 1 && self.0.contains(&(m.dev(), m.ino())))
    }
}

/// The person's credential files under the home folder `home`, as the denylist judges them: its
/// own dotfiles (`.netrc`, `.pgpass`, histories), the top of the tools' folders, and the
/// credential folders to the bottom. Each is given as found (a link to a file included); at most
/// a fixed number of entries is read, so a huge home folder costs a bounded time.
pub fn credential_files(home: &Path) -> Vec<PathBuf> {
    let denylist = Denylist::standard();
    let mut found = Vec::new();
    let mut budget = MOST_FILES;
    let mut pending: Vec<(PathBuf, Reach)> = DEEP
        .iter()
        .map(|f| (home.join(f), Reach::All))
        .chain(SHALLOW.iter().map(|f| (home.join(f), Reach::Top)))
        .chain(PROFILES.iter().map(|f| (home.join(f), Reach::Profiles)))
        .chain(std::iter::once((home.to_path_buf(), Reach::Top)))
        .collect();
    while let Some((folder, reach)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if budget == 0 {
                return found;
            }
            budget -= 1;
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                match reach {
                    Reach::All => pending.push((path, Reach::All)),
                    Reach::Profiles => {
                        pending.push((path.join("Network"), Reach::Top));
                        pending.push((path, Reach::Top));
                    }
                    Reach::Top => {}
                }
                continue;
            }
            // A file, or a link to one (dotfiles often are): judged by its name here, known by
            // what it leads to by the callers.
            if std::fs::metadata(&path).is_ok_and(|meta| meta.is_file())
                && denylist.judge(&path, home).is_denied()
            {
                found.push(path);
            }
        }
    }
    found
}

/// How much of a folder [`credential_files`] reads.
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// The files at its top.
    Top,
    /// Everything in it.
    All,
    /// The files at its top, and at the top of each subfolder and of its `Network` folder.
    Profiles,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_to_a_credential_file_is_known_by_its_inode() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".pgpass"), "db:5432:*:me:hunter2\n").unwrap();
        std::fs::write(home.join(".ssh/config"), "Host *\n").unwrap();
        std::fs::write(home.join("notes.txt"), "notes\n").unwrap();
        let elsewhere = dir.path().join("repo");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::hard_link(home.join(".pgpass"), elsewhere.join("todo.txt")).unwrap();
        std::fs::hard_link(home.join(".ssh/config"), elsewhere.join("hosts.txt")).unwrap();
        std::fs::hard_link(home.join("notes.txt"), elsewhere.join("notes-copy.txt")).unwrap();
        let known = CredentialInodes::of_home(&home);
        assert!(known.holds(&elsewhere.join("todo.txt")));
        assert!(known.holds(&elsewhere.join("hosts.txt")));
        assert!(!known.holds(&elsewhere.join("notes-copy.txt")));
    }

    #[test]
    fn the_stores_of_more_tools_and_browser_profiles_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let files = [
            ".oci/config",
            ".config/hub",
            ".config/.wrangler/config/default.toml",
            ".mozilla/firefox/x7k2p9qa.default-release/logins.json",
            ".config/google-chrome/Default/Login Data",
            ".config/google-chrome/Default/Network/Cookies",
            ".config/google-chrome/Local State",
        ];
        let harmless = [
            ".config/google-chrome/Default/Bookmarks",
            ".mozilla/firefox/profiles.ini",
            ".config/user-dirs.dirs",
        ];
        for file in files.iter().chain(harmless.iter()) {
            let path = home.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
        }
        let found = credential_files(home);
        for file in files {
            assert!(found.contains(&home.join(file)), "{file} not in {found:?}");
        }
        for file in harmless {
            assert!(!found.contains(&home.join(file)), "{file} in {found:?}");
        }
    }
}
