//! Every rule family with a positive and a trap, from values generated here in the providers'
//! formats (no real-looking key is pasted from anywhere), and the shapes that must never be
//! reported.

use std::cell::Cell;

use super::*;

/// A small deterministic generator, so failures reproduce.
struct Gen(Cell<u64>);

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";

impl Gen {
    fn new(seed: u64) -> Self {
        Self(Cell::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1))
    }

    fn next(&self) -> u64 {
        let mut x = self.0.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0.set(x);
        x
    }

    fn from(&self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| bytes[(self.next() % bytes.len() as u64) as usize] as char)
            .collect()
    }

    fn alnum(&self, n: usize) -> String {
        self.from(&format!("{UPPER}{LOWER}{DIGITS}"), n)
    }

    fn url_safe(&self, n: usize) -> String {
        self.from(&format!("{UPPER}{LOWER}{DIGITS}_-"), n)
    }

    fn base64(&self, n: usize) -> String {
        self.from(&format!("{UPPER}{LOWER}{DIGITS}+/"), n)
    }

    fn hex(&self, n: usize) -> String {
        self.from(HEX, n)
    }

    /// A bot token as Discord makes them: base64 of the bot's id, a timestamp part, an HMAC.
    fn discord_token(&self) -> String {
        let id = self.digits(18 + (self.next() % 2) as usize);
        let first = base64_encode(id.as_bytes());
        format!(
            "{}.{}.{}",
            first.trim_end_matches('='),
            self.url_safe(6),
            self.url_safe(38)
        )
    }

    fn digits(&self, n: usize) -> String {
        // No leading zero, so numbers look like the ids they stand for.
        format!("{}{}", self.from("123456789", 1), self.from(DIGITS, n - 1))
    }
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// (rule, text holding a credential of its shape, text that must not be reported).
fn cases(g: &Gen) -> Vec<(&'static str, String, String)> {
    let pem = |header: &str, footer: &str, g: &Gen| {
        format!(
            "{header}\n{}\n{}\n{}=\n{footer}\n",
            g.base64(64),
            g.base64(64),
            g.base64(40)
        )
    };
    vec![
        ("aws-access-key-id", format!("key_id = AKIA{}", g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)), "key_id = AKIAIOSFODNN7EXAMPLE".into()),
        ("aws-secret-access-key", format!("aws_secret_access_key = {}", g.base64(40)), "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()),
        ("gcp-api-key", format!("const key = \"AIza{}\";", g.url_safe(35)), format!("const key = \"AIza{}\";", g.url_safe(20))),
        ("gcp-service-account-key-id", format!("\"private_key_id\": \"{}\",", g.hex(40)), "\"private_key_id\": \"<private-key-id>\",".into()),
        ("gcp-oauth-client-secret", format!("secret: GOCSPX-{}", g.url_safe(28)), format!("value: GOCSPX-{}", g.url_safe(10))),
        ("azure-storage-account-key", format!("DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={}==;EndpointSuffix=core.windows.net", g.base64(86)), "AccountKey=<your-account-key>".into()),
        ("azure-sas-signature", format!("https://shop.blob.core.windows.net/c/x?sv=2022-11-02&sr=b&sig={}%3D", g.alnum(43)), "https://shop.blob.core.windows.net/c/x?sv=2022-11-02&sig=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".into()),
        ("azure-ad-client-secret", format!("client_secret = {}{}Q~{}", g.alnum(3), g.digits(1), g.url_safe(34)), format!("value = abc1Q~{}", g.alnum(8))),
        ("digitalocean-token", format!("DO=dop_v1_{}", g.hex(64)), format!("DO=dop_v1_{}", g.hex(20))),
        ("databricks-token", format!("token: dapi{}", g.hex(32)), format!("value: dapi{}", g.hex(12))),
        ("hashicorp-vault-token", format!("VAULT_TOKEN=hvs.{}", g.url_safe(90)), "VAULT_TOKEN=hvs.example-token-goes-here".into()),
        ("terraform-cloud-token", format!("token = \"{}.atlasv1.{}\"", g.alnum(14), g.url_safe(67)), "token = \"xxxxxxxxxxxxxx.atlasv1.xxxx\"".into()),
        ("doppler-token", format!("DOPPLER_TOKEN=dp.pt.{}", g.alnum(43)), format!("value=dp.pt.{}", g.alnum(12))),
        ("pulumi-token", format!("PULUMI_ACCESS_TOKEN=pul-{}", g.hex(40)), format!("pul-{}", g.hex(16))),
        ("supabase-token", format!("sbp_{}", g.hex(40)), format!("sbp_{}", g.hex(12))),
        ("github-pat", format!("GH=ghp_{}", g.alnum(36)), format!("GH=ghp_{}", g.alnum(20))),
        ("github-fine-grained-pat", format!("github_pat_{}_{}", g.alnum(22), g.alnum(59)), format!("github_pat_{}", g.alnum(30))),
        ("github-oauth-token", format!("gho_{}", g.alnum(36)), "gho_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".into()),
        ("github-app-user-token", format!("ghu_{}", g.alnum(36)), format!("ghu_{}", g.alnum(35))),
        ("github-app-installation-token", format!("ghs_{}", g.alnum(36)), format!("ghs_{}", g.alnum(37))),
        ("github-refresh-token", format!("ghr_{}", g.alnum(76)), format!("ghr_{}", g.alnum(20))),
        ("gitlab-pat", format!("glpat-{}", g.url_safe(20)), format!("glpat-{}", g.url_safe(8))),
        ("gitlab-pipeline-trigger-token", format!("glptt-{}", g.hex(40)), format!("glptt-{}", g.hex(20))),
        ("gitlab-runner-token", format!("glrt-{}", g.url_safe(20)), format!("glrt-{}", g.url_safe(6))),
        ("gitlab-deploy-token", format!("gldt-{}", g.url_safe(20)), "gldt-YOUR_DEPLOY_TOKEN_HERE_PLEASE".into()),
        ("slack-bot-token", format!("xoxb-{}-{}-{}", g.digits(11), g.digits(12), g.alnum(24)), format!("xoxb-{}-{}", g.digits(11), g.alnum(24))),
        ("slack-user-token", format!("xoxp-{}-{}-{}-{}", g.digits(11), g.digits(12), g.digits(12), g.hex(32)), format!("xoxp-{}", g.hex(32))),
        ("slack-app-token", format!("xapp-1-{}-{}-{}", g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 11), g.digits(13), g.hex(64)), format!("xapp-1-{}", g.hex(20))),
        ("slack-webhook-url", format!("https://hooks.slack.com/services/T{}/B{}/{}", g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10), g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10), g.alnum(24)), "https://hooks.slack.com/services/T000/B000/XXXX".into()),
        ("discord-webhook-url", format!("https://discord.com/api/webhooks/{}/{}", g.digits(18), g.url_safe(68)), "https://discord.com/api/webhooks/123/abc".into()),
        ("discord-bot-token", format!("DISCORD_TOKEN = \"M{}.{}.{}\"", g.url_safe(25), g.url_safe(6), g.url_safe(38)), "DISCORD_TOKEN = \"<bot token>\"".into()),
        ("discord-bot-token-in-use", format!("client.login(\"{}\")", g.discord_token()), "client.login(\"<your bot token>\")".into()),
        ("discord-bot-token-in-use", format!("bot.run('{}')", g.discord_token()), format!("asyncio.run('M{}.{}.{}')", g.url_safe(25), g.url_safe(6), g.url_safe(38))),
        ("bearer-token", format!("curl -H \"Authorization: Bearer {}{}{}\" https://api.example.com", g.alnum(20), g.digits(4), g.alnum(16)), "curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com".into()),
        ("telegram-bot-token", format!("bot = \"{}:AA{}\"", g.digits(10), g.url_safe(33)), format!("time = \"12:AA{}\"", g.url_safe(10))),
        ("stripe-secret-key", format!("sk_live_{}", g.alnum(24)), format!("sk_test_{}", g.alnum(24))),
        ("stripe-restricted-key", format!("rk_live_{}", g.alnum(24)), format!("rk_test_{}", g.alnum(24))),
        ("stripe-webhook-secret", format!("whsec_{}", g.alnum(32)), format!("whsec_{}", "a".repeat(32))),
        ("square-token", format!("sq0atp-{}", g.url_safe(22)), format!("sq0atp-{}", g.url_safe(10))),
        ("shopify-token", format!("shpat_{}", g.hex(32)), format!("shpat_{}", g.hex(16))),
        ("sendgrid-api-key", format!("SG.{}.{}", g.url_safe(22), g.url_safe(43)), format!("SG.{}", g.url_safe(22))),
        ("twilio-api-key", format!("TWILIO_API_KEY = \"SK{}\"", g.hex(32)), format!("twilio_account = \"SK{}\"", g.hex(16))),
        ("mailgun-api-key", format!("MAILGUN_API_KEY = 'key-{}'", g.from("0123456789abcdefghijklmnopqrstuvwxyz", 32)), "MAILGUN_API_KEY = 'key-your-mailgun-key'".into()),
        ("linear-api-key", format!("lin_api_{}", g.alnum(40)), format!("lin_api_{}", g.alnum(12))),
        ("postman-api-key", format!("PMAK-{}-{}", g.hex(24), g.hex(34)), format!("PMAK-{}", g.hex(24))),
        ("grafana-service-account-token", format!("glsa_{}_{}", g.alnum(32), g.hex(8)), format!("glsa_{}", g.alnum(32))),
        ("new-relic-user-key", format!("NRAK-{}", g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 27)), format!("NRAK-{}", g.alnum(10))),
        ("sentry-token", format!("sntrys_{}", g.alnum(64)), format!("sntrys_{}", g.alnum(12))),
        ("openai-api-key", format!("OPENAI_API_KEY=sk-proj-{}T3BlbkFJ{}", g.url_safe(40), g.url_safe(40)), format!("value=sk-proj-{}", g.url_safe(10))),
        ("anthropic-api-key", format!("ANTHROPIC_API_KEY=sk-ant-api03-{}AA", g.url_safe(93)), "ANTHROPIC_API_KEY=sk-ant-api03-your-key-here".into()),
        ("huggingface-token", format!("HF_TOKEN=hf_{}", g.from(&format!("{UPPER}{LOWER}"), 34)), "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".into()),
        ("npm-token", format!("npm_{}", g.alnum(36)), format!("npm_{}", g.alnum(20))),
        ("npmrc-auth-token", format!("//registry.npmjs.org/:_authToken={}", g.alnum(36)), "//registry.npmjs.org/:_authToken=${NPM_TOKEN}".into()),
        ("pypi-token", format!("password = pypi-AgEIcHlwaS5vcmc{}", g.url_safe(70)), "value = pypi-AgEIcHlwaS5vcmc".into()),
        ("docker-config-auth", format!("{{\"auths\":{{\"ghcr.io\":{{\"auth\":\"{}\"}}}}}}", base64_encode(format!("robot:{}", g.alnum(20)).as_bytes())), format!("{{\"auth\":\"{}\"}}", base64_encode(b"no colon in here"))),
        ("private-key", pem("-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", g), "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n".into()),
        ("openssh-private-key", pem("-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----", g), format!("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} person@laptop", g.base64(43))),
        ("pgp-private-key", pem("-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: generated\n", "-----END PGP PRIVATE KEY BLOCK-----", g), pem("-----BEGIN PGP PUBLIC KEY BLOCK-----\n", "-----END PGP PUBLIC KEY BLOCK-----", g)),
        ("putty-private-key", format!("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@laptop\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 1\n{}\nPrivate-MAC: {}\n", g.base64(64), g.base64(20), g.base64(44), g.hex(64)), format!("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@laptop\nPublic-Lines: 2\n{}\n", g.base64(64))),
        ("base64-private-key", format!("    client-key-data: {}", base64_encode(pem("-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", g).as_bytes())), format!("    client-certificate-data: {}", base64_encode(pem("-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----", g).as_bytes()))),
        ("hex-private-key", format!("key_hex = {}", hex_encode(pem("-----BEGIN EC PRIVATE KEY-----", "-----END EC PRIVATE KEY-----", g).as_bytes())), format!("cert_hex = {}", hex_encode(pem("-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----", g).as_bytes()))),
        ("http-basic-auth", format!("Authorization: Basic {}", base64_encode(format!("admin:{}{}", g.alnum(12), g.digits(4)).as_bytes())), format!("Authorization: Basic {}", base64_encode(b"no colon in here"))),
        ("age-secret-key", format!("AGE-SECRET-KEY-1{}", g.from("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)), format!("age1{}", g.from("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58))),
        ("jwt", format!("Authorization: Bearer eyJ{}.eyJ{}.{}", g.url_safe(33), g.url_safe(60), g.url_safe(43)), "header: eyJhbGciOi".into()),
        ("database-url-password", format!("DATABASE_URL=postgres://app:{}@db.internal:5432/shop", g.alnum(18)), "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/shop".into()),
        ("url-basic-auth-password", format!("git clone https://deploy:{}@git.internal/shop.git", g.alnum(20)), "git clone https://user:<password>@git.internal/shop.git".into()),
        ("generic-secret-assignment", format!("DB_PASSWORD = \"{}{}{}\"", g.alnum(8), g.digits(3), g.alnum(9)), "DB_PASSWORD = os.environ[\"DB_PASSWORD\"]".into()),
        ("generic-secret-assignment", format!("curl -d 'username=ops&password={}{}{}&grant_type=password'", g.alnum(8), g.digits(3), g.alnum(9)), "curl -d 'username=ops&password=alice-pw&grant_type=password'".into()),
    ]
}

#[test]
fn every_rule_finds_its_shape_and_not_its_trap() {
    let scanner = Scanner::new();
    for seed in 1..=20 {
        let g = Gen::new(seed);
        let cases = cases(&g);
        for (rule, positive, trap) in &cases {
            let found = scanner.scan(positive.as_bytes());
            assert!(
                found.iter().any(|f| f.rule == *rule),
                "seed {seed}: {rule} did not find its shape in {positive:?}: {found:?}"
            );
            let trapped = scanner.scan(trap.as_bytes());
            assert!(
                trapped.is_empty(),
                "seed {seed}: {rule}'s trap {trap:?} was reported: {trapped:?}"
            );
        }
    }
}

#[test]
fn there_are_at_least_forty_families_and_every_one_is_tested() {
    let ids: Vec<&str> = Scanner::rule_ids().collect();
    assert!(ids.len() >= 40, "{} rules", ids.len());
    let tested: Vec<&str> = cases(&Gen::new(1)).into_iter().map(|c| c.0).collect();
    for id in &ids {
        assert!(tested.contains(id), "rule {id} has no test case");
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "rule ids are unique");
}

#[test]
fn shapes_that_are_not_credentials_are_never_reported() {
    let g = Gen::new(99);
    let clean = [
        format!(
            "id = \"{}-{}-4{}-a{}-{}\"",
            g.hex(8),
            g.hex(4),
            g.hex(3),
            g.hex(3),
            g.hex(12)
        ),
        format!("commit {}", g.hex(40)),
        format!("Merge: {} {}", g.hex(7), g.hex(7)),
        format!("\"integrity\": \"sha512-{}==\",", g.base64(86)),
        format!(
            "resolved \"https://registry.yarnpkg.com/x/-/x-1.0.0.tgz#{}\"",
            g.hex(40)
        ),
        format!(
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{} me@host",
            g.base64(200)
        ),
        format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
            g.base64(64)
        ),
        format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
            g.base64(64)
        ),
        "password = os.environ['DB_PASSWORD']".into(),
        "api_key = process.env.API_KEY".into(),
        "token = get_token(request)".into(),
        "password: ${{ secrets.DB_PASSWORD }}".into(),
        "secret_key = <YOUR_SECRET_KEY>".into(),
        "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx".into(),
        "password = \"hunter2\"".into(),
        "password = user.password".into(),
        "let token = new_token_for_session;".into(),
        format!("public_key = \"{}\"", g.base64(44)),
        format!("token_hash = \"{}\"", g.hex(64)),
        "fn parse_token(input: &str) -> Token {".into(),
        "if password.len() < MIN_PASSWORD_LENGTH {".into(),
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE".into(),
        "https://docs.example.org/auth#token".into(),
        "pub async_token: Token![async],".into(),
        "use winnow::token::take_while;".into(),
        "let tokens = quote_spanned! {span=>".into(),
        "CredentialType::USER_PASS_PLAINTEXT => {}".into(),
        "if token == previous_token_value { return; }".into(),
        "self.push_token(Token::RecursiveZeroOrMore)?;".into(),
        "postgres://localhost:5432/shop".into(),
        // A string literal of several lines: what follows `Credentials:` runs into the next one.
        r#"b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Credentials: hell\x01o\r\nBread: baguette\r\n";"#
            .into(),
        r#"let body = "secret: yes-and-then\nsome more text";"#.into(),
        // Found in the cargo registry's sources: a type name with digits, a closure's typed
        // parameter, and a query string whose password is one of several parameters.
        "pub type AtomicU32ProgressTokenProvider = AtomicU32Provider;".into(),
        "let takes_ownership = move |token: CancellationToken| {".into(),
        "pub type SecretBox = Base64Sha256Engine;".into(),
        r#"  &username=alice&password=alice-pw&grant_type=password&scope=openid+profile""#.into(),
        "ripsecrets = craneLib.buildPackage {".into(),
        r#""password":  "@env:AC_PASSWORD""#.into(),
        "pub const D3DDMT_ENABLE: D3DDEBUGMONITORTOKENS = D3DDEBUGMONITORTOKENS(0i32);".into(),
        "pub credentials: MI_UserCredentials_0,".into(),
    ];
    let scanner = Scanner::new();
    for text in &clean {
        let found = scanner.scan(text.as_bytes());
        assert!(found.is_empty(), "{text:?} was reported: {found:?}");
    }
}

#[test]
fn findings_carry_line_column_span_and_never_the_secret() {
    let g = Gen::new(7);
    let token = format!("ghp_{}", g.alnum(36));
    let text = format!("first line\n  second\nlet t = \"{token}\";\n");
    let found = Scanner::new().scan(text.as_bytes());
    assert_eq!(found.len(), 1);
    let finding = &found[0];
    assert_eq!((finding.line, finding.column), (3, 10));
    assert_eq!(&text[finding.start..finding.end], token);
    assert!(!finding.redacted.contains(&token[4..]));
    assert_eq!(finding.redacted, "ghp_…[40 chars]");
}

#[test]
fn a_legacy_encrypted_pem_block_with_headers_is_a_private_key() {
    let g = Gen::new(12);
    let text = format!(
        "const KEY: &str = r#\"\n    -----BEGIN RSA PRIVATE KEY-----\n    Proc-Type: 4,ENCRYPTED\n    DEK-Info: AES-128-CBC,{}\n\n    {}\n    {}\n    -----END RSA PRIVATE KEY-----\n\"#;\n",
        g.hex(32).to_uppercase(),
        g.base64(64),
        g.base64(64)
    );
    let found = Scanner::new().scan(text.as_bytes());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, "private-key");
    // Reported where the block begins.
    assert_eq!((found[0].line, found[0].column), (2, 5));
    assert!(!found[0].redacted.contains('\n'));
}

#[test]
fn a_specific_rule_wins_over_the_generic_assignment() {
    let g = Gen::new(8);
    let text = format!("api_key = \"ghp_{}\"", g.alnum(36));
    let rules: Vec<&str> = Scanner::new()
        .scan(text.as_bytes())
        .into_iter()
        .map(|f| f.rule)
        .collect();
    assert_eq!(rules, ["github-pat"]);
}

#[test]
fn binary_and_odd_input_does_not_panic() {
    let scanner = Scanner::new();
    let mut noise: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    noise.extend_from_slice(b"password=\xff\xfe\xfdABCdef123456789\n-----BEGIN PRIVATE KEY-----");
    let _ = scanner.scan(&noise);
    assert!(scanner.scan(b"").is_empty());
}

#[test]
fn a_large_text_scanned_in_chunks_finds_what_a_small_one_does() {
    let g = Gen::new(11);
    let filler = "    let total = compute_total(&input, 42); // token of nothing\n".repeat(40_000);
    let token = format!("ghp_{}", g.alnum(36));
    let key = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
        g.base64(70),
        g.base64(70)
    );
    // The key block starts a little before the first cut, so it crosses it.
    let first_cut = chunks(filler.as_bytes(), 1 << 20)[0].1;
    let mut text = filler.clone();
    text.insert_str(first_cut - 40, &format!("\n{key}"));
    text.push_str(&format!("x = \"{token}\"\n"));
    text.push_str(&filler);
    assert!(text.len() > 2 << 20, "large enough to be cut");
    let found = Scanner::new().scan(text.as_bytes());
    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["openssh-private-key", "github-pat"], "{found:?}");
    assert_eq!(&text[found[1].start..found[1].end], token);
    let line = text[..found[1].start].matches('\n').count() + 1;
    assert_eq!(found[1].line, line);
}

#[test]
fn credentials_far_apart_on_one_enormous_line_are_each_found() {
    let g = Gen::new(13);
    let (first, second) = (
        format!("ghp_{}", g.alnum(36)),
        format!("sk_live_{}", g.alnum(24)),
    );
    // A minified bundle: one line, keywords everywhere, two credentials 3 MB apart.
    let filler = "var token=a.b,password=c.d;".repeat(60_000);
    let text = format!("{filler}t=\"{first}\";{filler}{filler}k=\"{second}\";{filler}");
    let found = Scanner::new().scan(text.as_bytes());
    let secrets: Vec<&str> = found.iter().map(|f| &text[f.start..f.end]).collect();
    assert_eq!(secrets, [first.as_str(), second.as_str()], "{found:?}");
    assert!(found.iter().all(|f| f.line == 1));
    assert_eq!(found[0].column, filler.len() + 4);
}

#[test]
fn every_rule_compiles() {
    // Patterns compile on first use; compile them all here so a broken one fails a test, not a
    // scan.
    let scanner = Scanner::new();
    for compiled in &scanner.rules {
        assert!(
            !compiled.regex().as_str().is_empty(),
            "{}",
            compiled.rule.id
        );
    }
}

#[test]
fn redaction_replaces_each_credential_with_its_rule_and_length() {
    let token = format!("ghp_{}", "Zq8Lr2Vx9Kp4Tn7Wm1Yb6Hc3Jd5Fg0Se2Ua8");
    let text = format!("deploy with {token} tonight");
    let redacted = Scanner::global().redact(&text);
    assert_eq!(
        redacted,
        "deploy with [nodwyn: redacted github-pat, 40 chars] tonight"
    );
    assert_eq!(Scanner::global().redact("nothing here"), "nothing here");
}

#[test]
fn placeholders_in_templates_and_sealed_secrets_are_not_reported() {
    let g = Gen::new(7);
    let template = "DATABASE_URL=postgres://user:password@localhost:5432/app\n\
                    API_KEY=your-api-key-here\nSECRET_KEY=changeme\n";
    assert!(Scanner::new().scan(template.as_bytes()).is_empty());
    // A Sealed Secret's ciphertext: the RSA-sealed session key's length (512) first.
    let mut sealed = vec![0x02, 0x00];
    sealed.extend(g.base64(800).bytes());
    let manifest = format!(
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: {}\n",
        base64_encode(&sealed)
    );
    let found = Scanner::new().scan(manifest.as_bytes());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn mailgun_keys_of_both_generations_are_found() {
    let g = Gen::new(3);
    for key in [
        format!("key-{}", g.from("0123456789abcdefghijklmnopqrstuvwxyz", 32)),
        format!("{}-{}-{}", g.hex(32), g.hex(8), g.hex(8)),
    ] {
        let text = format!("MAILGUN_API_KEY={key}");
        let found = Scanner::new().scan(text.as_bytes());
        assert!(
            found.iter().any(|f| f.rule == "mailgun-api-key"),
            "{key}: {found:?}"
        );
    }
}

#[test]
fn a_real_token_holding_a_few_x_by_chance_is_still_found() {
    let token = format!("ghp_{}xxXx{}", "Zq8Lr2Vx9Kp4Tn7Wm1Yb", "6Hc3Jd5Fg0Se");
    let found = Scanner::new().scan(format!("GH={token}").as_bytes());
    assert!(found.iter().any(|f| f.rule == "github-pat"), "{found:?}");
}

#[test]
fn a_credential_hidden_in_base64_or_hex_is_found_and_hashes_are_not() {
    let g = Gen::new(11);
    let token = format!("ghp_{}", g.alnum(36));
    for hidden in [
        base64_encode(format!("export GITHUB_TOKEN={token}\n").as_bytes()),
        base64_encode(format!("GH={token}").as_bytes()),
        hex_encode(format!("token: {token}").as_bytes()),
    ] {
        let text = format!("data:\n  blob: {hidden}\n");
        let found = Scanner::new().scan(text.as_bytes());
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        assert_eq!(found[0].rule, "github-pat");
        assert_eq!(found[0].line, 2);
    }
    // Base64 of binary (an integrity hash) and of harmless text is passed over.
    for harmless in [
        format!("integrity sha512-{}", g.base64(88)),
        format!(
            "note: {}",
            base64_encode(b"just a long harmless sentence in here")
        ),
        format!("commit {}", g.hex(40)),
    ] {
        let found = Scanner::new().scan(harmless.as_bytes());
        assert!(found.is_empty(), "{harmless}: {found:?}");
    }
}

#[test]
fn a_format_string_that_builds_a_credential_shape_is_not_one() {
    for text in [
        "let line = format!(\"password = pypi-AgEIcHlwaS5vcmc{}\", rest);",
        "fmt.Sprintf(\"api_key=%s9f8e7d6c5b4a\", key)",
        "\"secret = Zq8Lr2Vx9Kp4{0}\".format(x)",
    ] {
        let found = Scanner::new().scan(text.as_bytes());
        assert!(found.is_empty(), "{text}: {found:?}");
    }
}

/// The ways a credential sits in the files people keep: each family's shape is put in every one.
fn contexts(secret: &str) -> Vec<String> {
    vec![
        format!("{secret}\n"),
        format!("export TOKEN_VALUE=\"{secret}\"\n"),
        format!("config:\n  credential: '{secret}'\n"),
        format!("{{\"value\": \"{secret}\", \"enabled\": true}}\n"),
        format!("let value = \"{secret}\";\n"),
        format!("curl -s -d '{secret}' https://api.example.com/v1/hook\n"),
        format!("# rotated last week: {secret}\n"),
    ]
}

/// Lenient recall (a finding anywhere in the text counts) over every family's shape, in every
/// context, for several seeds: it must stay at 97% or above. The shapes are the positives of
/// [`cases`], cut down to the credential where a case carries its own context.
#[test]
fn recall_over_every_family_in_every_context_is_at_least_97_percent() {
    let scanner = Scanner::new();
    let (mut found, mut total) = (0usize, 0usize);
    let mut missed: Vec<String> = Vec::new();
    for seed in 1..=5 {
        let g = Gen::new(seed);
        for (rule, positive, _) in cases(&g) {
            // A shape that needs its key name (it holds `=` or `:`) keeps its own text; every
            // other one (bare tokens, private key blocks) is put in every context.
            let texts = if positive.contains('\n') || !positive.contains(['=', ':']) {
                contexts(&positive)
            } else {
                vec![positive.clone()]
            };
            for text in texts {
                total += 1;
                if scanner.scan(text.as_bytes()).is_empty() {
                    missed.push(format!("{rule}: {text:?}"));
                } else {
                    found += 1;
                }
            }
        }
    }
    let recall = found as f64 / total as f64;
    assert!(
        recall >= 0.97,
        "recall {:.3} ({found}/{total}); missed: {missed:#?}",
        recall
    );
}

/// Encrypted and placeholder material holds no credential, whatever its shape.
#[test]
fn encrypted_and_placeholder_material_raises_nothing() {
    let g = Gen::new(5);
    let mut sealed = vec![0x02, 0x00];
    sealed.extend(g.base64(700).bytes());
    let vault_lines: Vec<String> = (0..6).map(|_| g.hex(80)).collect();
    for text in [
        // A Sealed Secret.
        format!(
            "kind: SealedSecret\nspec:\n  encryptedData:\n    password: {}\n",
            base64_encode(&sealed)
        ),
        // SOPS.
        format!(
            "password: ENC[AES256_GCM,data:{},iv:{},tag:{},type:str]\nsops:\n    mac: ENC[AES256_GCM,data:{},type:str]\n",
            g.base64(24),
            g.base64(43),
            g.base64(22),
            g.base64(60)
        ),
        // Ansible Vault.
        format!("$ANSIBLE_VAULT;1.1;AES256\n{}\n", vault_lines.join("\n")),
        // age and PGP messages.
        format!(
            "-----BEGIN AGE ENCRYPTED FILE-----\n{}\n{}\n-----END AGE ENCRYPTED FILE-----\n",
            g.base64(64),
            g.base64(40)
        ),
        format!(
            "-----BEGIN PGP MESSAGE-----\n\n{}\n{}\n-----END PGP MESSAGE-----\n",
            g.base64(64),
            g.base64(40)
        ),
        // Placeholders in a template.
        "DATABASE_URL=postgres://user:password@localhost:5432/app\nAPI_KEY=your-api-key-here\n\
         SECRET_KEY=changeme\nSTRIPE_SECRET_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX\n\
         GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nAWS_SECRET_ACCESS_KEY=<your-secret-key>\n"
            .to_owned(),
    ] {
        let found = Scanner::new().scan(text.as_bytes());
        assert!(found.is_empty(), "{text}: {found:?}");
    }
}

#[test]
fn a_password_in_a_query_string_ends_at_the_next_parameter() {
    let text = "POST /token?username=ops&password=Xk39fQ8zLpW2mN7v&grant_type=password";
    let found = Scanner::new().scan(text.as_bytes());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(&text[found[0].start..found[0].end], "Xk39fQ8zLpW2mN7v");
}

#[test]
fn a_credential_in_utf16_text_is_found_where_its_bytes_are() {
    let token = format!("ghp_{}", Gen::new(7).alnum(36));
    let line =
        format!("\u{feff}[HKEY_CURRENT_USER\\Software\\Deploy]\r\n\"Token\"=\"{token}\"\r\n");
    let scanner = Scanner::new();
    for wide in [
        line.encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect::<Vec<u8>>(),
        line.encode_utf16().flat_map(u16::to_be_bytes).collect(),
    ] {
        let found = scanner.scan(&wide);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "github-pat");
        let bytes = &wide[found[0].start..found[0].end];
        let shown: Vec<u8> = bytes.iter().copied().filter(|b| *b != 0).collect();
        assert_eq!(shown, token.as_bytes());
    }
    // Binary bytes with zeros in them raise nothing.
    let binary: Vec<u8> = (0..4096u32).map(|n| (n * 7 % 256) as u8).collect();
    assert!(scanner.scan(&binary).is_empty());
}

/// The keyword walk, in stretches side by side, finds every keyword the automaton's own
/// overlapping search finds, in the same order, on texts dense with keywords of any case (so many
/// straddle where the stretches meet) and of every length around where the walk starts cutting.
#[test]
fn the_keyword_walk_finds_what_the_automatons_own_search_finds() {
    use aho_corasick::automaton::OverlappingState;
    let scanner = Scanner::new();
    let automaton = &scanner.automaton;
    let keywords: Vec<&str> = RULES
        .iter()
        .flat_map(|rule| rule.keywords.iter().copied())
        .collect();
    let searched = |text: &[u8]| {
        let input = aho_corasick::Input::new(text);
        let mut state = OverlappingState::start();
        let mut found = Vec::new();
        loop {
            automaton.try_find_overlapping(&input, &mut state).unwrap();
            let Some(one) = state.get_match() else {
                break;
            };
            found.push((one.end(), one.pattern().as_usize()));
        }
        found
    };
    let walked = |text: &[u8]| -> Vec<(usize, usize)> {
        keyword_ends(automaton, text)
            .into_iter()
            .flat_map(|(end, state)| {
                (0..automaton.match_len(state))
                    .map(move |i| (end, automaton.match_pattern(state, i).as_usize()))
            })
            .collect()
    };
    // The longest keyword across every cut, at every offset.
    let longest = keywords.iter().max_by_key(|k| k.len()).unwrap();
    for offset in 1..longest.len() {
        let mut text = vec![b'~'; 4000];
        for cut in 1..STREAMS {
            let at = text.len() * cut / STREAMS - offset;
            text[at..at + longest.len()].copy_from_slice(longest.as_bytes());
        }
        assert_eq!(walked(&text), searched(&text), "offset {offset}");
        assert_eq!(searched(&text).len(), STREAMS - 1);
    }
    let g = Gen::new(5);
    for round in 0..300 {
        let mut text = Vec::new();
        let length = match round % 3 {
            0 => (g.next() % 600) as usize,
            1 => 400 + (g.next() % 200) as usize,
            _ => (g.next() % 20_000) as usize,
        };
        while text.len() < length {
            match g.next() % 4 {
                0 => {
                    let keyword = keywords[(g.next() % keywords.len() as u64) as usize];
                    text.extend(keyword.bytes().map(|b| {
                        if g.next().is_multiple_of(2) {
                            b.to_ascii_uppercase()
                        } else {
                            b
                        }
                    }));
                }
                1 => text.push(b"\n \t=:\"'"[(g.next() % 7) as usize]),
                _ => text.extend(g.alnum((g.next() % 6) as usize).bytes()),
            }
        }
        assert_eq!(
            walked(&text),
            searched(&text),
            "round {round}, {} bytes",
            text.len()
        );
    }
}
