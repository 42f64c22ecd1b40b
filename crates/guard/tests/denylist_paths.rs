//! How often the credential-file denylist is right on realistic paths: the stores where tools
//! keep credentials, and files that only share a name with one. The sets live in
//! `tests/denylist_paths/`: `tuning.txt`, written from the tools' documentation, which the rules
//! must judge without a miss; `held_out.txt`, written before any rule changed and measured before
//! and after, which they must judge right at least 95% of the time; and `others_*.txt`, drawn
//! from other projects' lists of credential stores, each measured once before its misses were
//! turned into rules. Each test prints its accuracy and every miss
//! (`cargo test -p nodwyn-guard --test denylist_paths -- --nocapture`).

// The measure's report is what this test is read for.
#![allow(clippy::print_stdout)]

use std::path::Path;

use nodwyn_guard::Denylist;

/// Relative paths are judged inside this repository (which does not exist, so every path is
/// judged by its name alone).
const REPOSITORY: &str = "/nodwyn-denylist-measure/repo";

/// One line of a set: whether the path should be denied, and the path.
struct Case {
    deny: bool,
    path: String,
}

/// The cases of a set's text: `deny PATH` or `allow PATH` a line, `#` comments and blank lines
/// skipped. A malformed line fails the test, naming it.
fn cases(set: &str, text: &str) -> Vec<Case> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(number, line)| {
            let (verdict, path) = line
                .trim()
                .split_once(' ')
                .unwrap_or_else(|| panic!("{set}:{}: no path", number + 1));
            let deny = match verdict {
                "deny" => true,
                "allow" => false,
                other => panic!("{set}:{}: `{other}` is neither deny nor allow", number + 1),
            };
            Case {
                deny,
                path: path.trim().to_owned(),
            }
        })
        .collect()
}

/// What the denylist made of a set.
struct Measure {
    credentials: usize,
    benign: usize,
    /// Credential paths the denylist allowed.
    allowed: Vec<String>,
    /// Benign paths it denied, with the rule that did.
    denied: Vec<(String, String)>,
}

impl Measure {
    fn of(set: &str, text: &str) -> Measure {
        let list = Denylist::standard();
        let mut measure = Measure {
            credentials: 0,
            benign: 0,
            allowed: Vec::new(),
            denied: Vec::new(),
        };
        for case in cases(set, text) {
            let judged = list.judge(Path::new(&case.path), Path::new(REPOSITORY));
            if case.deny {
                measure.credentials += 1;
                if !judged.is_denied() {
                    measure.allowed.push(case.path);
                }
            } else {
                measure.benign += 1;
                if judged.is_denied() {
                    measure
                        .denied
                        .push((case.path, judged.rule.unwrap_or_default()));
                }
            }
        }
        measure
    }

    fn accuracy(&self) -> f64 {
        let total = self.credentials + self.benign;
        let right = total - self.allowed.len() - self.denied.len();
        100.0 * right as f64 / total as f64
    }

    /// Prints the accuracy and every miss.
    fn report(&self, set: &str) {
        println!(
            "{set}: {:.1}% right of {} paths: {} of {} credential paths allowed, {} of {} benign paths denied",
            self.accuracy(),
            self.credentials + self.benign,
            self.allowed.len(),
            self.credentials,
            self.denied.len(),
            self.benign,
        );
        for path in &self.allowed {
            println!("  allowed  {path}");
        }
        for (path, rule) in &self.denied {
            println!("  denied   {path}  by {rule}");
        }
    }
}

#[test]
fn the_tuning_set_is_judged_without_a_miss() {
    let measure = Measure::of("tuning.txt", include_str!("denylist_paths/tuning.txt"));
    measure.report("tuning");
    assert!(
        measure.allowed.is_empty() && measure.denied.is_empty(),
        "the tuning set has misses (printed above)"
    );
}

#[test]
fn the_held_out_set_is_judged_right_at_least_95_percent_of_the_time() {
    let measure = Measure::of("held_out.txt", include_str!("denylist_paths/held_out.txt"));
    measure.report("held out");
    assert!(
        measure.accuracy() >= 95.0,
        "{:.1}% on the held-out set (misses printed above)",
        measure.accuracy()
    );
}

/// The sets drawn from other projects' lists of credential stores, in the order they were
/// written, with the accuracy each keeps after its misses were turned into rules for whole
/// classes: at least 95%, and for the last four what each reached then (the sixth was first
/// measured at 72.5%, the seventh at 88.6%, the eighth at 79.3%, the ninth at 89.4%, the tenth at
/// 91.6%, the eleventh at 93.2%, the twelfth at 78.2%, the thirteenth at 92.9%, the fourteenth
/// at 93.7%).
const OTHERS: &[(&str, &str, f64)] = &[
    (
        "others_2_lazagne_linpeas.txt",
        include_str!("denylist_paths/others_2_lazagne_linpeas.txt"),
        95.0,
    ),
    (
        "others_3_browsers_windows_repositories.txt",
        include_str!("denylist_paths/others_3_browsers_windows_repositories.txt"),
        95.0,
    ),
    (
        "others_4_gitignore_servers.txt",
        include_str!("denylist_paths/others_4_gitignore_servers.txt"),
        95.0,
    ),
    (
        "others_5_shhgit.txt",
        include_str!("denylist_paths/others_5_shhgit.txt"),
        95.0,
    ),
    (
        "others_6_snaffler.txt",
        include_str!("denylist_paths/others_6_snaffler.txt"),
        100.0,
    ),
    (
        "others_7_tools_docs.txt",
        include_str!("denylist_paths/others_7_tools_docs.txt"),
        95.8,
    ),
    (
        "others_8_apps_servers.txt",
        include_str!("denylist_paths/others_8_apps_servers.txt"),
        97.8,
    ),
    (
        "others_9_developers.txt",
        include_str!("denylist_paths/others_9_developers.txt"),
        96.8,
    ),
    (
        "others_10_untuned.txt",
        include_str!("denylist_paths/others_10_untuned.txt"),
        97.3,
    ),
    (
        "others_11_blind.txt",
        include_str!("denylist_paths/others_11_blind.txt"),
        97.9,
    ),
    (
        "others_12_blind.txt",
        include_str!("denylist_paths/others_12_blind.txt"),
        98.4,
    ),
    (
        "others_13_blind.txt",
        include_str!("denylist_paths/others_13_blind.txt"),
        98.5,
    ),
    (
        "others_14_blind.txt",
        include_str!("denylist_paths/others_14_blind.txt"),
        97.5,
    ),
    (
        "others_15_blind.txt",
        include_str!("denylist_paths/others_15_blind.txt"),
        96.1,
    ),
];

#[test]
fn the_sets_from_other_projects_lists_keep_their_measure() {
    let mut below = Vec::new();
    for (set, text, least) in OTHERS {
        let measure = Measure::of(set, text);
        measure.report(set);
        if measure.accuracy() < *least {
            below.push(format!(
                "{set}: {:.1}% (at least {least}%)",
                measure.accuracy()
            ));
        }
    }
    assert!(below.is_empty(), "below their measure: {below:?}");
}

/// Where a name cannot tell (a project's `auth.json` beside a translation table of that name, a
/// `.pem` that is a certificate or a key), an existing file is judged by what it holds.
#[test]
fn files_a_name_cannot_tell_are_judged_by_what_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    std::fs::create_dir_all(base.join("src/locales/en")).unwrap();
    std::fs::create_dir_all(base.join("certs")).unwrap();
    std::fs::create_dir_all(base.join("vpn")).unwrap();
    std::fs::create_dir_all(base.join("web")).unwrap();
    std::fs::create_dir_all(base.join("docs")).unwrap();
    std::fs::create_dir_all(base.join("deploy")).unwrap();
    let files = [
        (
            "auth.json",
            r#"{"http-basic": {"repo.example.com": {"username": "me", "password": "hunter2"}}}"#,
            true,
        ),
        (
            "src/locales/en/auth.json",
            r#"{"login": "Log in", "logout": "Log out"}"#,
            false,
        ),
        (
            "certs/dev.pem",
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n",
            true,
        ),
        (
            "certs/localhost.pem",
            "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAw\n-----END CERTIFICATE-----\n",
            false,
        ),
        // A repository's Yarn configuration with a token written out, at the top or under a
        // scope; one that reads its tokens from the environment.
        (
            ".yarnrc.yml",
            "nodeLinker: node-modules\nnpmAuthToken: npm_aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z4A\n",
            true,
        ),
        (
            "web/.yarnrc.yml",
            "npmScopes:\n  acme:\n    npmRegistryServer: \"https://npm.acme.example\"\n    npmAuthIdent: \"ci:hunter2\"\n",
            true,
        ),
        (
            "docs/.yarnrc.yml",
            "npmScopes:\n  acme:\n    npmAuthToken: \"${NPM_TOKEN}\"\n    npmAuthIdent: \"${NPM_USER}:${NPM_PASSWORD}\"\n",
            false,
        ),
        // A wg-quick configuration by any name, a systemd-networkd WireGuard device, an OpenVPN
        // client with its key inline; one that reads its key from a file, and a plain `.conf`.
        (
            "vpn/office.conf",
            "[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\nAddress = 10.0.0.2/32\n",
            true,
        ),
        (
            "vpn/25-wg0.netdev",
            "[NetDev]\nName=wg0\nKind=wireguard\n\n[WireGuard]\nPrivateKey=yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n",
            true,
        ),
        (
            "vpn/client.conf",
            "client\nremote vpn.example.com 1194\n<key>\n-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n</key>\n",
            true,
        ),
        (
            "vpn/home.conf",
            "[Interface]\nPostUp = wg set %i private-key /etc/wireguard/privatekey\nAddress = 10.0.0.3/32\n",
            false,
        ),
        ("vpn/resolv.conf", "nameserver 10.0.0.1\n", false),
        // RabbitMQ's definitions exported with its users, and an API's definitions of the name.
        (
            "deploy/definitions.json",
            r#"{"rabbit_version": "3.13.0", "users": [{"name": "app", "password_hash": "kI3G", "hashing_algorithm": "rabbit_password_hashing_sha256"}]}"#,
            true,
        ),
        (
            "docs/definitions.json",
            r#"{"definitions": {"User": {"type": "object"}}}"#,
            false,
        ),
    ];
    let list = Denylist::standard();
    for (path, content, denied) in files {
        std::fs::write(base.join(path), content).unwrap();
        let judged = list.judge(Path::new(path), base);
        assert_eq!(judged.is_denied(), denied, "{path}: {judged:?}");
    }
    // Remote Desktop files, in UTF-16 as mstsc writes them or in UTF-8: one saving its password,
    // and one a gateway hands out, which holds none.
    let utf16 = |text: &str| {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        bytes
    };
    let rdp = [
        (
            "jumphost.rdp",
            utf16(
                "full address:s:jump.example.com\r\nusername:s:ops\r\npassword 51:b:01000000D08C9DDF0115D1118C7A00C04FC297EB\r\n",
            ),
            true,
        ),
        (
            "web/saved.rdp",
            b"full address:s:10.0.0.5\npassword 51:b:01000000D08C9DDF\n".to_vec(),
            true,
        ),
        (
            "docs/gateway.rdp",
            utf16(
                "full address:s:vm.example.com\r\ngatewayhostname:s:gw.example.com\r\nprompt for credentials:i:1\r\n",
            ),
            false,
        ),
    ];
    for (path, content, denied) in rdp {
        std::fs::write(base.join(path), content).unwrap();
        let judged = list.judge(Path::new(path), base);
        assert_eq!(judged.is_denied(), denied, "{path}: {judged:?}");
    }
}

/// A name the list denies until the file exists (a Kubernetes `secret.yaml`, a Flask instance's
/// `config.py`, a sketch's secrets header) is judged, once it does, by what it holds: the secret
/// written out, or the same file with its values empty, templated or read from elsewhere.
#[test]
fn names_denied_until_they_exist_are_then_judged_by_what_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    for folder in [
        "k8s/base",
        "k8s/overlays/dev",
        "k8s/sa",
        "k8s/multi",
        "flaskr/instance",
        "blog/instance",
        "sketch",
        "firmware/main",
        "firmware/include",
        "firmware/keys",
    ] {
        std::fs::create_dir_all(base.join(folder)).unwrap();
    }
    let files = [
        (
            "k8s/base/secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: aHVudGVyMg==\n",
            true,
        ),
        (
            "k8s/overlays/dev/secret.yml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  token: \"s3cr3t-t0ken\"\n",
            true,
        ),
        // A Helm-style template outside a chart's templates folder, whose values are rendered.
        (
            "k8s/multi/secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ndata:\n  token: {{ .Values.token | b64enc }}\n",
            false,
        ),
        // A service account's token Secret, which the cluster fills in.
        (
            "k8s/sa/secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: build-robot\n  annotations:\n    kubernetes.io/service-account.name: build-robot\ntype: kubernetes.io/service-account-token\n",
            false,
        ),
        (
            "flaskr/instance/config.py",
            "SECRET_KEY = '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'\n",
            true,
        ),
        (
            "blog/instance/config.py",
            "import os\n\nSECRET_KEY = os.environ['SECRET_KEY']\nDEBUG = False\n",
            false,
        ),
        (
            "sketch/arduino_secrets.h",
            "#define SECRET_SSID \"LabNet\"\n#define SECRET_PASS \"correct-horse-battery\"\n",
            true,
        ),
        (
            "firmware/main/wifi_credentials.h",
            "#pragma once\nstatic const char WIFI_SSID[] = \"LabNet\";\nstatic const char WIFI_PASSWORD[] PROGMEM = \"correct-horse\";\n",
            true,
        ),
        // Arduino's template as the IDE writes it, and one with placeholders.
        (
            "firmware/include/secrets.h",
            "#define SECRET_SSID \"\"\n#define SECRET_PASS \"\"\n",
            false,
        ),
        (
            "sketch/network_secrets.h",
            "#define WIFI_SSID \"your-ssid\"\n#define WIFI_PASSWORD \"YOUR_PASSWORD\"\n",
            false,
        ),
        // An embedded project's key, by what it holds: the private key, and its public half.
        (
            "firmware/keys/root-ec-p256.pem",
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\n-----END EC PRIVATE KEY-----\n",
            true,
        ),
        (
            "firmware/keys/root-ec-p256-pub.pem",
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKo\n-----END PUBLIC KEY-----\n",
            false,
        ),
    ];
    let list = Denylist::standard();
    for (path, content, denied) in files {
        std::fs::write(base.join(path), content).unwrap();
        let judged = list.judge(Path::new(path), base);
        assert_eq!(judged.is_denied(), denied, "{path}: {judged:?}");
    }
    // Until they exist, the names are denied.
    for path in [
        "k8s/new/secret.yaml",
        "api/instance/config.py",
        "board/secrets.h",
    ] {
        assert!(list.judge(Path::new(path), base).is_denied(), "{path}");
    }
}
