//! Redaction on large and hostile text, the figures the tests used to time
//! (a test only checks why these stay cheap: see `redact::tests` and
//! `redact::pem::tests`).
//!
//! Run: `cargo bench --bench redact`. Target in release: five megabytes of
//! session text well under a second, each megabyte of hostile text well
//! under two.

use cairn::redact::redact;

fn main() {
    divan::main();
}

/// Five megabytes of session-like text with a token every ~600 KB.
#[divan::bench(sample_count = 10)]
fn session_text_5mb(bencher: divan::Bencher) {
    let token = ["gh", "p_", &"Zq7Lm2Xw9Rt4".repeat(3)].concat();
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
            text.push_str(&format!("GITHUB_TOKEN={token}\n"));
        }
    }
    bencher.bench(|| redact(divan::black_box(&text)));
}

/// About a megabyte of each run that would make a naive scanner quadratic.
#[divan::bench(
    sample_count = 5,
    args = ["password", "token", "private", "pem", "at", "url", "jwt", "glued"]
)]
fn hostile_1mb(bencher: divan::Bencher, case: &str) {
    let n = 100_000;
    let text = match case {
        "password" => "password=\"".repeat(n),
        "token" => "token=$x".repeat(n),
        "private" => "<private><".repeat(n),
        "pem" => "-----BEGIN PRIVATE KEY-----!".repeat(n / 2),
        "at" => format!("{}@", "a".repeat(10 * n)),
        "url" => "https://a:b".repeat(n),
        "jwt" => "eyJ".repeat(3 * n),
        _ => format!("DB_PASSWORD=hunter2 {}", "x".repeat(10 * n)).repeat(10),
    };
    bencher.bench(|| redact(divan::black_box(&text)));
}
