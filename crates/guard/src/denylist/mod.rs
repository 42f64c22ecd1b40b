//! Paths that hold credentials, which an agent may neither read, write nor commit.
//!
//! A path is judged after normalisation: made absolute against a base folder, `.` and `..`
//! resolved lexically, repeated separators dropped, and matched without regard to case (so
//! `.ENV` on a case-insensitive disk is `.env`). A symbolic link, anywhere on the way, is also
//! judged by what it points to: a link named `notes.txt` that leads to `~/.ssh/id_rsa` is denied.
//! Templates (`.env.example`, `.sample`, `.template`, `.dist`, `.tpl`, `example.env`), public keys
//! (`*.pub`, `*public*.pem`) and the caches some tools keep beside their credentials are not
//! credentials. Some files are judged by what they hold when they exist (see
//! `rule_by_content`): a `*.pem` is denied only if it holds a private key, a `*.json` if it is a
//! cloud service-account key, a `*.conf` if it holds a WireGuard interface's or an inline
//! private key, and names a name cannot tell (a project's `auth.json`, a shell startup file) by
//! the credentials in them. Some names are denied until the file exists and then judged by what
//! it holds (see `DENIED_UNTIL_READ`): a Kubernetes `secret.yaml` with a value written out, a
//! Flask instance's `config.py` or a sketch's `arduino_secrets.h` with a secret assigned.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;

mod beneath;
mod gitconfig;
mod inodes;
mod known;
mod lookalike;

pub use beneath::credential_files_beneath;
pub use gitconfig::{git_config_holds_credentials, git_config_without_credentials, is_git_config};
pub use inodes::{CredentialInodes, credential_files};

use known::{DENIED, DENIED_UNTIL_READ, EXACT_NAMES, Holding, NOT_CREDENTIALS, is_template};

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
    denied_until_read: GlobSet,
    not_credentials: GlobSet,
}

impl Denylist {
    /// The standard list.
    pub fn standard() -> &'static Denylist {
        static LIST: OnceLock<Denylist> = OnceLock::new();
        LIST.get_or_init(|| Denylist {
            denied: glob_set(DENIED.iter().map(|(g, _)| *g)),
            denied_until_read: glob_set(DENIED_UNTIL_READ.iter().map(|(g, _, _)| *g)),
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

    /// The rule `path` falls under: by its name as given, by its name spelled plainly (see
    /// [`lookalike`]), by the name a backup or editor copy was made from (a name of
    /// [`DENIED_UNTIL_READ`] only while nothing of it can be read), or by what it holds.
    fn rule_for(&self, path: &Path) -> Option<String> {
        let folded = lookalike::fold(path);
        let originals = copied_from(&folded);
        // A copy of a template (`.env.example~`) is a template.
        if originals.iter().any(|o| self.is_not_credential(o)) {
            return None;
        }
        let names = [path.to_path_buf(), folded.clone()];
        for name in names.iter().chain(originals.iter()) {
            if let Some(rule) = self.rule_by_name(name) {
                return Some(rule);
            }
        }
        for name in names.iter().chain(originals.iter()) {
            if let Some(rule) = self.rule_until_read(name, path) {
                return Some(rule);
            }
        }
        rule_by_content(path)
    }

    /// The rule of [`DENIED_UNTIL_READ`] `name` falls under, for the file at `path`: by the name
    /// while the file does not exist (or cannot be read), by what it holds once it does.
    fn rule_until_read(&self, name: &Path, path: &Path) -> Option<String> {
        if self.is_not_credential(name) {
            return None;
        }
        let index = self.denied_until_read.matches(name).into_iter().next()?;
        let (glob, what, holding) = DENIED_UNTIL_READ[index];
        let Some(head) = head(path) else {
            return Some(format!("{glob} ({what})"));
        };
        holds(holding, &head).then(|| format!("{glob} ({what}), holding one"))
    }

    fn rule_by_name(&self, path: &Path) -> Option<String> {
        if self.is_not_credential(path) {
            return None;
        }
        if let Some(index) = self.denied.matches(path).into_iter().next() {
            let (glob, what) = DENIED[index];
            return Some(format!("{glob} ({what})"));
        }
        let name = path.file_name()?;
        let (exact, what) = EXACT_NAMES.iter().find(|(exact, _)| name == *exact)?;
        Some(format!("**/{exact} ({what})"))
    }

    /// Whether `path` is a template, a public half or a tool's harmless file, whatever its name
    /// also looks like.
    fn is_not_credential(&self, path: &Path) -> bool {
        self.not_credentials.is_match(path)
            || path
                .file_name()
                .is_some_and(|name| is_template(&name.to_string_lossy()))
    }
}

/// The suffixes backup and editor copies get (`id_rsa.bak`, `.env~`, `.env.swp`).
const COPY_SUFFIXES: &[&str] = &[
    "~", ".bak", ".orig", ".old", ".swp", ".swo", ".save", ".tmp",
];

/// The names the file at `path` may be a backup or editor copy of: each copy suffix taken off
/// (repeatedly: `id_rsa.bak~`), and vim's `.NAME.swp` read as `NAME`.
fn copied_from(path: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let mut name = name.to_string_lossy().into_owned();
    let mut originals = Vec::new();
    loop {
        let lower = name.to_ascii_lowercase();
        let Some(suffix) = COPY_SUFFIXES.iter().find(|s| lower.ends_with(**s)) else {
            break;
        };
        name.truncate(name.len() - suffix.len());
        if name.is_empty() {
            break;
        }
        originals.push(parent.join(&name));
        // vim's swap file of `.env` is `..env.swp`; of `id_rsa`, `.id_rsa.swp`.
        if let Some(hidden) = name.strip_prefix('.').filter(|n| !n.is_empty()) {
            originals.push(parent.join(hidden));
        }
    }
    originals
}

/// Shell startup files, where people export their tokens (`export GITHUB_TOKEN=...`): judged by
/// what they hold, since most hold only aliases and paths. `.extra` is the file dotfiles in the
/// manner of mathiasbynens/dotfiles source for what is kept out of the repository.
const SHELL_STARTUP: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".mkshrc",
    "config.fish",
    ".envrc",
    ".extra",
];

/// What an existing file's content says it is: a `*.pem` holding a private key, a `*.json`
/// cloud service-account key, a Kubernetes Secret manifest with a value written out, a Composer
/// `auth.json`, RabbitMQ's `definitions.json` with its users' password hashes, a `*.rdp` saving
/// its password, a `*.conf` or `*.netdev` holding a WireGuard interface's private key, a `*.conf`
/// holding a private key inline (an OpenVPN client's `<key>`, its `<tls-auth>` static key), a
/// shell startup file exporting a credential, or a file reached by one of several hard links that
/// holds a private key or cloud credentials (the same file as `~/.ssh/id_rsa`, under another
/// name).
fn rule_by_content(path: &Path) -> Option<String> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let by_type = matches!(
        extension.as_deref(),
        Some("pem" | "json" | "yaml" | "yml" | "conf" | "netdev" | "rdp")
    );
    let shell_startup = path
        .file_name()
        .is_some_and(|name| SHELL_STARTUP.iter().any(|s| name == *s));
    let linked = has_other_names(path);
    let git_config = gitconfig::is_git_config(path);
    if !by_type && !shell_startup && !linked && !git_config {
        return None;
    }
    // The file's start is read once, whatever is asked of it.
    let head = head(path)?;
    if shell_startup && !crate::scan::Scanner::global().scan(&head).is_empty() {
        return Some("a shell startup file holding a credential".to_owned());
    }
    if git_config && gitconfig::git_config_holds_credentials(&String::from_utf8_lossy(&head)) {
        return Some("a git configuration holding a credential".to_owned());
    }
    let holds = |needles: &[&[u8]]| {
        needles
            .iter()
            .any(|needle| memchr::memmem::find(&head, needle).is_some())
    };
    let rule = match extension.as_deref() {
        Some("pem") if holds(&[b"PRIVATE KEY-----"]) => Some("**/*.pem holding a private key"),
        Some("json") if holds(&[b"\"service_account\""]) && holds(&[b"\"private_key\""]) => {
            Some("**/*.json holding a service-account key")
        }
        Some("json")
            if path.file_name().is_some_and(|n| n == "auth.json")
                && holds(&[
                    b"\"http-basic\"",
                    b"\"github-oauth\"",
                    b"\"gitlab-token\"",
                    b"\"bearer\"",
                ]) =>
        {
            Some("**/auth.json holding Composer credentials")
        }
        Some("json")
            if path.file_name().is_some_and(|n| n == "definitions.json")
                && holds(&[b"\"password_hash\""]) =>
        {
            Some("**/definitions.json holding RabbitMQ's password hashes")
        }
        Some("yaml" | "yml") if is_kubernetes_secret(&head) => {
            Some("**/*.yaml holding a Kubernetes Secret")
        }
        Some("yml")
            if path
                .file_name()
                .is_some_and(|n| n.eq_ignore_ascii_case(".yarnrc.yml"))
                && yarnrc_holds_literal_auth(&head) =>
        {
            Some("**/.yarnrc.yml holding a registry's token")
        }
        Some("conf" | "netdev") if holds_wireguard_key(&head) => {
            Some("**/*.conf holding a WireGuard private key")
        }
        Some("conf") if holds(&[b"PRIVATE KEY-----", b"-----BEGIN OpenVPN Static key"]) => {
            Some("**/*.conf holding a private key")
        }
        Some("rdp") if rdp_holds_password(&head) => Some("**/*.rdp holding a saved password"),
        _ => None,
    };
    if let Some(rule) = rule {
        return Some(rule.to_owned());
    }
    if linked
        && holds(&[
            b"PRIVATE KEY-----",
            b"PuTTY-User-Key-File",
            b"aws_secret_access_key",
        ])
    {
        return Some(
            "a file with several names (hard links) holding a private key or cloud credentials"
                .to_owned(),
        );
    }
    None
}

/// Whether a file's start `head` holds what `holding` asks for.
fn holds(holding: Holding, head: &[u8]) -> bool {
    match holding {
        Holding::KubernetesSecret => is_kubernetes_secret(head),
        Holding::LiteralSecret => holds_literal_secret(head),
    }
}

/// Whether a source or configuration file's start `head` holds a secret written out: a private
/// key, anything the scanner finds, or a name for a secret (one with `PASS`, `PSK`, `SECRET`,
/// `TOKEN` or `PRIVATE` in it, or ending in `KEY`) defined or assigned as a string literal that
/// is neither empty nor a placeholder (`#define SECRET_PASS "..."`, `SECRET_KEY = '...'`,
/// `const char* WIFI_PASSWORD = "...";`). One read from elsewhere (`os.environ[...]`,
/// `SECRET_SSID`) writes nothing out.
fn holds_literal_secret(head: &[u8]) -> bool {
    if memchr::memmem::find(head, b"PRIVATE KEY-----").is_some()
        || !crate::scan::Scanner::global().scan(head).is_empty()
    {
        return true;
    }
    String::from_utf8_lossy(head).lines().any(|line| {
        let line = line.trim();
        let (name, value) = if let Some(rest) = line.strip_prefix("#define") {
            let rest = rest.trim_start();
            rest.split_once(char::is_whitespace).unwrap_or((rest, ""))
        } else {
            match line.split_once('=') {
                // The assigned name is the left side's last word but an attribute
                // (`static const char SECRET_PASS[] PROGMEM = "..."`).
                Some((left, right)) if !right.starts_with('=') => (
                    left.rsplit([' ', '\t', '*', '&'])
                        .find(|word| !word.is_empty() && *word != "PROGMEM")
                        .unwrap_or_default(),
                    right,
                ),
                _ => return false,
            }
        };
        let name = name.trim().trim_end_matches("[]").to_ascii_uppercase();
        let secret_name = ["PASS", "PSK", "SECRET", "TOKEN", "PRIVATE"]
            .iter()
            .any(|word| name.contains(word))
            || name.ends_with("KEY");
        secret_name && string_literal(value).is_some_and(|literal| !is_placeholder(literal))
    })
}

/// The text of the string literal `value` starts with (`"..."`, `'...'`, a prefixed `r'...'` or
/// `b"..."`, C++'s `R"(...)"`, a `PROGMEM` array's), when it starts with one.
fn string_literal(value: &str) -> Option<&str> {
    let value = value.trim_start();
    let value = value
        .strip_prefix(['r', 'R', 'b', 'B', 'u', 'U', 'f', 'F', 'L'])
        .filter(|rest| rest.starts_with(['"', '\'']))
        .unwrap_or(value);
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &value[1..];
    Some(body.find(quote).map_or(body, |end| &body[..end]))
}

/// Whether a literal is empty or stands for a value to be filled in (`""`, `"YOUR_PASSWORD"`,
/// `"<token>"`, `"changeme"`, `"xxxxxxxx"`).
fn is_placeholder(literal: &str) -> bool {
    let lower = literal.trim().to_ascii_lowercase();
    lower.is_empty()
        || lower.starts_with('<')
        || [
            "your",
            "xxx",
            "changeme",
            "change-me",
            "change_me",
            "placeholder",
            "replace",
        ]
        .iter()
        .any(|word| lower.contains(word))
}

/// Whether the file at `path` has more than one name (hard links).
fn has_other_names(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

/// Whether a Yarn Berry configuration's start `head` holds a registry's token or credentials
/// written out (`npmAuthToken: npm_...`, `npmAuthIdent: "me:pass"`, at the top or under a scope
/// or registry), rather than read from the environment (`npmAuthToken: "${NPM_TOKEN}"`), as a
/// repository's own file reads them. A reference with a default (`${NPM_TOKEN:-npm_...}`) writes
/// its default out.
fn yarnrc_holds_literal_auth(head: &[u8]) -> bool {
    String::from_utf8_lossy(head).lines().any(|line| {
        let Some((key, value)) = line.trim().split_once(':') else {
            return false;
        };
        let key = key.trim().trim_matches(['"', '\'']);
        if !key.eq_ignore_ascii_case("npmAuthToken") && !key.eq_ignore_ascii_case("npmAuthIdent") {
            return false;
        }
        let value = value.split(" #").next().unwrap_or_default();
        let value = value.trim().trim_matches(['"', '\'']);
        written_out(value)
    })
}

/// Whether `value` holds anything but references to environment variables without a default
/// (`${NPM_USER}:${NPM_PASSWORD}` holds nothing else; `${NPM_TOKEN-abc}` holds `abc`).
fn written_out(value: &str) -> bool {
    let mut rest = value;
    let mut left = String::new();
    while let Some(start) = rest.find("${") {
        left.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            left.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &rest[start + 2..start + end];
        if let Some(default) = inner.find('-').map(|i| &inner[i + 1..]) {
            left.push_str(default);
        }
        rest = &rest[start + end + 1..];
    }
    left.push_str(rest);
    left.chars().any(|c| c.is_ascii_alphanumeric())
}

/// Whether a Remote Desktop file's start `head` saves the password (`password 51:b:` and the
/// DPAPI blob, which the account that saved it decrypts), in UTF-16 as mstsc writes it or in
/// UTF-8; most `*.rdp` files, as a gateway or a portal hands them out, hold none.
fn rdp_holds_password(head: &[u8]) -> bool {
    let text = match head {
        [0xFF, 0xFE, rest @ ..] => {
            let units: Vec<u16> = rest
                .chunks_exact(2)
                .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        _ => String::from_utf8_lossy(head).into_owned(),
    };
    text.lines().any(|line| {
        let line = line.trim().to_ascii_lowercase();
        line.strip_prefix("password 51:b:")
            .is_some_and(|blob| !blob.trim().is_empty())
    })
}

/// Whether a configuration's start `head` is a WireGuard interface's with its private key:
/// wg-quick's `[Interface]` or systemd-networkd's `[WireGuard]` section, and a `PrivateKey =`
/// line with a value (one that names a `PrivateKeyFile` or sets the key in `PostUp` holds none).
fn holds_wireguard_key(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut section = false;
    let mut key = false;
    for line in text.lines().map(str::trim) {
        if line.eq_ignore_ascii_case("[interface]") || line.eq_ignore_ascii_case("[wireguard]") {
            section = true;
        } else if let Some((name, value)) = line.split_once('=') {
            key |= name.trim().eq_ignore_ascii_case("privatekey") && !value.trim().is_empty();
        }
    }
    section && key
}

/// Whether a YAML file's start `head` is a Kubernetes Secret manifest's with a value written out:
/// a document of `kind: Secret` with a value under `data:` or `stringData:`. A Sealed Secret,
/// encrypted by design, is not; nor a Helm template's, whose values are rendered (`{{ }}`), nor
/// a Secret that holds none (a service account's token, filled in by the cluster).
fn is_kubernetes_secret(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    // The indentation of the `data:` or `stringData:` whose values are being read.
    let mut values_at: Option<usize> = None;
    let (mut secret, mut value) = (false, false);
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.starts_with("---") {
            if secret && value {
                return true;
            }
            (secret, value, values_at) = (false, false, None);
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some(at) = values_at {
            if indent > at {
                value |= trimmed
                    .split_once(':')
                    .is_some_and(|(_, v)| written_value(v));
                continue;
            }
            values_at = None;
        }
        if matches!(
            trimmed,
            "kind: Secret" | "kind: \"Secret\"" | "kind: 'Secret'"
        ) {
            secret = true;
        }
        let rest = trimmed
            .strip_prefix("data:")
            .or_else(|| trimmed.strip_prefix("stringData:"));
        match rest.map(str::trim) {
            Some("") => values_at = Some(indent),
            Some(inline) => {
                value |= inline
                    .trim_matches(['{', '}'])
                    .split(',')
                    .any(|pair| pair.split_once(':').is_some_and(|(_, v)| written_value(v)));
            }
            None => {}
        }
    }
    secret && value
}

/// Whether a YAML value is written out: not empty and not rendered by a template (`{{ }}`); a
/// block scalar (`|`, `>`) holds its value on the lines below.
fn written_value(value: &str) -> bool {
    let value = value.trim().trim_matches(['"', '\'']);
    !value.is_empty() && !value.contains("{{")
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

/// The first 64 KiB of the file at `path`, when it can be read.
fn head(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut head = Vec::new();
    file.take(64 * 1024).read_to_end(&mut head).ok()?;
    Some(head)
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

    #[test]
    fn the_credential_stores_people_really_have_are_denied() {
        for path in [
            // Found missing before.
            "/home/me/.cargo/credentials.toml",
            "/home/me/.config/git/credentials",
            "/home/me/.pgpass",
            "/home/me/.my.cnf",
            "/home/me/.azure/msal_token_cache.json",
            "/home/me/.aws/sso/cache/0a1b2c.json",
            "/home/me/.aws/cli/cache/0a1b2c.json",
            "/home/me/.m2/settings.xml",
            "/home/me/.s3cfg",
            "/home/me/.boto",
            "/home/me/.config/rclone/rclone.conf",
            "/home/me/.gradle/gradle.properties",
            "/home/me/.composer/auth.json",
            "/home/me/.dockercfg",
            "prod.env",
            "config/secrets.env",
            ".env~",
            "/home/me/.ssh/id_rsa.bak",
            "deploy/server.key.bak",
            ".env.orig",
            "id_ed25519.old",
            "..env.swp",
            ".id_rsa.swp",
            ".npmrc.save",
            // Agent tools.
            "/home/me/.claude/.credentials.json",
            "/home/me/.codex/auth.json",
            "/home/me/.gemini/oauth_creds.json",
            "/home/me/.config/github-copilot/hosts.json",
            "/home/me/.config/glab-cli/config.yml",
            "/home/me/.config/hub",
            "/home/me/.config/gh/hosts.yml",
            // Cloud, infrastructure, packages, databases, shells, the system.
            "/home/me/.databrickscfg",
            "/home/me/.terraform.d/credentials.tfrc.json",
            "/home/me/.config/doctl/config.yaml",
            "/home/me/.config/helm/registry/config.json",
            "/home/me/.config/pypoetry/auth.toml",
            "/home/me/.nuget/NuGet/NuGet.Config",
            "/home/me/.bash_history",
            "/home/me/.zsh_history",
            "/home/me/.local/share/fish/fish_history",
            "/home/me/.psql_history",
            "/etc/shadow",
            "/proc/1/environ",
            "/proc/self/cmdline",
            "/proc/42/task/43/environ",
            "/home/me/Library/Keychains/login.keychain-db",
            "/home/me/.local/share/keyrings/login.keyring",
        ] {
            assert_eq!(verdict(path), PathVerdict::Deny, "{path}");
        }
        for path in [
            ".env.example",
            ".env.example~",
            "prod.env.sample",
            "notes.bak",
            "src/environment.rs",
            "history.md",
            "/etc/hostname",
            "/proc/cpuinfo",
        ] {
            assert_eq!(verdict(path), PathVerdict::Allow, "{path}");
        }
    }

    #[test]
    fn look_alike_names_are_judged_as_what_they_look_like() {
        for path in [
            "．ｅｎｖ",
            ".\u{0435}nv",
            ".e\u{200B}nv",
            ".env.",
            ".env ",
            ".env::$DATA",
            "id_rs\u{0430}",
            "C:\\Users\\me\\.ssh\\id_ed25519",
            "C:\\Users\\me\\_netrc",
        ] {
            assert_eq!(verdict(path), PathVerdict::Deny, "{path:?}");
        }
    }

    #[test]
    fn a_file_is_judged_by_what_it_is_not_only_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        let ssh = base.join("home/.ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(
            ssh.join("id_rsa"),
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n",
        )
        .unwrap();
        std::fs::hard_link(ssh.join("id_rsa"), base.join("notes.txt")).unwrap();
        std::fs::write(
            base.join("secret.yaml"),
            "apiVersion: v1\nkind: Secret\ndata:\n  token: c2VjcmV0\n",
        )
        .unwrap();
        std::fs::write(
            base.join("sealed.yaml"),
            "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData: {}\n",
        )
        .unwrap();
        std::fs::write(base.join("plain.txt"), "just notes").unwrap();
        std::fs::hard_link(base.join("plain.txt"), base.join("plain-again.txt")).unwrap();
        let list = Denylist::standard();
        assert!(list.judge(Path::new("notes.txt"), base).is_denied());
        assert!(list.judge(Path::new("secret.yaml"), base).is_denied());
        assert!(!list.judge(Path::new("sealed.yaml"), base).is_denied());
        assert!(!list.judge(Path::new("plain-again.txt"), base).is_denied());
    }

    #[test]
    fn a_value_read_from_the_environment_writes_nothing_out() {
        for value in [
            "${NPM_TOKEN}",
            "${NPM_USER}:${NPM_PASSWORD}",
            "${NPM_TOKEN:-}",
            "",
        ] {
            assert!(!written_out(value), "{value}");
        }
        for value in [
            "npm_aB3dE5",
            "${NPM_TOKEN:-npm_aB3dE5}",
            "ci:${NPM_PASSWORD}",
            "${X",
        ] {
            assert!(written_out(value), "{value}");
        }
    }

    #[test]
    fn a_shell_startup_file_is_denied_when_it_exports_a_credential() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z4A");
        std::fs::write(
            base.join(".zshrc"),
            format!("alias ll='ls -l'\nexport GITHUB_TOKEN={token}\n"),
        )
        .unwrap();
        std::fs::write(
            base.join(".bashrc"),
            "alias ll='ls -l'\nexport PATH=$HOME/bin:$PATH\n",
        )
        .unwrap();
        std::fs::create_dir(base.join("project")).unwrap();
        std::fs::write(
            base.join("project/.envrc"),
            format!("export STRIPE_KEY=sk_live_{}\n", "a1B2c3D4e5F6g7H8i9J0kLmN"),
        )
        .unwrap();
        std::fs::write(
            base.join(".extra"),
            format!("GIT_AUTHOR_NAME=me\nexport GITHUB_TOKEN={token}\n"),
        )
        .unwrap();
        std::fs::write(base.join("project/.extra"), "GIT_AUTHOR_NAME=me\n").unwrap();
        let list = Denylist::standard();
        let zshrc = list.judge(Path::new(".zshrc"), base);
        assert!(zshrc.is_denied());
        assert!(zshrc.rule.unwrap().contains("shell startup"));
        assert!(list.judge(Path::new("project/.envrc"), base).is_denied());
        assert!(list.judge(Path::new(".extra"), base).is_denied());
        assert!(!list.judge(Path::new("project/.extra"), base).is_denied());
        assert!(!list.judge(Path::new(".bashrc"), base).is_denied());
        assert!(!list.judge(Path::new("missing/.profile"), base).is_denied());
    }
}
