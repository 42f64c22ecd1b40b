//! The credential shapes L1 knows, one family per provider's documented token format.
//!
//! Each rule names the keywords that every match contains (lowercase; the prefilter looks for
//! them case-insensitively in one pass), a pattern whose group `s` is the secret itself, how far
//! the pattern may reach (one line, or a block for private keys), and what a match must also
//! satisfy. Rules stay precise on purpose: a fixed prefix and an exact length where the provider
//! documents one, a key name nearby where the token itself has no prefix.

/// How far a rule's pattern may reach from the line its keyword is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The keyword's line.
    Line,
    /// The keyword's line and what follows, up to a private key block's size.
    Block,
}

/// What a match must satisfy besides its pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Check {
    /// Nothing more.
    Shape,
    /// At least this many bits of Shannon entropy per character.
    Entropy(f64),
    /// Base64 of `user:password`, as Docker's `config.json` stores credentials.
    Base64Credentials,
    /// A `password = ...` style assignment: the value must be high-entropy, not a reference to
    /// code or the environment, and the key must not name something public.
    Assignment,
    /// Base64 of a PEM private key (a kubeconfig's `client-key-data`, a Secret's data).
    Base64PrivateKey,
    /// Hex of a PEM private key.
    HexPrivateKey,
    /// A bearer token: high-entropy, and not a JWT (the `jwt` rule names those).
    Bearer,
    /// A Discord bot token: its first part is base64 of the bot's numeric id, which tells it
    /// from any other dotted token where only the call it is passed to is known.
    DiscordToken,
}

/// One family of credential shapes.
#[derive(Debug)]
pub(crate) struct Rule {
    /// The stable id findings carry.
    pub id: &'static str,
    /// Lowercase text every match contains.
    pub keywords: &'static [&'static str],
    /// The pattern; group `s` is the secret (group `k`, for assignments, the key name).
    pub pattern: &'static str,
    /// How far the pattern may reach.
    pub reach: Reach,
    /// What a match must also satisfy.
    pub check: Check,
    /// A byte the keyword's line must hold after the keyword, checked before the pattern runs
    /// (`@` for a URL with a password).
    pub needs_after: Option<u8>,
}

const fn rule(
    id: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        reach: Reach::Line,
        check,
        needs_after: None,
    }
}

/// A URL rule: the line must hold an `@` after the scheme.
const fn url(id: &'static str, keywords: &'static [&'static str], pattern: &'static str) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        reach: Reach::Line,
        check: Check::Shape,
        needs_after: Some(b'@'),
    }
}

const fn block(id: &'static str, keywords: &'static [&'static str], pattern: &'static str) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        reach: Reach::Block,
        check: Check::Shape,
        needs_after: None,
    }
}

use Check::{
    Assignment, Base64Credentials, Base64PrivateKey, Bearer, DiscordToken, Entropy, HexPrivateKey,
    Shape,
};

/// Every rule. Patterns end a token with `(?:[^A-Za-z0-9_-]|$)` where `\b` would stop early at
/// a `-`.
pub(crate) const RULES: &[Rule] = &[
    // Cloud providers.
    rule(
        "aws-access-key-id",
        &["akia", "asia", "abia", "acca", "a3t"],
        r"\b(?P<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        Shape,
    ),
    rule(
        "aws-secret-access-key",
        &["secret_access_key", "secretaccesskey", "secret-access-key"],
        r#"(?i)secret[_-]?access[_-]?key["']?\s*(?:[:=]|=>)\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        Entropy(3.5),
    ),
    rule(
        "gcp-api-key",
        &["aiza"],
        r"\b(?P<s>AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)",
        Shape,
    ),
    rule(
        "gcp-service-account-key-id",
        &["private_key_id"],
        r#""private_key_id"\s*:\s*"(?P<s>[a-f0-9]{40})""#,
        Shape,
    ),
    rule(
        "gcp-oauth-client-secret",
        &["gocspx-"],
        r"\b(?P<s>GOCSPX-[A-Za-z0-9_-]{28})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "azure-storage-account-key",
        &["accountkey"],
        r"(?i)AccountKey\s*=\s*(?P<s>[A-Za-z0-9+/]{86}==)",
        Shape,
    ),
    rule(
        "azure-sas-signature",
        &["sig="],
        r"[?&;]sig=(?P<s>[A-Za-z0-9%+/]{42,}(?:%3[Dd]|=){0,2})",
        Entropy(3.5),
    ),
    rule(
        "azure-ad-client-secret",
        &["q~"],
        r"(?:^|[^A-Za-z0-9_~.-])(?P<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)",
        Entropy(3.5),
    ),
    rule(
        "digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"\b(?P<s>do[opr]_v1_[a-f0-9]{64})\b",
        Shape,
    ),
    rule(
        "databricks-token",
        &["dapi"],
        r"\b(?P<s>dapi[a-f0-9]{32}(?:-[0-9])?)\b",
        Shape,
    ),
    rule(
        "hashicorp-vault-token",
        &["hvs.", "hvb."],
        r"\b(?P<s>hv[sb]\.[A-Za-z0-9_-]{24,})(?:[^A-Za-z0-9_-]|$)",
        Entropy(3.5),
    ),
    rule(
        "terraform-cloud-token",
        &[".atlasv1."],
        r"\b(?P<s>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})",
        Shape,
    ),
    rule(
        "doppler-token",
        &["dp.pt.", "dp.st.", "dp.sa.", "dp.ct."],
        r"\b(?P<s>dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,44})\b",
        Shape,
    ),
    rule(
        "pulumi-token",
        &["pul-"],
        r"\b(?P<s>pul-[a-f0-9]{40})\b",
        Shape,
    ),
    rule(
        "supabase-token",
        &["sbp_"],
        r"\b(?P<s>sbp_[a-f0-9]{40})\b",
        Shape,
    ),
    // Forges.
    rule(
        "github-pat",
        &["ghp_"],
        r"\b(?P<s>ghp_[A-Za-z0-9]{36})\b",
        Shape,
    ),
    rule(
        "github-fine-grained-pat",
        &["github_pat_"],
        r"\b(?P<s>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b",
        Shape,
    ),
    rule(
        "github-oauth-token",
        &["gho_"],
        r"\b(?P<s>gho_[A-Za-z0-9]{36})\b",
        Shape,
    ),
    rule(
        "github-app-user-token",
        &["ghu_"],
        r"\b(?P<s>ghu_[A-Za-z0-9]{36})\b",
        Shape,
    ),
    rule(
        "github-app-installation-token",
        &["ghs_"],
        r"\b(?P<s>ghs_[A-Za-z0-9]{36})\b",
        Shape,
    ),
    rule(
        "github-refresh-token",
        &["ghr_"],
        r"\b(?P<s>ghr_[A-Za-z0-9]{36,76})\b",
        Shape,
    ),
    rule(
        "gitlab-pat",
        &["glpat-"],
        r"\b(?P<s>glpat-[A-Za-z0-9_-]{20,})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "gitlab-pipeline-trigger-token",
        &["glptt-"],
        r"\b(?P<s>glptt-[0-9a-f]{40})\b",
        Shape,
    ),
    rule(
        "gitlab-runner-token",
        &["glrt-"],
        r"\b(?P<s>glrt-[A-Za-z0-9_-]{20,})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "gitlab-deploy-token",
        &["gldt-"],
        r"\b(?P<s>gldt-[A-Za-z0-9_-]{20,})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    // Chat.
    rule(
        "slack-bot-token",
        &["xoxb-"],
        r"\b(?P<s>xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24,34})\b",
        Shape,
    ),
    rule(
        "slack-user-token",
        &["xoxp-"],
        r"\b(?P<s>xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})\b",
        Shape,
    ),
    rule(
        "slack-app-token",
        &["xapp-"],
        r"\b(?P<s>xapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,14}-[a-f0-9]{64})\b",
        Shape,
    ),
    rule(
        "slack-webhook-url",
        &["hooks.slack.com"],
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/+-]{40,})",
        Shape,
    ),
    rule(
        "discord-webhook-url",
        &["discord"],
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?P<s>[A-Za-z0-9_-]{60,68})",
        Shape,
    ),
    rule(
        "discord-bot-token",
        &["discord"],
        r#"(?i)discord[a-z0-9_ .-]{0,20}["']?\s*(?:[:=]|=>)\s*["']?(?P<s>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"#,
        Shape,
    ),
    rule(
        "discord-bot-token-in-use",
        &["bot ", "login(", ".run("],
        r#"(?i)(?:authorization["']?\s*[:=]\s*["']?bot\s+|\.(?:login|run)\(\s*["'])(?P<s>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"#,
        DiscordToken,
    ),
    rule(
        "telegram-bot-token",
        &[":aa"],
        r"\b(?P<s>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    // Payments and SaaS.
    rule(
        "stripe-secret-key",
        &["sk_live_"],
        r"\b(?P<s>sk_live_[A-Za-z0-9]{24,247})\b",
        Shape,
    ),
    rule(
        "stripe-restricted-key",
        &["rk_live_"],
        r"\b(?P<s>rk_live_[A-Za-z0-9]{24,247})\b",
        Shape,
    ),
    rule(
        "stripe-webhook-secret",
        &["whsec_"],
        r"\b(?P<s>whsec_[A-Za-z0-9+/]{32,})",
        Entropy(3.5),
    ),
    rule(
        "square-token",
        &["sq0atp-", "sq0csp-"],
        r"\b(?P<s>sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43})(?:[^0-9A-Za-z_-]|$)",
        Shape,
    ),
    rule(
        "shopify-token",
        &["shpat_", "shpss_", "shpca_", "shppa_"],
        r"\b(?P<s>shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})\b",
        Shape,
    ),
    rule(
        "sendgrid-api-key",
        &["sg."],
        r"\b(?P<s>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "twilio-api-key",
        &["twilio"],
        r#"(?i)twilio[a-z0-9_ .-]{0,20}["']?\s*(?:[:=]|=>)\s*["']?(?P<s>SK[0-9a-f]{32})\b"#,
        Shape,
    ),
    rule(
        "mailgun-api-key",
        &["mailgun"],
        r#"(?i)mailgun[a-z0-9_ .-]{0,20}["']?\s*(?:[:=]|=>)\s*["']?(?P<s>key-[0-9a-z]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})\b"#,
        Shape,
    ),
    rule(
        "linear-api-key",
        &["lin_api_"],
        r"\b(?P<s>lin_api_[A-Za-z0-9]{40})\b",
        Shape,
    ),
    rule(
        "postman-api-key",
        &["pmak-"],
        r"\b(?P<s>PMAK-[a-f0-9]{24}-[a-f0-9]{34})\b",
        Shape,
    ),
    rule(
        "grafana-service-account-token",
        &["glsa_"],
        r"\b(?P<s>glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})\b",
        Shape,
    ),
    rule(
        "new-relic-user-key",
        &["nrak-"],
        r"\b(?P<s>NRAK-[A-Z0-9]{27})\b",
        Shape,
    ),
    rule(
        "sentry-token",
        &["sntrys_", "sntryu_"],
        r"\b(?P<s>sntry[su]_[A-Za-z0-9+/=_]{40,})",
        Shape,
    ),
    // AI providers.
    rule(
        "openai-api-key",
        &["t3blbkfj"],
        r"\b(?P<s>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "anthropic-api-key",
        &["sk-ant-"],
        r"\b(?P<s>sk-ant-(?:api03|admin01|oat01)-[A-Za-z0-9_-]{80,120})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    rule(
        "huggingface-token",
        &["hf_"],
        r"\b(?P<s>hf_[A-Za-z]{34,40})\b",
        Entropy(3.5),
    ),
    // Package registries.
    rule(
        "npm-token",
        &["npm_"],
        r"\b(?P<s>npm_[A-Za-z0-9]{36})\b",
        Shape,
    ),
    rule(
        "npmrc-auth-token",
        &["_authtoken"],
        r"(?i)_authToken\s*=\s*(?P<s>[A-Za-z0-9_.+/=-]{20,})",
        Entropy(3.0),
    ),
    rule(
        "pypi-token",
        &["pypi-ageichlwas5vcmc", "pypi-agendgvzdc5wexbplm9yzw"],
        r"(?P<s>pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,})",
        Shape,
    ),
    rule(
        "docker-config-auth",
        &["\"auth\""],
        r#""auth"\s*:\s*"(?P<s>[A-Za-z0-9+/]{8,}={0,2})""#,
        Base64Credentials,
    ),
    // Private keys.
    block(
        "private-key",
        &["private key-----"],
        r"(?P<s>-----BEGIN (?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY-----(?:\\[nr]|\s|[A-Za-z-]+: [^\r\n\\]*)+[A-Za-z0-9+/=]{40,}(?:(?:\\[nr]|\s)+[A-Za-z0-9+/=]+)*)",
    ),
    block(
        "openssh-private-key",
        &["openssh private key-----"],
        r"(?P<s>-----BEGIN OPENSSH PRIVATE KEY-----(?:\\[nr]|\s)+[A-Za-z0-9+/=]{40,}(?:(?:\\[nr]|\s)+[A-Za-z0-9+/=]+)*)",
    ),
    block(
        "pgp-private-key",
        &["pgp private key block-----"],
        r"(?P<s>-----BEGIN PGP PRIVATE KEY BLOCK-----(?:\\[nr]|\s|[A-Za-z]+: [^\r\n]*)+[A-Za-z0-9+/=]{40,}(?:(?:\\[nr]|\s)+[A-Za-z0-9+/=]+)*)",
    ),
    block(
        "putty-private-key",
        &["putty-user-key-file-"],
        r"(?P<s>PuTTY-User-Key-File-[23]: [^\r\n]+(?:\r?\n[^\r\n]*){0,40}?\r?\nPrivate-Lines: [0-9]+\r?\n[A-Za-z0-9+/=]{16,})",
    ),
    // Private keys hidden in an encoding: base64 or hex of `-----BEGIN` starts with these.
    rule(
        "base64-private-key",
        &["ls0tls1crudjt"],
        r"(?P<s>LS0tLS1CRUdJT[A-Za-z0-9+/]{40,}={0,2})",
        Base64PrivateKey,
    ),
    rule(
        "hex-private-key",
        &["2d2d2d2d2d424547494e"],
        r"(?i)(?P<s>2d2d2d2d2d424547494e(?:[0-9a-f]{2}){30,})",
        HexPrivateKey,
    ),
    rule(
        "age-secret-key",
        &["age-secret-key-1"],
        r"(?P<s>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
        Shape,
    ),
    // Tokens and URLs.
    rule(
        "jwt",
        &["eyj"],
        r"\b(?P<s>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})(?:[^A-Za-z0-9_-]|$)",
        Shape,
    ),
    url(
        "database-url-password",
        &[
            "postgres",
            "mysql",
            "mariadb",
            "mongodb",
            "redis",
            "amqp",
            "mssql",
            "sqlserver",
            "clickhouse",
        ],
        r#"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse)://[^\s:/@'"]+:(?P<s>[^\s@/'"]{3,})@"#,
    ),
    rule(
        "http-basic-auth",
        &["basic "],
        r#"(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})"#,
        Base64Credentials,
    ),
    rule(
        "bearer-token",
        &["bearer "],
        r#"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/-]{20,}=*)"#,
        Bearer,
    ),
    url(
        "url-basic-auth-password",
        &["://"],
        r#"(?i)\b(?:https?|ftps?|sftp|smtps?|ldaps?)://[^\s:/@'"]+:(?P<s>[^\s@/'"]{3,})@"#,
    ),
    rule(
        "generic-secret-assignment",
        &[
            "password",
            "passwd",
            "pwd",
            "secret",
            "api_key",
            "apikey",
            "api-key",
            "token",
            "access_key",
            "private_key",
            "credential",
        ],
        r#"(?i)(?P<k>[a-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|token|credentials?)[a-z0-9_.-]*)["'\]]?\s*(?::=|=>|[:=])\s*["'`]?(?P<s>[^\s"'`;,()\[\]{}:=<>!&|][^\s"'`;,()\[\]{}]{9,199})"#,
        Assignment,
    ),
];
