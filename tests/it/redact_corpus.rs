//! Corpus for the `redact` module (SPEC §1.11): real-looking secrets in the
//! places they turn up in a coding session (shell, `.env`, YAML, JSON, logs,
//! Markdown, raw transcript lines), each checked against the exact expected
//! text, then look-alikes that must come out untouched, then properties.
//!
//! Every secret here is fabricated, and assembled at run time from pieces
//! (`fake`, `p`) so that secret scanners reading this file find nothing.

use cairn::redact::{Redactor, redact};
use proptest::prelude::*;

use crate::common;
use common::fake::*;

fn r(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// The fabricated secrets, one per format.
struct Fakes {
    anthropic: String,
    anthropic_admin: String,
    openai_proj: String,
    openai_legacy: String,
    openai_svcacct: String,
    ghp: String,
    gho: String,
    ghs: String,
    github_pat: String,
    glpat: String,
    aws_id: String,
    aws_secret: String,
    xoxb: String,
    xapp: String,
    slack_hook_path: String,
    stripe_live: String,
    stripe_restricted: String,
    stripe_test: String,
    google_api: String,
    google_secret: String,
    jwt: String,
    npm: String,
    hf: String,
    sendgrid: String,
    twilio: String,
    azure_key: String,
    digitalocean: String,
    discord: String,
    telegram: String,
    vault: String,
    pem_body: String,
}

impl Fakes {
    fn new() -> Self {
        Fakes {
            anthropic: p(&["sk-", "ant-api03-", &fake(1, 93, B64URL), "AA"]),
            anthropic_admin: p(&["sk-", "ant-admin01-", &fake(2, 93, B64URL), "AA"]),
            openai_proj: p(&["sk-", "proj-", &fake(3, 120, B64URL)]),
            openai_legacy: p(&[
                "sk-",
                &fake(4, 20, ALNUM),
                "T3Blbk",
                "FJ",
                &fake(5, 20, ALNUM),
            ]),
            openai_svcacct: p(&["sk-", "svcacct-", &fake(6, 64, B64URL)]),
            ghp: p(&["gh", "p_", &fake(7, 36, ALNUM)]),
            gho: p(&["gh", "o_", &fake(8, 36, ALNUM)]),
            ghs: p(&["gh", "s_", &fake(9, 36, ALNUM)]),
            github_pat: p(&[
                "github",
                "_pat_",
                &fake(10, 22, ALNUM),
                "_",
                &fake(11, 59, ALNUM),
            ]),
            glpat: p(&["gl", "pat-", &fake(12, 20, ALNUM)]),
            aws_id: p(&["AK", "IA", &fake(13, 16, UPPER_DIGITS)]),
            aws_secret: fake(14, 40, B64),
            xoxb: p(&[
                "xo",
                "xb-",
                &fake(15, 11, b"0123456789"),
                "-",
                &fake(16, 12, b"0123456789"),
                "-",
                &fake(17, 24, ALNUM),
            ]),
            xapp: p(&[
                "xa",
                "pp-1-",
                "A0",
                &fake(18, 9, UPPER_DIGITS),
                "-",
                &fake(19, 13, b"0123456789"),
                "-",
                &fake(20, 64, HEX),
            ]),
            slack_hook_path: p(&[
                "T0",
                &fake(21, 8, UPPER_DIGITS),
                "/B0",
                &fake(22, 8, UPPER_DIGITS),
                "/",
                &fake(23, 24, ALNUM),
            ]),
            stripe_live: p(&["sk", "_live_", &fake(24, 24, ALNUM)]),
            stripe_restricted: p(&["rk", "_live_", &fake(25, 24, ALNUM)]),
            stripe_test: p(&["sk", "_test_", &fake(26, 24, ALNUM)]),
            google_api: p(&["AI", "za", &fake(27, 35, B64URL)]),
            google_secret: p(&["GOC", "SPX-", &fake(28, 28, B64URL)]),
            jwt: p(&[
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                ".",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
                ".",
                &fake(29, 43, B64URL),
            ]),
            npm: p(&["np", "m_", &fake(30, 36, ALNUM)]),
            hf: p(&["h", "f_", &fake(31, 34, ALNUM)]),
            sendgrid: p(&["S", "G.", &fake(32, 22, B64URL), ".", &fake(33, 43, B64URL)]),
            twilio: p(&["S", "K", &fake(34, 32, HEX)]),
            azure_key: p(&[&fake(35, 86, B64), "=="]),
            digitalocean: p(&["do", "p_v1_", &fake(36, 64, HEX)]),
            // base64 of a numeric bot id, the timestamp, the HMAC.
            discord: p(&[
                "MTIzNDU2Nzg5MDEy",
                "MzQ1Njc4",
                ".",
                &fake(37, 6, B64URL),
                ".",
                &fake(38, 38, B64URL),
            ]),
            telegram: p(&["123456789", ":AA", &fake(39, 33, B64URL)]),
            vault: p(&["hv", "s.", &fake(40, 90, B64URL)]),
            pem_body: (0..6)
                .map(|i| fake(41 + i, 64, B64))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn pem(&self, label: &str) -> String {
        let label = format!("{label} KEY");
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----",
            self.pem_body
        )
    }
}

/// Asserts the exact redaction, and that no listed secret survives.
#[track_caller]
fn check(input: &str, expected: &str, secrets: &[&str]) {
    let out = redact(input);
    assert_eq!(out, expected, "\ninput: {input}");
    for s in secrets {
        assert!(!out.contains(s), "secret survived in {out:?}");
    }
    assert_eq!(redact(&out), out, "second pass changed the text");
}

// ---------------------------------------------------------------------------
// Secrets that must go
// ---------------------------------------------------------------------------

#[test]
fn llm_provider_keys() {
    let f = Fakes::new();
    check(
        &format!(
            "export ANTHROPIC_API_KEY={}\nclaude -p 'hello'",
            f.anthropic
        ),
        &format!(
            "export ANTHROPIC_API_KEY={}\nclaude -p 'hello'",
            r("anthropic-key")
        ),
        &[&f.anthropic],
    );
    check(
        &format!(
            r#"{{"apiKey": "{}", "model": "claude-sonnet-4-5"}}"#,
            f.anthropic_admin
        ),
        &format!(
            r#"{{"apiKey": "{}", "model": "claude-sonnet-4-5"}}"#,
            r("anthropic-key")
        ),
        &[&f.anthropic_admin],
    );
    check(
        &format!("client = OpenAI(api_key=\"{}\")", f.openai_proj),
        &format!("client = OpenAI(api_key=\"{}\")", r("openai-key")),
        &[&f.openai_proj],
    );
    check(
        &format!(
            "2025-03-02T10:00:01Z ERROR openai: 401 for key {} (org acme)",
            f.openai_legacy
        ),
        &format!(
            "2025-03-02T10:00:01Z ERROR openai: 401 for key {} (org acme)",
            r("openai-key")
        ),
        &[&f.openai_legacy],
    );
    check(
        &format!("OPENAI_API_KEY='{}'\n", f.openai_svcacct),
        &format!("OPENAI_API_KEY='{}'\n", r("openai-key")),
        &[&f.openai_svcacct],
    );
    check(
        &format!(
            "huggingface-cli login --token {} --add-to-git-credential",
            f.hf
        ),
        &format!(
            "huggingface-cli login --token {} --add-to-git-credential",
            r("huggingface-token")
        ),
        &[&f.hf],
    );
}

#[test]
fn code_hosting_tokens() {
    let f = Fakes::new();
    check(
        &format!(
            "git remote set-url origin https://{}@github.com/acme/app.git",
            f.ghp
        ),
        &format!(
            "git remote set-url origin https://{}@github.com/acme/app.git",
            r("github-token")
        ),
        &[&f.ghp],
    );
    check(
        &format!("The CLI stored `{}` in `~/.config/gh/hosts.yml`.", f.gho),
        &format!(
            "The CLI stored `{}` in `~/.config/gh/hosts.yml`.",
            r("github-token")
        ),
        &[&f.gho],
    );
    check(
        &format!(
            "git clone https://x-access-token:{}@github.com/acme/infra",
            f.ghs
        ),
        &format!(
            "git clone https://x-access-token:{}@github.com/acme/infra",
            r("github-token")
        ),
        &[&f.ghs],
    );
    check(
        &format!("github:\n  user: alex\n  token: {}\n", f.github_pat),
        &format!("github:\n  user: alex\n  token: {}\n", r("github-token")),
        &[&f.github_pat],
    );
    check(
        &format!(
            "curl --header \"PRIVATE-TOKEN: {}\" https://gitlab.example.com/api/v4/projects",
            f.glpat
        ),
        &format!(
            "curl --header \"PRIVATE-TOKEN: {}\" https://gitlab.example.com/api/v4/projects",
            r("gitlab-token")
        ),
        &[&f.glpat],
    );
    check(
        &format!("//registry.npmjs.org/:_authToken={}\n", f.npm),
        &format!("//registry.npmjs.org/:_authToken={}\n", r("npm-token")),
        &[&f.npm],
    );
}

#[test]
fn cloud_credentials() {
    let f = Fakes::new();
    check(
        &format!(
            "[default]\naws_access_key_id = {}\naws_secret_access_key = {}\nregion = eu-west-3\n",
            f.aws_id, f.aws_secret
        ),
        &format!(
            "[default]\naws_access_key_id = {}\naws_secret_access_key = {}\nregion = eu-west-3\n",
            r("aws-access-key-id"),
            r("aws-secret-key")
        ),
        &[&f.aws_id, &f.aws_secret],
    );
    check(
        &format!("export AWS_SECRET_ACCESS_KEY=\"{}\"", f.aws_secret),
        &format!("export AWS_SECRET_ACCESS_KEY=\"{}\"", r("aws-secret-key")),
        &[&f.aws_secret],
    );
    check(
        &format!(
            "https://maps.googleapis.com/maps/api/geocode/json?address=Lyon&key={}",
            f.google_api
        ),
        &format!(
            "https://maps.googleapis.com/maps/api/geocode/json?address=Lyon&key={}",
            r("google-api-key")
        ),
        &[&f.google_api],
    );
    check(
        &format!(
            r#"{{"web":{{"client_id":"1234-abc.apps.googleusercontent.com","client_secret":"{}"}}}}"#,
            f.google_secret
        ),
        &format!(
            r#"{{"web":{{"client_id":"1234-abc.apps.googleusercontent.com","client_secret":"{}"}}}}"#,
            r("google-oauth-secret")
        ),
        &[&f.google_secret],
    );
    check(
        &format!(
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net",
            f.azure_key
        ),
        &format!(
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net",
            r("azure-storage-key")
        ),
        &[&f.azure_key],
    );
    check(
        &format!("$ doctl auth init --access-token {}", f.digitalocean),
        &format!(
            "$ doctl auth init --access-token {}",
            r("digitalocean-token")
        ),
        &[&f.digitalocean],
    );
    check(
        &format!("VAULT_TOKEN={} vault kv get secret/app", f.vault),
        &format!("VAULT_TOKEN={} vault kv get secret/app", r("vault-token")),
        &[&f.vault],
    );
}

#[test]
fn saas_tokens() {
    let f = Fakes::new();
    check(
        &format!("slack = WebClient(token=\"{}\")", f.xoxb),
        &format!("slack = WebClient(token=\"{}\")", r("slack-token")),
        &[&f.xoxb],
    );
    check(
        &format!("SLACK_APP_TOKEN={}", f.xapp),
        &format!("SLACK_APP_TOKEN={}", r("slack-token")),
        &[&f.xapp],
    );
    check(
        &format!(
            r#"  "webhook_url": "https://hooks.slack.com/services/{}","#,
            f.slack_hook_path
        ),
        &format!(
            r#"  "webhook_url": "https://hooks.slack.com/services/{}","#,
            r("slack-webhook")
        ),
        &[&f.slack_hook_path],
    );
    check(
        &format!("const stripe = require('stripe')('{}');", f.stripe_live),
        &format!("const stripe = require('stripe')('{}');", r("stripe-key")),
        &[&f.stripe_live],
    );
    check(
        &format!(
            "STRIPE_RESTRICTED_KEY={}\nSTRIPE_TEST_KEY={}",
            f.stripe_restricted, f.stripe_test
        ),
        &format!(
            "STRIPE_RESTRICTED_KEY={}\nSTRIPE_TEST_KEY={}",
            r("stripe-key"),
            r("stripe-key")
        ),
        &[&f.stripe_restricted, &f.stripe_test],
    );
    check(
        &format!("sendgrid:\n  api_key: \"{}\"", f.sendgrid),
        &format!("sendgrid:\n  api_key: \"{}\"", r("sendgrid-key")),
        &[&f.sendgrid],
    );
    check(
        &format!("| Twilio | key `{}` | rotated |", f.twilio),
        &format!("| Twilio | key `{}` | rotated |", r("twilio-key")),
        &[&f.twilio],
    );
    check(
        &format!("bot.run(\"{}\")", f.discord),
        &format!("bot.run(\"{}\")", r("discord-token")),
        &[&f.discord],
    );
    check(
        &format!("curl https://api.telegram.org/bot{}/getMe", f.telegram),
        &format!(
            "curl https://api.telegram.org/bot{}/getMe",
            r("telegram-token")
        ),
        &[&f.telegram],
    );
}

#[test]
fn jwt_and_authorization_headers() {
    let f = Fakes::new();
    check(
        &format!(
            "curl -H \"Authorization: Bearer {}\" https://api.example.com/me",
            f.jwt
        ),
        &format!(
            "curl -H \"Authorization: Bearer {}\" https://api.example.com/me",
            r("jwt")
        ),
        &[&f.jwt],
    );
    check(
        &format!("INFO  session restored id_token={} user=42", f.jwt),
        &format!("INFO  session restored id_token={} user=42", r("jwt")),
        &[&f.jwt],
    );
    let basic = "YWRtaW46aHVudGVyMi1wcm9k";
    check(
        &format!("> GET /admin HTTP/1.1\n> Authorization: Basic {basic}\n> Accept: */*"),
        &format!(
            "> GET /admin HTTP/1.1\n> Authorization: Basic {}\n> Accept: */*",
            r("basic-auth")
        ),
        &[basic],
    );
    let opaque = fake(60, 40, ALNUM);
    check(
        &format!(
            r#"headers = {{"Authorization": "Bearer {opaque}", "Accept": "application/json"}}"#
        ),
        &format!(
            r#"headers = {{"Authorization": "Bearer {}", "Accept": "application/json"}}"#,
            r("bearer-token")
        ),
        &[&opaque],
    );
    check(
        &format!("fetch(url, {{ headers: {{ authorization: `Bearer {opaque}` }} }})"),
        &format!(
            "fetch(url, {{ headers: {{ authorization: `Bearer {}` }} }})",
            r("bearer-token")
        ),
        &[&opaque],
    );
}

#[test]
fn private_key_blocks() {
    let f = Fakes::new();
    for label in [
        "RSA PRIVATE",
        "EC PRIVATE",
        "OPENSSH PRIVATE",
        "PRIVATE",
        "ENCRYPTED PRIVATE",
    ] {
        let key = f.pem(label);
        check(
            &format!("cat > ~/.ssh/id_test <<'EOF'\n{key}\nEOF\nchmod 600 ~/.ssh/id_test"),
            &format!(
                "cat > ~/.ssh/id_test <<'EOF'\n{}\nEOF\nchmod 600 ~/.ssh/id_test",
                r("private-key")
            ),
            &[&f.pem_body[..64]],
        );
    }
    let pgp = format!(
        "-----BEGIN PGP {} BLOCK-----\n\n{}\n=Ab12\n-----END PGP {} BLOCK-----",
        "PRIVATE KEY", f.pem_body, "PRIVATE KEY"
    );
    check(
        &format!("```\n{pgp}\n```"),
        &format!("```\n{}\n```", r("private-key")),
        &[&f.pem_body[..64]],
    );
    // A service-account JSON: the key is a JSON string with escaped newlines.
    let escaped = f.pem("PRIVATE").replace('\n', "\\n");
    check(
        &format!(
            r#"{{"type": "service_account", "private_key": "{escaped}\n", "client_email": "ci@acme.iam"}}"#
        ),
        &format!(
            r#"{{"type": "service_account", "private_key": "{}", "client_email": "ci@acme.iam"}}"#,
            r("private-key")
        ),
        &[&f.pem_body[..64]],
    );
    // Pasted only in part: the body that is there must still go.
    let truncated = format!(
        "-----BEGIN {}-----\n{}",
        "RSA PRIVATE KEY",
        &f.pem_body[..130]
    );
    check(&truncated, &r("private-key"), &[&f.pem_body[..64]]);
}

#[test]
fn password_assignments() {
    let cases: &[(&str, &str)] = &[
        (
            "DB_PASSWORD=hunter2-prod\nDB_HOST=db",
            "DB_PASSWORD=[REDACTED:password]\nDB_HOST=db",
        ),
        (
            "database:\n    password: S3cr3t!pass\n    port: 5432",
            "database:\n    password: [REDACTED:password]\n    port: 5432",
        ),
        (
            "  POSTGRES_PASSWORD: example\n",
            "  POSTGRES_PASSWORD: [REDACTED:password]\n",
        ),
        (
            r#"{"username": "admin", "password": "correct horse battery staple"}"#,
            r#"{"username": "admin", "password": "[REDACTED:password]"}"#,
        ),
        (
            "mysql -h db -u root -pS3cretPw shop < dump.sql",
            "mysql -h db -u root -p[REDACTED:password] shop < dump.sql",
        ),
        (
            "psql --password=Tr0ub4dor --host db",
            "psql --password=[REDACTED:password] --host db",
        ),
        (
            "./deploy --api-key 8f3k2m9x --env prod",
            "./deploy --api-key [REDACTED:api-key] --env prod",
        ),
        (
            "backup --password \"my pass phrase\" /srv",
            "backup --password \"[REDACTED:password]\" /srv",
        ),
        (
            "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"Sup3rS3cret\")",
            "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"[REDACTED:password]\")",
        ),
        (
            "SECRET_KEY = 'django-insecure-8x!k2@p0m'",
            "SECRET_KEY = '[REDACTED:secret-key]'",
        ),
        (
            "curl -u admin:hunter2 https://ci.example.com/api",
            "curl -u admin:[REDACTED:password] https://ci.example.com/api",
        ),
        (
            "CREATE USER app WITH PASSWORD 'Tr0ub4dor&3';",
            "CREATE USER app WITH PASSWORD '[REDACTED:password]';",
        ),
        (
            "<settings><password>hunter2</password></settings>",
            "<settings><password>[REDACTED:password]</password></settings>",
        ),
        (
            "client_secret=9f8e7d6c5b4a\n",
            "client_secret=[REDACTED:secret]\n",
        ),
        ("X-Api-Key: 4c1e9a7b2d", "X-Api-Key: [REDACTED:api-key]"),
        (
            "spring.datasource.password=Pa55w0rd",
            "spring.datasource.password=[REDACTED:password]",
        ),
        (
            "Server=tcp:acme.database.windows.net;Database=app;User ID=sa;Password=P@ssw0rd!;",
            "Server=tcp:acme.database.windows.net;Database=app;User ID=sa;Password=[REDACTED:password];",
        ),
        (
            "const dbPassword = 'hunter2';",
            "const dbPassword = '[REDACTED:password]';",
        ),
        (
            "https://api.example.com/v1/items?access_token=ab12cd34ef&page=2",
            "https://api.example.com/v1/items?access_token=[REDACTED:token]&page=2",
        ),
        ("passwd: letmein42", "passwd: [REDACTED:password]"),
        // Raw transcript lines: JSON inside JSON, escaped quotes and newlines.
        (
            r#"{"content":"DB_PASSWORD=hunter2\nDEBUG=1"}"#,
            r#"{"content":"DB_PASSWORD=[REDACTED:password]\nDEBUG=1"}"#,
        ),
        (
            r#"{"text":"{\"password\": \"hunter2\", \"user\": \"bob\"}"}"#,
            r#"{"text":"{\"password\": \"[REDACTED:password]\", \"user\": \"bob\"}"}"#,
        ),
    ];
    for (input, expected) in cases {
        check(input, expected, &[]);
    }
}

#[test]
fn connection_strings() {
    let cases: &[(&str, &str)] = &[
        (
            "DATABASE_URL=postgres://app:Pg5ecret@db.internal:5432/app",
            "DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app",
        ),
        (
            "mysql://root:toor123@localhost/shop",
            "mysql://root:[REDACTED:url-password]@localhost/shop",
        ),
        (
            "mongodb+srv://admin:M0ngoPass@cluster0.ab1cd.mongodb.net/test?retryWrites=true",
            "mongodb+srv://admin:[REDACTED:url-password]@cluster0.ab1cd.mongodb.net/test?retryWrites=true",
        ),
        (
            "REDIS_URL=redis://:r3dis-pass@cache:6379/0",
            "REDIS_URL=redis://:[REDACTED:url-password]@cache:6379/0",
        ),
        (
            "amqp://guest:guest@rabbit:5672/",
            "amqp://guest:[REDACTED:url-password]@rabbit:5672/",
        ),
        (
            "pip install --index-url https://deploy:pa55word@pypi.example.com/simple pkg",
            "pip install --index-url https://deploy:[REDACTED:url-password]@pypi.example.com/simple pkg",
        ),
    ];
    for (input, expected) in cases {
        check(input, expected, &[]);
    }
}

#[test]
fn more_provider_formats() {
    // (input, expected) where `{}` in both stands for the secret / its kind.
    let cases: Vec<(String, &str, &str)> = vec![
        (
            p(&["sk-", "or-v1-", &fake(70, 64, HEX)]),
            "OPENROUTER_API_KEY={}",
            "openrouter-key",
        ),
        (
            p(&["gs", "k_", &fake(71, 52, ALNUM)]),
            "client = Groq(api_key=\"{}\")",
            "groq-key",
        ),
        (
            p(&["xa", "i-", &fake(72, 80, ALNUM)]),
            "XAI_API_KEY={}",
            "xai-key",
        ),
        (
            p(&["sk-", "ant-oat01-", &fake(73, 93, B64URL), "AA"]),
            r#"{"claudeAiOauth":{"accessToken":"{}"}}"#,
            "anthropic-key",
        ),
        (
            p(&["gl", "rt-", &fake(74, 20, ALNUM)]),
            "gitlab-runner register --token {}",
            "gitlab-token",
        ),
        (
            p(&["pypi-", "AgEIcHlwaS5vcmc", &fake(75, 70, B64URL)]),
            "[pypi]\n  username = __token__\n  password = {}",
            "pypi-token",
        ),
        (
            p(&["dckr", "_pat_", &fake(76, 27, B64URL)]),
            "docker login -u alex -p {}",
            "docker-token",
        ),
        (
            p(&["AGE-SECRET", "-KEY-1", &fake(77, 58, UPPER_DIGITS)]),
            "# created: 2025-01-01\n{}",
            "age-key",
        ),
        (
            p(&["shp", "at_", &fake(78, 32, HEX)]),
            "X-Shopify-Access-Token: {}",
            "shopify-token",
        ),
        (
            p(&["lin", "_api_", &fake(79, 40, ALNUM)]),
            "LINEAR_API_KEY={}",
            "linear-key",
        ),
        (
            p(&["nt", "n_", &fake(80, 46, ALNUM)]),
            "notion = Client(auth=\"{}\")",
            "notion-token",
        ),
        (
            p(&["sb", "p_", &fake(81, 40, HEX)]),
            "supabase login --token {}",
            "supabase-token",
        ),
        (
            p(&["wh", "sec_", &fake(82, 32, ALNUM)]),
            "STRIPE_WEBHOOK_SECRET={}",
            "stripe-webhook-secret",
        ),
        (
            p(&["ya", "29.", &fake(83, 120, B64URL)]),
            "gcloud token: {}",
            "google-oauth-token",
        ),
        (
            p(&[&fake(84, 32, HEX), "-us", "21"]),
            "mailchimp key {} (marketing)",
            "mailchimp-key",
        ),
    ];
    for (secret, template, kind) in &cases {
        check(
            &template.replace("{}", secret),
            &template.replace("{}", &r(kind)),
            &[secret],
        );
    }
    let sig = fake(85, 43, ALNUM);
    check(
        &format!(
            "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2025-01-01&sr=b&sp=r&sig={sig}%3D"
        ),
        &format!(
            "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2025-01-01&sr=b&sp=r&sig={}",
            r("azure-sas")
        ),
        &[&sig],
    );
    let hook = fake(86, 68, B64URL);
    check(
        &format!(
            "curl -X POST https://discord.com/api/webhooks/123456789012345678/{hook} -d @msg.json"
        ),
        &format!(
            "curl -X POST https://discord.com/api/webhooks/123456789012345678/{} -d @msg.json",
            r("discord-webhook")
        ),
        &[&hook],
    );
}

#[test]
fn credentials_in_commands_and_headers() {
    let f = Fakes::new();
    check(
        &format!("$ aws configure set aws_secret_access_key {}", f.aws_secret),
        &format!(
            "$ aws configure set aws_secret_access_key {}",
            r("aws-secret-key")
        ),
        &[&f.aws_secret],
    );
    let cases: &[(&str, &str)] = &[
        (
            "machine api.heroku.com login me@example.com password 4f1c-9a2b-77de",
            "machine api.heroku.com login me@example.com password [REDACTED:password]",
        ),
        (
            "machine github.com\n  login alex\n  password s3cretpw\n",
            "machine github.com\n  login alex\n  password [REDACTED:password]\n",
        ),
        (
            "sshpass -p 'hunt3r2' ssh deploy@host uptime",
            "sshpass -p '[REDACTED:password]' ssh deploy@host uptime",
        ),
        (
            "> Cookie: _ga=GA1.2.3; session=9f8e7d6c5b4a; csrftoken=AbC123xyz\n> Accept: */*",
            "> Cookie: [REDACTED:cookie]\n> Accept: */*",
        ),
        (
            "< Set-Cookie: sid=31d4d96e407aad42; Path=/; Secure; HttpOnly",
            "< Set-Cookie: [REDACTED:cookie]",
        ),
        (
            "jdbc:mysql://db:3306/app?user=root&password=hunter2&useSSL=false",
            "jdbc:mysql://db:3306/app?user=root&password=[REDACTED:password]&useSSL=false",
        ),
        (
            "openssl pkcs12 -export -passout pass:Sup3rs3cret -out a.p12",
            "openssl pkcs12 -export -passout pass:[REDACTED:password] -out a.p12",
        ),
        (
            "export MYSQL_PWD=hunter2",
            "export MYSQL_PWD=[REDACTED:password]",
        ),
        (
            r#""auths": {"https://index.docker.io/v1/": {"auth": "YWxleDpodW50ZXIy"}}"#,
            r#""auths": {"https://index.docker.io/v1/": {"auth": "[REDACTED:auth]"}}"#,
        ),
        (
            "Proxy::new(\"http://user:p@ssw0rd@localhost:9999\")",
            "Proxy::new(\"http://user:[REDACTED:url-password]@localhost:9999\")",
        ),
    ];
    for (input, expected) in cases {
        check(input, expected, &[]);
    }
}

#[test]
fn private_blocks_are_removed() {
    check(
        "Deploy notes <private>root pw is hunter2</private> done.",
        "Deploy notes  done.",
        &["hunter2"],
    );
    check(
        "Start\n<PRIVATE>\nline one\nline two\n</Private>\nEnd",
        "Start\n\nEnd",
        &["line one"],
    );
    // Writing *about* the tag, as inline code, is not using it.
    check(
        "Wrap secrets in `<private>` tags; `<private>` is case-insensitive.",
        "Wrap secrets in `<private>` tags; `<private>` is case-insensitive.",
        &[],
    );
    check(
        "Keep this. <private>and never close it\nsecret",
        "Keep this. ",
        &["secret"],
    );
}

#[test]
fn report_counts_kinds_without_secrets() {
    let f = Fakes::new();
    let text = format!(
        "A={}\nB={}\nC=postgres://u:pw1234@h/db\n<private>x</private>",
        f.ghp, f.gho
    );
    let (out, report) = Redactor::builtin().redact_with_report(&text);
    assert_eq!(report.get("github-token"), 2);
    assert_eq!(report.get("url-password"), 1);
    assert_eq!(report.get("private"), 1);
    assert_eq!(report.total(), 4);
    assert_eq!(
        report.to_string(),
        "2 github-token, 1 private, 1 url-password"
    );
    assert_eq!(Redactor::builtin().count(&text), 4);
    assert!(!format!("{report:?}").contains(&f.ghp));
    assert_eq!(Redactor::builtin().count(&out), 0);
}

#[test]
fn extra_patterns_from_config() {
    let r = Redactor::new(&[
        r"ACME-[0-9]{6}".into(),
        r"internal_secret=(?P<secret>\w+)".into(),
    ])
    .unwrap();
    assert_eq!(
        r.redact("ticket ACME-123456, internal_secret=abcdef ok"),
        "ticket [REDACTED:custom], internal_secret=[REDACTED:custom] ok"
    );
    let err = Redactor::new(&["fine".into(), "(unclosed".into()]).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("redact.extra_patterns"), "{msg}");
    assert!(msg.contains("`(unclosed`"), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
}

// ---------------------------------------------------------------------------
// Look-alikes that must survive
// ---------------------------------------------------------------------------

#[test]
fn look_alikes_survive() {
    let look_alikes: Vec<String> = vec![
        "Reset your password in settings, then sign in again.".into(),
        "Password: reset it from the admin panel".into(),
        "DB_PASSWORD=\nDB_USER=app".into(),
        "password=<your-password>".into(),
        "DB_PASSWORD=${DB_PASSWORD}".into(),
        "PGPASSWORD=$PASSWORD psql -h db -U app".into(),
        "password: ****".into(),
        "token: ${{ secrets.GITHUB_TOKEN }}".into(),
        "password: \"{{ vault_db_password }}\"".into(),
        "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Alex <alex@example.com>".into(),
        "request 550e8400-e29b-41d4-a716-446655440000 done".into(),
        "Update the task-list and move the desk-lamp; risk-assessment-framework-2024 done.".into(),
        p(&["Classic tokens start with gh", "p_ followed by 36 characters."]),
        "Keys beginning with AKIA are long-term; AKIA1234 is too short.".into(),
        "See https://docs.example.com/guide/install?lang=fr#linux".into(),
        "git clone https://alex@git.example.com/team/repo.git".into(),
        "/home/alex/.ssh/id_ed25519.pub and C:\\Users\\alex\\AppData\\Roaming".into(),
        "Send a Bearer token in the Authorization header.".into(),
        "Authorization: Bearer $TOKEN".into(),
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0 is only two segments".into(),
        "cairn v0.1.0-beta.3+build.42, rustc 1.89.0 (29483883e 2025-08-04)".into(),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
        ".btn { color: #ff5733; background: #1e1e2e; }".into(),
        "Réinitialisez votre mot de passe dans les paramètres : l'ancien mot de passe ne marche plus. 🎉".into(),
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\">".into(),
        "conn = connect(user=user, password=password)".into(),
        "password = os.environ[\"DB_PASSWORD\"]".into(),
        "secret := os.Getenv(\"APP_SECRET\")".into(),
        "interface Login { user: string; token: string; }".into(),
        "struct Creds { password: String, token: Option<String> }".into(),
        r#"{"max_tokens": 4096, "usage": {"input_tokens": 3, "output_tokens": 12, "cache_read_input_tokens": 15000}}"#.into(),
        r#"{"token_type": "Bearer", "expires_in": 3600}"#.into(),
        "PWD=/home/alex/project\nOLDPWD=/home/alex".into(),
        "bypass=true compass: north".into(),
        "secret: false\nauth: true\ntoken: expired".into(),
        "echo \"$PW\" | docker login --password-stdin -u alex registry.example.com".into(),
        "xoxo-gossip-girl-fan-club".into(),
        "curl http://[::1]:8080/health && curl http://localhost:8080/pkg@v2".into(),
        "hf_hub_download(repo_id=\"org/model\") and 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".into(),
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHcB2xH5u0l6Yx8FhJ alex@laptop".into(),
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----".into(),
        "Already clean: [REDACTED:github-token] and [REDACTED:password].".into(),
        "A stray </private> tag is kept.".into(),
        "TWILIO_ACCOUNT_SID=AC0123456789abcdef0123456789abcdef".into(),
        "Use `--token` to pass it, or the `--password` flag.".into(),
        "pub fn new(password: &str) -> Self".into(),
        "if token == \"\" { return }".into(),
        "Le mot de passe doit contenir 12 caractères.".into(),
    ];
    assert!(look_alikes.len() >= 25);
    for text in &look_alikes {
        assert_eq!(&redact(text), text, "look-alike was changed");
    }
}

/// Code is most of what a coding session holds. These come from real
/// crates and the Python standard library, where an early version of the
/// rules redacted them.
#[test]
fn code_look_alikes_survive() {
    let look_alikes: &[&str] = &[
        "NL80211_ATTR_SAE_PASSWORD = 277,",
        "DEVSTAT_TYPE_PASS = 0x100,",
        "const FLAGS_PASS = sys::IORING_MSG_RING_FLAGS_PASS;",
        "pub const IFLA_INET6_TOKEN: _bindgen_ty_5 = _bindgen_ty_5::IFLA_INET6_TOKEN;",
        "pub log_passwd: __u32,",
        "fn native_getpwent_r(pwd: *mut passwd, buf: *mut c_char, buflen: c_int) -> *mut passwd;",
        "Input: Stream<Token = u8> + Clone,",
        "I: winnow::stream::Stream<Token=O>,",
        "type Token = Self;",
        "let token = match byte {",
        "let mut secret = b\"Air shield: 1,2,3,4,5\".to_vec();",
        "Self::EcPrivateKey => b\"EC PRIVATE KEY\",",
        "Error::Token => \"invalid token\",",
        "trait Secret: ZeroizeOnDrop + Zeroize {}",
        "const TAG: &[u8] = b\"-----BEGIN PRIVATE KEY-----\";",
        "ctx.load_cert_chain(CERTFILE, password=getpass_exception)",
        "authorization = self.headers.get(\"authorization\")",
        "authorization = authorization.split()",
        "util.debug('Rebuild a proxy owned by manager, token=%r', token)",
        "print(f\"password={password!r}\")",
        "USER_PASSWD = \"%s:%s\" % (USER, PASSWD)",
        "CLIENT_AUTH = '1.3.6.1.5.5.7.3.2'",
        "permissions:\n  contents: read\n  id-token: write",
        "let cookie: Cookie = Cookie::build((\"name\", \"value\"));",
        "password = input(\"Password: \")",
        "if password == \"\": raise ValueError",
        "secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>",
        "pub const IKEEXT_CERT_AUTH_FLAG_SSL_ONE_WAY: IKEEXT_CERT_AUTH = 1u32;",
        "pub peerCredentials: IKEEXT_CREDENTIAL0,",
        "pub Authorization: WINBIO_PRESENCE_0,",
        "generate_private_key: x25519_generate_private_key,",
        "ERRORTOKEN = token.ERRORTOKEN",
    ];
    for text in look_alikes {
        assert_eq!(&redact(text), text, "look-alike was changed");
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

/// Secrets in every supported format, with proptest-chosen bodies.
fn any_secret() -> impl Strategy<Value = String> {
    let b = |re: &'static str| proptest::string::string_regex(re).unwrap();
    prop_oneof![
        b("[A-Za-z0-9_-]{93}").prop_map(|s| p(&["sk-", "ant-api03-", &s, "AA"])),
        b("[A-Za-z0-9_-]{60}").prop_map(|s| p(&["sk-", "proj-", &s])),
        b("[A-Za-z0-9]{36}").prop_map(|s| p(&["gh", "p_", &s])),
        b("[A-Za-z0-9]{22}_[A-Za-z0-9]{59}").prop_map(|s| p(&["github", "_pat_", &s])),
        b("[A-Za-z0-9]{20}").prop_map(|s| p(&["gl", "pat-", &s])),
        b("[A-Z2-7]{16}").prop_map(|s| p(&["AK", "IA", &s])),
        b("[0-9]{11}-[0-9]{12}-[A-Za-z0-9]{24}").prop_map(|s| p(&["xo", "xb-", &s])),
        b("[A-Za-z0-9]{24}").prop_map(|s| p(&["sk", "_live_", &s])),
        b("[A-Za-z0-9_-]{35}").prop_map(|s| p(&["AI", "za", &s])),
        b("[A-Za-z0-9_-]{28}").prop_map(|s| p(&["GOC", "SPX-", &s])),
        b("[A-Za-z0-9_-]{20}\\.eyJ[A-Za-z0-9_-]{30}\\.[A-Za-z0-9_-]{43}")
            .prop_map(|s| p(&["ey", "J", &s])),
        b("[A-Za-z0-9]{36}").prop_map(|s| p(&["np", "m_", &s])),
        b("[0-9][A-Za-z0-9]{33}").prop_map(|s| p(&["h", "f_", &s])),
        b("[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}").prop_map(|s| p(&["S", "G.", &s])),
        b("[0-9a-f]{32}").prop_map(|s| p(&["S", "K", &s])),
        b("[0-9a-f]{64}").prop_map(|s| p(&["do", "p_v1_", &s])),
        b("[A-Za-z0-9+/]{64}\n[A-Za-z0-9+/]{40}").prop_map(|s| format!(
            "-----BEGIN {0}-----\n{s}\n-----END {0}-----",
            "RSA PRIVATE KEY"
        )),
    ]
}

/// A secret value and the line that holds it, for the contextual rules
/// (key/value pairs, URLs, headers, flags), where the value has no format
/// of its own.
fn secret_in_context() -> impl Strategy<Value = (String, String)> {
    let b = |re: &'static str| proptest::string::string_regex(re).unwrap();
    let value = || b("[0-9][A-Za-z0-9!#%*+^~]{5,23}");
    let token = || b("[0-9][A-Za-z0-9_~+/-]{23,40}");
    prop_oneof![
        value().prop_map(|v| (format!("DB_PASSWORD={v}"), v)),
        value().prop_map(|v| (format!("  password: {v}"), v)),
        value().prop_map(|v| (format!(r#"{{"password": "{v}", "user": "app"}}"#), v)),
        value().prop_map(|v| (format!("api_key='{v}'"), v)),
        value().prop_map(|v| (format!("mysql --password {v} -h db"), v)),
        value().prop_map(|v| (format!("<password>{v}</password>"), v)),
        b("[0-9][A-Za-z0-9!*+^~-]{5,23}")
            .prop_map(|v| (format!("DATABASE_URL=postgres://app:{v}@db:5432/app"), v)),
        token().prop_map(|t| (format!("Authorization: Bearer {t}"), t)),
        token().prop_map(|t| (format!("curl -H 'X-Api-Key: {t}' https://api"), t)),
        b("[A-Za-z0-9/+]{40}").prop_map(|k| (format!("aws_secret_access_key = {k}"), k)),
    ]
}

/// Pieces that exercise the rules' edges when glued together at random.
fn fragment() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        "password",
        "DB_PASSWORD",
        "token",
        "api_key",
        "=",
        ": ",
        ":",
        "\"",
        "'",
        "\n",
        " ",
        "\\n",
        "\\\"",
        "<private>",
        "</private>",
        "<PRIVATE>",
        "<priv",
        "ate>",
        "[REDACTED:token]",
        "[REDACTED",
        "]",
        "://",
        "@",
        "user:",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "Bearer ",
        "Authorization: ",
        "Basic ",
        "--password ",
        "sk-",
        "AKIA",
        "eyJ",
        ".",
        "$",
        "{",
        "}",
        "é",
        "🎉",
        "—",
        "mysql -p",
        "curl -u a:",
        "`",
        "`<private>`",
        "Cookie: a=",
        "machine h login u password ",
        "sshpass -p ",
        "aws_secret_access_key ",
        "?token=",
        "&",
        "%",
        "::",
        "\r",
        "\t",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    ];
    prop_oneof![
        3 => proptest::sample::select(fixed).prop_map(str::to_string),
        2 => "[A-Za-z0-9_.-]{0,40}",
        1 => "\\PC{0,12}",
        1 => any_secret(),
    ]
}

fn glued() -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(), 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn redaction_is_idempotent(text in glued()) {
        let once = redact(&text);
        prop_assert_eq!(redact(&once), once);
    }

    #[test]
    fn arbitrary_text_is_idempotent(text in "\\PC{0,200}") {
        let once = redact(&text);
        prop_assert_eq!(redact(&once), once);
    }

    #[test]
    fn secret_in_context_never_survives(
        before in glued(),
        (line, secret) in secret_in_context(),
        after in glued(),
    ) {
        let text = format!("{before}\n{line}\n{after}");
        let out = redact(&text);
        prop_assert!(!out.contains(&secret), "secret survived:\n{}", out);
    }

    #[test]
    fn embedded_secret_never_survives(
        before in glued(),
        secret in any_secret(),
        after in glued(),
        sep in proptest::sample::select(vec![" ", "\n", "\t", "=", ": ", "\"", "'", "`", "(", ",", "é "]),
    ) {
        let text = format!("{before} {secret}{sep}{after}");
        let out = redact(&text);
        prop_assert!(!out.contains(&secret), "secret survived:\n{}", out);
    }
}

// ---------------------------------------------------------------------------
// Cost
// ---------------------------------------------------------------------------

/// Five megabytes of session-like text with a few secrets: every secret
/// goes. Why it stays cheap (one full pass, later passes on changed lines
/// only) is checked by `redact::tests::later_passes_rescan_only_the_changed_lines`;
/// the time is measured by `cargo bench --bench redact`.
#[test]
fn five_megabytes_lose_every_secret() {
    let f = Fakes::new();
    let chunk = "Réunion : on a corrigé le bug 🎉 dans src/main.rs (commit 3f2a9c1e8b7d).\n\
         {\"type\":\"assistant\",\"usage\":{\"input_tokens\":3,\"output_tokens\":120}}\n\
         The password reset flow calls https://api.example.com/v1/reset?user=42 with a key.\n\
         export PATH=$HOME/.cargo/bin:$PATH; cargo test --release -- --nocapture\n";
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 5 << 20 {
        text.push_str(chunk);
        i += 1;
        if i % 2000 == 0 {
            text.push_str(&format!("GITHUB_TOKEN={}\n", f.ghp));
        }
    }
    let (out, report) = Redactor::builtin().redact_with_report(&text);
    assert!(!out.contains(&f.ghp));
    assert_eq!(report.get("github-token"), i / 2000);
}

/// Hostile input: runs that would make a naive scanner quadratic (each
/// `password="` opening a value that never closes, headers without an end,
/// secrets glued into one long line) still redact to a fixed point. What
/// keeps them linear: the regex crate's matching, the hand-written PEM scan
/// (`redact::pem::tests::many_unclosed_headers_stay_linear` counts its
/// bytes) and the pass cap; `cargo bench --bench redact` times a megabyte.
#[test]
fn hostile_input_redacts_to_a_fixed_point() {
    let n = 10_000;
    let cases = [
        "password=\"".repeat(n),
        "token=$x".repeat(n),
        "<private><".repeat(n),
        "-----BEGIN PRIVATE KEY-----!".repeat(n / 2),
        format!("{}@", "a".repeat(10 * n)),
        "https://a:b".repeat(n),
        "eyJ".repeat(3 * n),
        format!("DB_PASSWORD=hunter2 {}", "x".repeat(10 * n)).repeat(10),
    ];
    for text in &cases {
        let once = redact(text);
        assert_eq!(redact(&once), once, "on {:?}…", &text[..20]);
    }
}

// ---------------------------------------------------------------------------
// Regressions (issue 9, finding 11)
// ---------------------------------------------------------------------------

/// Mailgun's `key-<32 hex>` went through untouched.
#[test]
fn regression_redact_mailgun_key() {
    let key = p(&["key", "-", &fake(901, 32, HEX)]);
    check(
        &format!("MAILGUN_API_KEY={key}"),
        &format!("MAILGUN_API_KEY={}", r("mailgun-key")),
        &[&key[4..]],
    );
    check(
        &format!("curl -s --user 'api:{key}' https://api.mailgun.net/v3/mg.acme.dev/messages"),
        &format!(
            "curl -s --user 'api:{}' https://api.mailgun.net/v3/mg.acme.dev/messages",
            r("mailgun-key")
        ),
        &[&key[4..]],
    );
    for look_alike in [
        "a key-value store keyed by key-0123abcd".to_string(),
        "monkey-patch the key-derivation step".to_string(),
        // Not hex, or not 32 of it.
        p(&["key", "-", &fake(902, 32, UPPER_DIGITS)]),
        p(&["key", "-", &fake(903, 31, HEX)]),
        p(&["hot", "key-", &fake(904, 32, HEX)]),
    ] {
        assert_eq!(redact(&look_alike), look_alike, "look-alike was changed");
    }
}

/// A GCP service-account file kept its `private_key_id` (40 hex). Its
/// `private_key` (a PEM block with `\n` escapes) must go whole as well.
#[test]
fn regression_redact_gcp_private_key_id() {
    let f = Fakes::new();
    let id = fake(905, 40, HEX);
    let escaped = f.pem("PRIVATE").replace('\n', "\\n");
    let account = format!(
        "{{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-ci\",\n  \"private_key_id\": \"{id}\",\n  \"private_key\": \"{escaped}\\n\",\n  \"client_email\": \"ci@acme-ci.iam.gserviceaccount.com\",\n  \"client_id\": \"104729384756102938475\"\n}}"
    );
    check(
        &account,
        &format!(
            "{{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-ci\",\n  \"private_key_id\": \"{}\",\n  \"private_key\": \"{}\",\n  \"client_email\": \"ci@acme-ci.iam.gserviceaccount.com\",\n  \"client_id\": \"104729384756102938475\"\n}}",
            r("gcp-private-key-id"),
            r("private-key")
        ),
        &[&id[..12], &f.pem_body[..64], "BEGIN PRIVATE"],
    );
    // The same file quoted inside a JSON string (a raw transcript line).
    let quoted = serde_json::to_string(&account).unwrap();
    let out = redact(&quoted);
    assert!(!out.contains(&id[..12]), "{out}");
    assert!(!out.contains(&f.pem_body[..64]), "{out}");
    // YAML and env spellings.
    check(
        &format!("private_key_id: {id}"),
        &format!("private_key_id: {}", r("gcp-private-key-id")),
        &[&id[..12]],
    );
    for look_alike in [
        "\"private_key_id\": \"\"",
        "private_key_id = key.id",
        "\"private_key_id\": \"<your key id>\"",
        "private_key_id: 1234",
    ] {
        assert_eq!(redact(look_alike), look_alike, "look-alike was changed");
    }
}
