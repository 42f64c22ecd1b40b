//! Paths that hold credentials, which an agent may neither read, write nor commit.
//!
//! A path is judged after normalisation: made absolute against a base folder, `.` and `..`
//! resolved lexically, repeated separators dropped, and matched without regard to case (so
//! `.ENV` on a case-insensitive disk is `.env`). A symbolic link, anywhere on the way, is also
//! judged by what it points to: a link named `notes.txt` that leads to `~/.ssh/id_rsa` is denied.
//! Templates (`.env.example`, `.sample`, `.template`, `.dist`) and public keys (`*.pub`) are not
//! credentials. Two kinds of file are judged by what they hold when they exist: a `*.pem` is
//! denied only if it holds a private key, and a `*.json` is denied if it is a cloud
//! service-account key.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;

/// (glob, what it is), matched against the whole normalised path.
const DENIED: &[(&str, &str)] = &[
    ("**/.env", "an environment file"),
    ("**/.env.*", "an environment file"),
    ("**/.envrc", "a direnv file"),
    ("**/id_rsa", "an SSH private key"),
    ("**/id_dsa", "an SSH private key"),
    ("**/id_ecdsa", "an SSH private key"),
    ("**/id_ed25519", "an SSH private key"),
    ("**/id_ecdsa_sk", "an SSH private key"),
    ("**/id_ed25519_sk", "an SSH private key"),
    ("**/.ssh/**", "a file of an SSH folder"),
    ("**/*.key", "a private key file"),
    ("**/*.p12", "a PKCS#12 key store"),
    ("**/*.pfx", "a PKCS#12 key store"),
    ("**/*.jks", "a Java key store"),
    ("**/*.keystore", "a key store"),
    ("**/*.ppk", "a PuTTY private key"),
    ("**/.netrc", "a netrc file"),
    ("**/_netrc", "a netrc file"),
    ("**/.git-credentials", "git's stored credentials"),
    ("**/.npmrc", "an npm configuration (it carries tokens)"),
    ("**/.pypirc", "a PyPI configuration (it carries tokens)"),
    ("**/.yarnrc.yml", "a Yarn configuration (it carries tokens)"),
    ("**/.gem/credentials", "RubyGems credentials"),
    ("**/.aws/credentials", "AWS credentials"),
    ("**/.docker/config.json", "Docker registry credentials"),
    ("**/.kube/config", "a kubeconfig"),
    ("**/kubeconfig", "a kubeconfig"),
    ("**/*.kubeconfig", "a kubeconfig"),
    ("**/credentials.json", "a credentials file"),
    ("**/client_secret*.json", "an OAuth client secret"),
    ("**/service-account*.json", "a service-account key"),
    ("**/.config/gcloud/**", "gcloud credentials"),
    ("**/.config/gh/hosts.yml", "GitHub CLI tokens"),
    ("**/.vault-token", "a Vault token"),
    ("**/.gnupg/**", "a GnuPG folder"),
    ("**/.password-store/**", "a password store"),
    ("**/.htpasswd", "an htpasswd file"),
    ("**/*.tfstate", "Terraform state (it holds secrets)"),
    ("**/*.tfstate.backup", "Terraform state (it holds secrets)"),
    ("**/*.tfvars", "Terraform variables (they hold secrets)"),
    ("**/.terraformrc", "Terraform CLI credentials"),
    ("**/terraform.rc", "Terraform CLI credentials"),
];

/// Names that are templates or public halves, never credentials.
const NOT_CREDENTIALS: &[&str] = &[
    "**/*.example",
    "**/*.sample",
    "**/*.template",
    "**/*.dist",
    "**/*.pub",
    "**/.ssh/known_hosts",
    "**/.ssh/known_hosts.old",
];

/// The verdict on one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathVerdict {
    /// An agent may not read, write or commit it.
    Deny,
    /// Not a credential file.
    Allow,
}

/// A path judged, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judged {
    /// The path as given.
    pub path: PathBuf,
    /// The path as judged: absolute and normalised.
    pub normalised: PathBuf,
    /// Where a symbolic link on the way leads, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<PathBuf>,
    /// The verdict.
    pub verdict: PathVerdict,
    /// The rule that denied it (the glob and what it names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl Judged {
    /// Whether the path is denied.
    pub fn is_denied(&self) -> bool {
        self.verdict == PathVerdict::Deny
    }
}

/// The credential-file denylist.
pub struct Denylist {
    denied: GlobSet,
    not_credentials: GlobSet,
}

impl Denylist {
    /// The standard list.
    pub fn standard() -> &'static Denylist {
        static LIST: OnceLock<Denylist> = OnceLock::new();
        LIST.get_or_init(|| Denylist {
            denied: glob_set(DENIED.iter().map(|(g, _)| *g)),
            not_credentials: glob_set(NOT_CREDENTIALS.iter().copied()),
        })
    }

    /// Judges `path`, relative paths against `base`.
    pub fn judge(&self, path: &Path, base: &Path) -> Judged {
        let normalised = normalise(&base.join(path));
        let target = resolve_links(&normalised).filter(|t| *t != normalised);
        let rule = self
            .rule_for(&normalised)
            .or_else(|| target.as_deref().and_then(|t| self.rule_for(t)));
        Judged {
            path: path.to_path_buf(),
            normalised,
            target,
            verdict: if rule.is_some() {
                PathVerdict::Deny
            } else {
                PathVerdict::Allow
            },
            rule,
        }
    }

    fn rule_for(&self, path: &Path) -> Option<String> {
        if self.not_credentials.is_match(path) {
            return None;
        }
        if let Some(index) = self.denied.matches(path).first() {
            let (glob, what) = DENIED[*index];
            return Some(format!("{glob} ({what})"));
        }
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("pem") if head_contains(path, &[b"PRIVATE KEY-----"]) => {
                Some("**/*.pem holding a private key".to_owned())
            }
            Some("json")
                if head_contains(path, &[b"\"service_account\""])
                    && head_contains(path, &[b"\"private_key\""]) =>
            {
                Some("**/*.json holding a service-account key".to_owned())
            }
            _ => None,
        }
    }
}

fn glob_set<'a>(globs: impl Iterator<Item = &'a str>) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(
            GlobBuilder::new(glob)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .expect("the denylist's globs are valid"),
        );
    }
    builder.build().expect("the denylist builds")
}

/// Makes `path` lexically normal: `.` dropped, `..` applied, separators single.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Where `path` really leads when a symbolic link is on the way: each existing component that
/// is a link is replaced by what it points to, even when that does not exist (a dangling link to
/// `~/.ssh/id_rsa` is still judged as that path). `None` when nothing of it exists.
fn resolve_links(path: &Path) -> Option<PathBuf> {
    const MAX_LINKS: usize = 40;
    let mut resolved = PathBuf::new();
    let mut pending: Vec<std::ffi::OsString> = path
        .components()
        .rev()
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    let mut links = 0;
    let mut touched_disk = false;
    while let Some(component) = pending.pop() {
        let candidate = resolved.join(&component);
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return None;
                }
                touched_disk = true;
                let target = std::fs::read_link(&candidate).ok()?;
                let absolute = normalise(&resolved.join(target));
                // Start again from the link's target, then the rest of the path.
                resolved = PathBuf::new();
                pending.extend(
                    absolute
                        .components()
                        .rev()
                        .map(|c| c.as_os_str().to_os_string()),
                );
            }
            Ok(_) => {
                touched_disk = true;
                resolved = candidate;
            }
            Err(_) => resolved = normalise(&candidate),
        }
    }
    touched_disk.then_some(resolved)
}

/// Whether the first 64 KiB of the file at `path` contain one of `needles`.
fn head_contains(path: &Path, needles: &[&[u8]]) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(64 * 1024).read_to_end(&mut head).is_err() {
        return false;
    }
    needles
        .iter()
        .any(|needle| memchr::memmem::find(&head, needle).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(path: &str) -> PathVerdict {
        Denylist::standard()
            .judge(Path::new(path), Path::new("/work/repo"))
            .verdict
    }

    #[test]
    fn credential_files_are_denied_and_look_alikes_are_not() {
        for path in [
            ".env",
            ".env.local",
            "config/.env.production",
            "/home/me/.ssh/id_rsa",
            "id_ed25519",
            "deploy/server.key",
            "certs/client.p12",
            "store.pfx",
            ".netrc",
            ".git-credentials",
            ".npmrc",
            "pkg/.pypirc",
            "/home/me/.aws/credentials",
            "/home/me/.docker/config.json",
            "/home/me/.kube/config",
            "kubeconfig",
            "credentials.json",
            "infra/prod.tfstate",
            "/home/me/.ssh/config",
        ] {
            assert_eq!(verdict(path), PathVerdict::Deny, "{path}");
        }
        for path in [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".env.dist",
            "id_rsa.pub",
            "/home/me/.ssh/known_hosts",
            "src/environment.rs",
            "keys.md",
            "docs/env.md",
            "monkey.txt",
            "package.json",
            "README.md",
        ] {
            assert_eq!(verdict(path), PathVerdict::Allow, "{path}");
        }
    }

    #[test]
    fn paths_are_judged_after_normalisation_and_without_case() {
        for path in [
            "src/../.env",
            "./src/./../.ENV",
            "src//..//.Env.Local",
            "a/b/../../.NETRC",
        ] {
            assert_eq!(verdict(path), PathVerdict::Deny, "{path}");
        }
        assert_eq!(normalise(Path::new("/a/./b//../c")), PathBuf::from("/a/c"));
    }

    #[test]
    fn a_link_is_judged_by_what_it_points_to() {
        let dir = tempfile::tempdir().unwrap();
        let ssh = dir.path().join("home/.ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(ssh.join("id_rsa"), "key").unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        std::os::unix::fs::symlink(ssh.join("id_rsa"), repo.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(&ssh, repo.join("docs")).unwrap();
        let list = Denylist::standard();
        let judged = list.judge(Path::new("notes.txt"), &repo);
        assert!(judged.is_denied(), "{judged:?}");
        assert!(judged.target.unwrap().ends_with(".ssh/id_rsa"));
        // A folder link on the way, to a file that does not exist yet.
        assert!(list.judge(Path::new("docs/new-key"), &repo).is_denied());
        // A dangling link to a credential file is judged by where it points.
        std::os::unix::fs::symlink(
            dir.path().join("gone/.ssh/id_ed25519"),
            repo.join("todo.txt"),
        )
        .unwrap();
        assert!(list.judge(Path::new("todo.txt"), &repo).is_denied());
        // A plain file is allowed.
        std::fs::write(repo.join("plain.txt"), "x").unwrap();
        assert!(!list.judge(Path::new("plain.txt"), &repo).is_denied());
    }

    #[test]
    fn pem_and_json_files_are_judged_by_what_they_hold() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        std::fs::write(base.join("cert.pem"), "-----BEGIN CERTIFICATE-----\nMIIB\n").unwrap();
        std::fs::write(
            base.join("key.pem"),
            "-----BEGIN EC PRIVATE KEY-----\nMHcC\n",
        )
        .unwrap();
        std::fs::write(
            base.join("shop-4f2a.json"),
            r#"{"type": "service_account", "private_key": "..."}"#,
        )
        .unwrap();
        std::fs::write(base.join("data.json"), r#"{"type": "record"}"#).unwrap();
        let list = Denylist::standard();
        assert!(!list.judge(Path::new("cert.pem"), base).is_denied());
        assert!(list.judge(Path::new("key.pem"), base).is_denied());
        assert!(list.judge(Path::new("shop-4f2a.json"), base).is_denied());
        assert!(!list.judge(Path::new("data.json"), base).is_denied());
    }
}
