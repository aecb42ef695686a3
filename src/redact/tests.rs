use super::*;

thread_local! {
    /// Bytes handed to the rules on this thread, every pass included.
    pub(super) static COLLECTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn hit(start: usize, end: usize, kind: &'static str, rank: Rank) -> Hit {
    Hit {
        start,
        end,
        kind,
        rank,
    }
}

fn spans(hits: &[Hit]) -> Vec<(usize, usize, &'static str)> {
    hits.iter().map(|h| (h.start, h.end, h.kind)).collect()
}

#[test]
fn every_rule_compiles_and_names_its_secret() {
    Regex::new(pem::HEADER).unwrap();
    assert_eq!(Redactor::builtin().triggers.len(), RULES.len());
    for rule in RULES {
        let re = compile(rule);
        let names: Vec<_> = re.capture_names().flatten().collect();
        assert!(
            ["s", "dq", "bare"].iter().any(|g| names.contains(g)),
            "{} has no secret group: {}",
            rule.kind,
            rule.pattern
        );
    }
}

#[test]
fn equal_spans_are_named_by_the_provider_format() {
    let hits = vec![
        hit(5, 45, "token", Rank::Context),
        hit(5, 45, "github-token", Rank::Specific),
    ];
    assert_eq!(
        spans(&resolve(hits, &[], &"x".repeat(60))),
        vec![(5, 45, "github-token")]
    );
}

#[test]
fn overlapping_hits_merge_into_their_union() {
    let hits = vec![
        hit(10, 30, "token", Rank::Context),
        hit(20, 60, "jwt", Rank::Specific),
    ];
    assert_eq!(
        spans(&resolve(hits, &[], &"x".repeat(80))),
        vec![(10, 60, "token")]
    );
}

#[test]
fn hits_touching_a_placeholder_are_dropped_but_key_blocks_are_not() {
    let text = "a".repeat(100);
    let hits = vec![
        hit(0, 12, "password", Rank::Context),
        hit(40, 90, "private-key", Rank::Block),
    ];
    let kept = resolve(hits, &[(10, 20), (50, 60)], &text);
    assert_eq!(spans(&kept), vec![(40, 90, "private-key")]);
}

#[test]
fn spans_are_widened_to_char_boundaries() {
    let text = "aé🎉b";
    let kept = resolve(vec![hit(2, 4, "custom", Rank::Specific)], &[], text);
    assert_eq!(spans(&kept), vec![(1, 7, "custom")]);
}

#[test]
fn placeholders_are_recognised_exactly() {
    let text =
        b"[REDACTED] [REDACTED:github-token] [REDACTED:] [REDACTED:Bad] [REDACTED[REDACTED:x]";
    let mut found = Vec::new();
    placeholders(text, 100, &mut found);
    let got: Vec<_> = found
        .iter()
        .map(|&(s, e)| std::str::from_utf8(&text[s - 100..e - 100]).unwrap())
        .collect();
    assert_eq!(
        got,
        ["[REDACTED]", "[REDACTED:github-token]", "[REDACTED:x]"]
    );
}

#[test]
fn later_passes_look_at_changed_lines_only() {
    let filler = "clean line\n".repeat(WINDOW_GAP / 8);
    let text =
        format!("one\ntwo [REDACTED:x] two\nthree [REDACTED:y]\n{filler}four [REDACTED:z]\nfive");
    let spans: Vec<_> = ["[REDACTED:x]", "[REDACTED:y]", "[REDACTED:z]"]
        .iter()
        .map(|p| {
            let at = text.find(p).unwrap();
            (at, at + p.len())
        })
        .collect();
    let windows = lines_around(&text, &spans);
    let lines: Vec<_> = windows.iter().map(|&(s, e)| &text[s..e]).collect();
    assert_eq!(
        lines,
        [
            "two [REDACTED:x] two\nthree [REDACTED:y]",
            "four [REDACTED:z]"
        ]
    );
}

#[test]
fn a_second_pass_catches_what_the_first_revealed() {
    // The AWS key id only starts a word once the token glued before it is
    // gone; the first pass cannot see it.
    let token = format!(
        "{}{}",
        "do", "p_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    );
    let key = format!("{}{}", "AK", "IAQ3EGUWTX7LMVB2KQ");
    let text = format!("{token}{key} end");
    let (out, report) = Redactor::builtin().redact_with_report(&text);
    assert_eq!(
        out,
        "[REDACTED:digitalocean-token][REDACTED:aws-access-key-id] end"
    );
    assert_eq!(report.total(), 2);
    assert_eq!(redact(&out), out);
}

#[test]
fn json_escaped_newline_starts_a_word() {
    let key = format!("{}{}", "AK", "IAQ3EGUWTX7LMVB2KQ");
    assert_eq!(
        redact(&format!(r#"{{"content":"id:\n{key}\nok"}}"#)),
        r#"{"content":"id:\n[REDACTED:aws-access-key-id]\nok"}"#
    );
    assert_eq!(redact(&format!("x{key}")), format!("x{key}"));
}

#[test]
fn private_blocks_are_counted_and_secrets_inside_them_are_not() {
    let (out, report) =
        Redactor::builtin().redact_with_report("a <private>password=hunter2</private> b");
    assert_eq!(out, "a  b");
    assert_eq!(report.to_string(), "1 private");
}

#[test]
fn report_display_and_json() {
    let mut report = Report::default();
    assert_eq!(report.to_string(), "nothing");
    report.add("password", 2);
    report.add("jwt", 1);
    assert_eq!(report.to_string(), "1 jwt, 2 password");
    assert_eq!(
        serde_json::to_string(&report).unwrap(),
        r#"{"jwt":1,"password":2}"#
    );
    assert_eq!(report.total(), 3);
    assert_eq!(report.get("jwt"), 1);
    assert_eq!(report.get("nope"), 0);
}

#[test]
fn invalid_extra_pattern_is_named_on_one_line() {
    let err = Redactor::new(&["ok".into(), "a{2,1}".into()]).unwrap_err();
    let RedactError::InvalidPattern { pattern, reason } = &err;
    assert_eq!(pattern, "a{2,1}");
    assert!(!reason.contains('\n') && !reason.is_empty(), "{reason}");
    assert!(
        err.to_string()
            .starts_with("redact.extra_patterns: invalid regex `a{2,1}`: ")
    );
}

#[test]
fn extra_pattern_cannot_reopen_a_placeholder() {
    let r = Redactor::new(&["REDACTED".into(), "[a-z]+-token".into()]).unwrap();
    let text = format!("x=1 {}{}", "gh", "p_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5");
    let once = r.redact(&text);
    assert_eq!(once, "x=1 [REDACTED:github-token]");
    assert_eq!(r.redact(&once), once);
}

#[test]
fn clean_text_is_returned_as_is() {
    let text = "Rien à signaler 🎉, the build passed in 12.3 s.";
    let (out, report) = Redactor::builtin().redact_with_report(text);
    assert_eq!(out, text);
    assert!(report.is_empty());
}

/// What keeps megabytes cheap: the rules go over the text once, and
/// the pass that checks for secrets revealed by a replacement only looks at
/// the lines that changed. Timings are in `benches/redact.rs`.
#[test]
fn later_passes_rescan_only_the_changed_lines() {
    let token = ["ghp", "_", &"a1B2c3D4e5".repeat(4)[..36]].concat();
    let chunk = "Réunion : on a corrigé le bug dans src/main.rs (commit 3f2a9c1e8b7d).\n\
         The password reset flow calls https://api.example.com/v1/reset?user=42 with a key.\n";
    let mut text = String::new();
    let mut secrets = 0;
    while text.len() < 1 << 20 {
        for _ in 0..1000 {
            text.push_str(chunk);
        }
        text.push_str(&format!("GITHUB_TOKEN={token}\n"));
        secrets += 1;
    }
    COLLECTED.with(|n| n.set(0));
    let (out, report) = Redactor::builtin().redact_with_report(&text);
    assert!(!out.contains(&token));
    assert_eq!(report.total(), secrets);
    let scanned = COLLECTED.with(|n| n.get());
    assert!(
        scanned <= text.len() + secrets * 4 * WINDOW_GAP,
        "{scanned} bytes scanned for {} bytes of text",
        text.len()
    );
}
