//! The built-in rules: one regex per kind of secret, the literal keywords that
//! must occur for the regex to be worth running, and a check that weeds out
//! look-alikes the regex alone cannot tell apart.
//!
//! Patterns run in ASCII byte mode (`(?-u)` is prepended): Unicode word
//! boundaries would push the regex engine off its fast path on any French or
//! emoji text, and every secret format here is ASCII anyway. The secret
//! itself is the group `s` or, for key/value rules, one of `eq`, `dq`, `sq`,
//! `bare`.
//!
//! A pattern starting with `{B}` must match at the start of a word. That is
//! checked in code rather than with `\b`, for two reasons: the regex then
//! starts with a literal (`ghp_`, `AKIA`) and the engine can skip to it with
//! a fast substring search; and a JSON-escaped `\n`, as found in raw
//! transcript lines, must count as a word start too.

use regex::bytes::{Captures, Match};

use super::value::{
    is_code, is_code_ref, is_placeholder, is_plain_word, is_screaming_snake, is_small_number,
    is_stop_word, looks_secret, random_enough,
};

/// Marks a pattern whose secret must start a word (see the module docs).
pub(super) const BOUNDED: &str = "{B}";

/// Decides whether a match is a secret, and of which kind.
pub(super) type Check = fn(&Found<'_>) -> Option<&'static str>;

pub(super) struct Rule {
    /// Name used in the placeholder, `[REDACTED:<kind>]`, unless the check
    /// refines it (key/value rules name the kind after the key).
    pub kind: &'static str,
    /// Provider formats win over contextual rules matching the same span, so
    /// `TOKEN=ghp_…` reports a `github-token` rather than a `token`.
    pub specific: bool,
    /// The regex only runs when one of these occurs (none means always).
    pub keywords: &'static [&'static str],
    pub keywords_ci: bool,
    pub pattern: &'static str,
    pub check: Check,
    /// A cheap test the text must pass before the regex is compiled and run:
    /// common key words ("key", "pass") appear in most prose, and compiling
    /// the key/value pattern costs milliseconds a hook cannot spend.
    pub gate: Option<fn(&[u8]) -> bool>,
}

impl Rule {
    pub fn bounded(&self) -> bool {
        self.pattern.starts_with(BOUNDED)
    }
}

/// Whether a secret starting at `at` starts a word: nothing alphanumeric
/// right before it, or a JSON escape such as the `\n` in `"…\nghp_…"`.
pub(super) fn at_word_start(hay: &[u8], at: usize) -> bool {
    match at.checked_sub(1).map(|i| hay[i]) {
        None => true,
        Some(b'n' | b'r' | b't') if at >= 2 && hay[at - 2] == b'\\' => true,
        Some(b) => !b.is_ascii_alphanumeric(),
    }
}

/// One regex match offered to a rule's check.
pub(super) struct Found<'h> {
    pub caps: &'h Captures<'h>,
    pub hay: &'h [u8],
    /// The part that would be replaced.
    pub value: Match<'h>,
    /// The value was written between quotes, so it is a literal.
    pub quoted: bool,
    pub kind: &'static str,
}

impl<'h> Found<'h> {
    pub fn new(caps: &'h Captures<'h>, hay: &'h [u8], kind: &'static str) -> Option<Self> {
        let mut quoted = false;
        let mut value = caps.name("s");
        for name in ["eq", "dq", "sq"] {
            if value.is_none() {
                value = caps.name(name);
                quoted = value.is_some();
            }
        }
        let value = value.or_else(|| caps.name("bare"))?;
        Some(Found {
            caps,
            hay,
            value,
            quoted,
            kind,
        })
    }

    fn bytes(&self) -> &'h [u8] {
        self.value.as_bytes()
    }

    fn group(&self, name: &str) -> &'h [u8] {
        self.caps.name(name).map_or(&[][..], |m| m.as_bytes())
    }
}

macro_rules! rule {
    ($kind:expr, $specific:expr, [$($kw:expr),*], $ci:expr, $pattern:expr, $check:expr) => {
        Rule {
            kind: $kind,
            specific: $specific,
            keywords: &[$($kw),*],
            keywords_ci: $ci,
            pattern: $pattern,
            check: $check,
            gate: None,
        }
    };
    ($kind:expr, $specific:expr, [$($kw:expr),*], $ci:expr, $pattern:expr, $check:expr, gate = $gate:expr) => {
        Rule {
            kind: $kind,
            specific: $specific,
            keywords: &[$($kw),*],
            keywords_ci: $ci,
            pattern: $pattern,
            check: $check,
            gate: Some($gate),
        }
    };
}

fn ident_has_key_word(ident: &[u8]) -> bool {
    const WORDS: [&[u8]; 7] = [
        b"pass",
        b"pwd",
        b"secret",
        b"token",
        b"key",
        b"auth",
        b"credential",
    ];
    let ident = ident.to_ascii_lowercase();
    WORDS
        .iter()
        .any(|w| ident.windows(w.len()).any(|x| x == *w))
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b':')
}

/// Could `hay` hold a `--password value` flag? A `-` starting a word,
/// then a name holding a key word, then a blank.
pub(super) fn cli_flag_gate(hay: &[u8]) -> bool {
    memchr::memchr_iter(b'-', hay).any(|i| {
        if i > 0 && (hay[i - 1].is_ascii_alphanumeric() || hay[i - 1] == b'-') {
            return false;
        }
        let name_start = if hay.get(i + 1) == Some(&b'-') {
            i + 2
        } else {
            i + 1
        };
        let mut end = name_start;
        while end < hay.len()
            && end - name_start < 80
            && (hay[end].is_ascii_alphanumeric() || hay[end] == b'-')
        {
            end += 1;
        }
        matches!(hay.get(end), Some(b' ' | b'\t')) && ident_has_key_word(&hay[name_start..end])
    })
}

/// Could `hay` hold `<password>value</…`? A tag whose name holds a key word.
pub(super) fn xml_gate(hay: &[u8]) -> bool {
    memchr::memchr_iter(b'<', hay).any(|i| {
        let mut end = i + 1;
        while end < hay.len() && end - i < 80 && is_ident_byte(hay[end]) {
            end += 1;
        }
        hay.get(end) == Some(&b'>') && ident_has_key_word(&hay[i + 1..end])
    })
}

/// Could `hay` hold a `key = value` pair whose key names a secret? An `=` or
/// `:` after an identifier (maybe quoted) that contains a key word.
pub(super) fn assignment_gate(hay: &[u8]) -> bool {
    memchr::memchr2_iter(b'=', b':', hay).any(|op| {
        let mut end = op;
        while end > 0 && matches!(hay[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        while end > 0 && matches!(hay[end - 1], b'"' | b'\'' | b'\\') {
            end -= 1;
        }
        let mut start = end;
        while start > 0
            && end - start < 80
            && (hay[start - 1].is_ascii_alphanumeric()
                || matches!(hay[start - 1], b'_' | b'.' | b'-'))
        {
            start -= 1;
        }
        ident_has_key_word(&hay[start..end])
    })
}

/// Key words of key/value rules. Long forms come first; `pass`, `pwd` and
/// `auth` are "weak": they must start a word of the key (see `weak_word_ok`).
pub(super) const KEY_WORDS: &str = r"password|passwd|passphrase|passwort|pass|pwd|client[_-]?secret|secret[_-]?key|secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token|token|api[_-]?key|access[_-]?key|private[_-]?key|session[_-]?key|encryption[_-]?key|signing[_-]?key|master[_-]?key|credentials?|auth";

#[rustfmt::skip]
pub(super) static RULES: &[Rule] = &[
    // --- LLM providers -------------------------------------------------------
    rule!("anthropic-key", true, ["sk-ant-"], false,
        r"{B}(?P<s>sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,})",
        accept),
    rule!("openai-key", true, ["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"], false,
        r"{B}(?P<s>sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,})",
        accept),
    rule!("openai-key", true, ["sk-"], false,
        r"{B}(?P<s>sk-[A-Za-z0-9]{48})\b",
        random),
    rule!("openrouter-key", true, ["sk-or-v1-"], false,
        r"{B}(?P<s>sk-or-v1-[a-f0-9]{64})",
        accept),
    // Other providers copied OpenAI's `sk-` prefix with their own lengths.
    rule!("api-key", false, ["sk-"], false,
        r"{B}(?P<s>sk-[A-Za-z0-9_-]{32,})",
        random),
    rule!("groq-key", true, ["gsk_"], false,
        r"{B}(?P<s>gsk_[A-Za-z0-9]{48,})",
        accept),
    rule!("xai-key", true, ["xai-"], false,
        r"{B}(?P<s>xai-[A-Za-z0-9]{60,})",
        accept),
    rule!("huggingface-token", true, ["hf_"], false,
        r"{B}(?P<s>hf_[A-Za-z0-9]{34,})",
        random),
    // --- Code hosting and package registries ---------------------------------
    rule!("github-token", true, ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], false,
        r"{B}(?P<s>gh[pousr]_[A-Za-z0-9]{36,})",
        accept),
    rule!("github-token", true, ["github_pat_"], false,
        r"{B}(?P<s>github_pat_[A-Za-z0-9_]{22,})",
        accept),
    rule!("gitlab-token", true,
        ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glcbt-", "glsoat-", "glffct-", "gloas-", "glagent-"],
        false,
        r"{B}(?P<s>gl(?:pat|dt|rt|ptt|ft|imt|cbt|soat|ffct|oas|agent)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*)",
        accept),
    rule!("npm-token", true, ["npm_"], false,
        r"{B}(?P<s>npm_[A-Za-z0-9]{36})",
        accept),
    rule!("pypi-token", true, ["pypi-AgE"], false,
        r"{B}(?P<s>pypi-AgE[A-Za-z0-9_-]{50,})",
        accept),
    rule!("docker-token", true, ["dckr_pat_"], false,
        r"{B}(?P<s>dckr_pat_[A-Za-z0-9_-]{20,})",
        accept),
    // --- Cloud -----------------------------------------------------------------
    rule!("aws-access-key-id", true, ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"], false,
        r"{B}(?P<s>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b",
        accept),
    rule!("google-api-key", true, ["AIza"], false,
        r"{B}(?P<s>AIza[0-9A-Za-z_-]{35})",
        accept),
    rule!("google-oauth-secret", true, ["GOCSPX-"], false,
        r"{B}(?P<s>GOCSPX-[A-Za-z0-9_-]{28})",
        accept),
    // A service-account JSON names its key by a 40-hex id; with the id, the
    // key (redacted apart, as a PEM block) is easier to find and revoke.
    rule!("gcp-private-key-id", true, ["private_key_id"], false,
        r#"private_key_id\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<s>[0-9a-f]{40})\b"#,
        accept),
    rule!("google-oauth-token", true, ["ya29."], false,
        r"{B}(?P<s>ya29\.[A-Za-z0-9_-]{20,})",
        accept),
    rule!("azure-storage-key", true, ["accountkey", "sharedaccesskey"], true,
        r"(?i)\b(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        not_placeholder),
    rule!("azure-sas", true, ["sig="], false,
        r"[?&]sig=(?P<s>[A-Za-z0-9%+/=]{20,})",
        accept),
    rule!("digitalocean-token", true, ["_v1_"], false,
        r"{B}(?P<s>do[opr]_v1_[a-f0-9]{64})",
        accept),
    rule!("vault-token", true, ["hvs.", "hvb."], false,
        r"{B}(?P<s>hv[sb]\.[A-Za-z0-9_-]{24,})",
        accept),
    rule!("supabase-token", true, ["sbp_"], false,
        r"{B}(?P<s>sbp_[a-f0-9]{40})",
        accept),
    // --- SaaS --------------------------------------------------------------------
    rule!("slack-token", true, ["xox"], false,
        r"{B}(?P<s>xox[abposre]-[A-Za-z0-9-]{10,})",
        has_digit),
    rule!("slack-token", true, ["xapp-"], false,
        r"{B}(?P<s>xapp-[0-9]+-[A-Za-z0-9-]{10,})",
        accept),
    rule!("slack-webhook", true, ["hooks.slack.com"], false,
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/+-]{20,})",
        accept),
    rule!("stripe-key", true, ["_live_", "_test_"], false,
        r"{B}(?P<s>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})",
        accept),
    rule!("stripe-webhook-secret", true, ["whsec_"], false,
        r"{B}(?P<s>whsec_[A-Za-z0-9+/=]{24,})",
        accept),
    rule!("sendgrid-key", true, ["SG."], false,
        r"{B}(?P<s>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})",
        accept),
    rule!("twilio-key", true, ["SK"], false,
        r"{B}(?P<s>SK[0-9a-f]{32})\b",
        accept),
    // Mailgun's private API keys (the older format still in use).
    rule!("mailgun-key", true, ["key-"], false,
        r"{B}(?P<s>key-[0-9a-f]{32})\b",
        accept),
    rule!("mailchimp-key", true, ["-us"], false,
        r"{B}(?P<s>[0-9a-f]{32}-us[0-9]{1,2})\b",
        accept),
    rule!("shopify-token", true, ["shpat_", "shpca_", "shppa_", "shpss_"], false,
        r"{B}(?P<s>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})",
        accept),
    rule!("linear-key", true, ["lin_api_"], false,
        r"{B}(?P<s>lin_api_[A-Za-z0-9]{40})",
        accept),
    rule!("notion-token", true, ["ntn_"], false,
        r"{B}(?P<s>ntn_[A-Za-z0-9]{40,})",
        accept),
    rule!("notion-token", true, ["secret_"], false,
        r"{B}(?P<s>secret_[A-Za-z0-9]{43})\b",
        random),
    rule!("telegram-token", true, [":AA"], false,
        r"(?P<s>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})",
        telegram),
    // Discord bot tokens have no prefix: their first segment is the bot's
    // numeric id in base64, which the check decodes, so the regex can be
    // loose without matching arbitrary dotted text. Two leading digits
    // encode as one of the keywords.
    rule!("discord-token", true, ["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"], false,
        r"{B}(?P<s>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})",
        discord_id),
    rule!("discord-webhook", true, ["discord"], true,
        r"(?i:discord(?:app)?\.com)/api/webhooks/[0-9]+/(?P<s>[A-Za-z0-9_-]{40,})",
        accept),
    rule!("age-key", true, ["AGE-SECRET-KEY-"], false,
        r"{B}(?P<s>AGE-SECRET-KEY-1[0-9A-Z]{58})",
        accept),
    // --- Structured tokens -------------------------------------------------------
    rule!("jwt", true, ["eyJ"], false,
        r"{B}(?P<s>eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]{4,}){2,4})",
        accept),
    // --- Contextual: the surroundings say a secret follows -------------------------
    // The password runs to the last `@` of the authority, as URL parsers
    // read it: `user:p@ss@host` leaks nothing.
    rule!("url-password", false, ["://"], false,
        r#"[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:@/?#"'<>\\\[\]]*:(?P<s>[^\s/?#"'<>\\]+)@"#,
        not_placeholder),
    rule!("bearer-token", false, ["authorization"], true,
        r#"(?i)\b(?:proxy-)?authorization\\?["'`]?[ \t]*[:=][ \t]*\\?["'`]?(?:(?P<scheme>bearer|basic|token|bot|apikey|sso-key|negotiate|ntlm)[ \t]+)?(?P<s>[^\s"'`\\,;]+)"#,
        authorization),
    rule!("bearer-token", false, ["bearer"], true,
        r"(?i)\bbearer[ \t]+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
        bearer),
    // `KEY=value`, `key: value`, `"key": "value"`, `key => 'value'`,
    // `key := "value"`, also JSON inside a JSON string (`\"key\": \"value\"`).
    // The key is bounded: capture groups cost time per byte of the match, and
    // a megabyte of identifier characters before `token=` must not make
    // that a megabyte.
    rule!("password", false, ["pass", "pwd", "secret", "token", "key", "auth", "credential"], true,
        concat!(
            r#"(?i)(?P<key>[a-z0-9_.-]{0,64}?(?P<word>{W}))(?P<kq>\\?["']?)[ \t]*(?P<op>:=|=>|=|:)[ \t]*"#,
            r#"(?:\\"(?P<eq>(?:[^"\\\r\n]|\\[^"\r\n])*)\\""#,
            r#"|"(?P<dq>(?:[^"\\\r\n]|\\.)*)""#,
            r#"|'(?P<sq>[^'\r\n]*)'"#,
            r#"|(?P<bare>[^\s"'`,;&)}\]\\:=>][^\s"'`,;&)}\]\\>]*))"#,
        ),
        assignment, gate = assignment_gate),
    rule!("password", false, ["pass", "token", "secret", "key"], true,
        r#"(?i)--?(?P<key>(?:[a-z0-9]+-){0,6}(?P<word>password|passwd|pass|auth-token|access-token|token|client-secret|secret-key|secret|api-?key|access-key))[ \t]+(?:"(?P<dq>(?:[^"\\\r\n]|\\.)*)"|'(?P<sq>[^'\r\n]*)'|(?P<bare>[^\s"'\\-][^\s"'\\]*))"#,
        cli_flag, gate = cli_flag_gate),
    rule!("password", false, ["password", "identified"], true,
        r"(?i)\b(?:password|identified[ \t]+by)[ \t]+'(?P<s>[^'\r\n]+)'",
        not_placeholder),
    rule!("password", false, ["pass", "secret", "token", "key"], true,
        r"(?i)<(?P<key>[a-z0-9_:.-]{0,64}(?P<word>password|passwd|client[_-]?secret|secret|token|api[_-]?key))>(?P<s>[^<\r\n]+)</",
        xml_element, gate = xml_gate),
    // `aws configure set aws_secret_access_key …` and other spellings that
    // put no `=` between the name and the 40-character key.
    rule!("aws-secret-key", true, ["secret"], true,
        r"(?i)aws_?secret_?access_?key[^A-Za-z0-9/+=\r\n]{1,6}(?P<s>[A-Za-z0-9/+]{40})\b",
        not_placeholder),
    // `.netrc`: `machine host login me password s3cret`, on one line or one
    // field per line.
    rule!("password", false, ["password"], true,
        r"(?im)(?:\blogin[ \t]+\S+[ \t]+|^[ \t]*)password[ \t]+(?P<s>[^\s\\]+)[ \t]*(?:$|\bmachine\b|\baccount\b)",
        netrc),
    rule!("cookie", false, ["cookie"], true,
        r#"(?i)\b(?:set-)?cookie\\?["']?[ \t]*:[ \t]*\\?["']?(?P<s>[^\r\n"'\\]*=[^\r\n"'\\]+)"#,
        cookie),
    rule!("password", false, ["sshpass"], false,
        r#"\bsshpass\b[^\r\n]*?[ \t]-p[ \t]*(?:"(?P<dq>[^"\r\n]*)"|'(?P<sq>[^'\r\n]*)'|(?P<bare>[^\s"'-][^\s"']*))"#,
        not_placeholder),
    rule!("password", false, ["curl"], false,
        r#"\bcurl\b[^\r\n]*?[ \t](?:-u|--user)[ \t]*["']?[^\s:"']*:(?P<s>[^\s"']+)"#,
        not_placeholder),
    rule!("password", false, ["mysql"], false,
        r#"\bmysql(?:dump|admin|sh)?\b[^\r\n]*?[ \t]-p(?:"(?P<dq>[^"\r\n]*)"|'(?P<sq>[^'\r\n]*)'|(?P<bare>[^\s"'-][^\s"']*))"#,
        not_placeholder),
];

fn accept(f: &Found<'_>) -> Option<&'static str> {
    Some(f.kind)
}

fn random(f: &Found<'_>) -> Option<&'static str> {
    random_enough(f.bytes()).then_some(f.kind)
}

fn has_digit(f: &Found<'_>) -> Option<&'static str> {
    f.bytes().iter().any(u8::is_ascii_digit).then_some(f.kind)
}

fn not_placeholder(f: &Found<'_>) -> Option<&'static str> {
    (!is_placeholder(f.bytes())).then_some(f.kind)
}

fn discord_id(f: &Found<'_>) -> Option<&'static str> {
    let first = f.bytes().split(|&b| b == b'.').next()?;
    let id = base64_decode(first)?;
    ((17..=21).contains(&id.len()) && id.iter().all(u8::is_ascii_digit)).then_some(f.kind)
}

/// Bot API URLs glue the token to `bot`: `https://api.telegram.org/bot123…`.
fn telegram(f: &Found<'_>) -> Option<&'static str> {
    let at = f.value.start();
    (at_word_start(f.hay, at) || f.hay[..at].ends_with(b"/bot")).then_some(f.kind)
}

fn netrc(f: &Found<'_>) -> Option<&'static str> {
    let v = f.bytes();
    (!is_placeholder(v) && !is_stop_word(v) && v.len() >= 2).then_some(f.kind)
}

/// `Cookie: a=1; session=…`: the whole header goes, since which cookie
/// holds the session is anyone's guess; prose after `Cookie:` has no `=`.
fn cookie(f: &Found<'_>) -> Option<&'static str> {
    let v = f.bytes().trim_ascii_end();
    (v.len() >= 8 && !is_placeholder(v) && !is_code(v)).then_some(f.kind)
}

fn authorization(f: &Found<'_>) -> Option<&'static str> {
    let v = f.bytes();
    let scheme = f.group("scheme");
    if is_placeholder(v) || is_screaming_snake(v) || !(looks_secret(v) || v.len() >= 16) {
        return None;
    }
    // `authorization = self.headers.get(…)` is code reading the header.
    if scheme.is_empty() && is_code_ref(v, b"authorization") {
        return None;
    }
    Some(if scheme.eq_ignore_ascii_case(b"basic") {
        "basic-auth"
    } else if scheme.eq_ignore_ascii_case(b"bearer") {
        "bearer-token"
    } else {
        "auth-header"
    })
}

fn bearer(f: &Found<'_>) -> Option<&'static str> {
    let v = f.bytes();
    let digit = v.iter().any(u8::is_ascii_digit);
    let alpha = v.iter().any(u8::is_ascii_alphabetic);
    (!is_placeholder(v) && ((digit && alpha) || v.len() >= 32)).then_some(f.kind)
}

fn xml_element(f: &Found<'_>) -> Option<&'static str> {
    if is_placeholder(f.bytes()) || !weak_word_ok(f.group("key"), f.group("word")) {
        return None;
    }
    Some(kind_for_key(f.group("key"), f.group("word")))
}

fn cli_flag(f: &Found<'_>) -> Option<&'static str> {
    // The flag must be a word of the command line, not `a--token b`.
    let at = f.caps.get(0)?.start();
    let escaped_space = at >= 2 && f.hay[at - 2] == b'\\' && matches!(f.hay[at - 1], b'n' | b't');
    if !(at == 0 || f.hay[at - 1].is_ascii_whitespace() || escaped_space) {
        return None;
    }
    let v = f.bytes();
    if is_placeholder(v) || !weak_word_ok(f.group("key"), f.group("word")) {
        return None;
    }
    let secret_like = f.quoted
        || (!is_stop_word(v)
            && (looks_secret(v) || (v.len() >= 8 && !v.iter().all(u8::is_ascii_lowercase))));
    secret_like.then(|| kind_for_key(f.group("key"), f.group("word")))
}

fn assignment(f: &Found<'_>) -> Option<&'static str> {
    let key_match = f.caps.name("key")?;
    let before_key = &f.hay[..key_match.start()];
    let mut key = key_match.as_bytes();
    // `\nDB_PASSWORD=…` inside a JSON string: the `n` belongs to the escape.
    if before_key.ends_with(b"\\") && matches!(key.first(), Some(b'n' | b'r' | b't')) {
        key = &key[1..];
    }
    // `https://x-access-token:…@host` is a URL's user info, which the
    // `url-password` rule cuts at the right `@`; `Error::Token => "…"` is a
    // match arm on an enum variant.
    if before_key.ends_with(b"://") || before_key.ends_with(b"::") {
        return None;
    }
    let word = f.group("word");
    if !weak_word_ok(key, word) {
        return None;
    }
    let v = f.bytes();
    if is_placeholder(v) {
        return None;
    }
    // A relative path names a file holding the secret; `PWD=/home/me` is
    // the shell's working directory, not a password.
    let pwd = word.eq_ignore_ascii_case(b"pwd");
    if v.starts_with(b"./")
        || v.starts_with(b"../")
        || v.starts_with(b"~/")
        || (pwd && v[0] == b'/')
    {
        return None;
    }
    // Versions, IP addresses and OIDs (`CLIENT_AUTH = '1.3.6.1.5.5.7.3.2'`).
    if v.contains(&b'.') && v.iter().all(|b| b.is_ascii_digit() || *b == b'.') {
        return None;
    }
    let kind = kind_for_key(key, word);
    if f.quoted {
        return Some(kind);
    }
    // A single character is a type parameter or a flag, never a credential.
    if v.len() < 2 || is_stop_word(v) || is_small_number(v) {
        return None;
    }
    let op = f.caps.name("op")?;
    let spaced = f
        .hay
        .get(op.end())
        .is_some_and(|b| *b == b' ' || *b == b'\t');
    // Upper-case keys written `KEY=value` are environment files, whose values
    // are literals even with a `(` or a `.` in them. Anything else may be
    // code, where a bare value is usually an expression (`sys::FLAG`,
    // `os.environ[…]`, `token.ERRORTOKEN`).
    let env_style = !key.iter().any(u8::is_ascii_lowercase);
    if (!env_style || spaced) && is_code_ref(v, word) {
        return None;
    }
    if op.as_bytes() == b":" {
        // `pub credentials: Creds0,` or `let token: Token2 = …` declares a
        // field or variable of that type.
        // Only the few words before the key matter; looking no further keeps
        // a megabyte-long line linear.
        let recent = &before_key[before_key.len().saturating_sub(48)..];
        let line = &recent[recent
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)..];
        let declared = line.split(|b| b.is_ascii_whitespace()).any(|w| {
            matches!(
                w,
                b"pub" | b"let" | b"mut" | b"const" | b"static" | b"var" | b"val"
            ) || w.starts_with(b"pub(")
        });
        if declared {
            return None;
        }
        // `const TOKEN: Kind = …` annotates a type.
        if next_non_blank(f.hay, f.value.end()) == Some(b'=') {
            return None;
        }
        // `Password: reset it in settings` is prose; YAML's `password: hunter`
        // ends its line, so only mid-line values need the texture of a secret.
        if !at_line_end(f.hay, f.value.end()) && !looks_secret(v) {
            return None;
        }
    } else if !env_style && is_plain_word(v) {
        // `secret = agent`, `password := pw` and `f(password=pw)` pass a
        // variable: in code a literal would be quoted. Config files write
        // `db.password=letmein`, without the spaces.
        let argument = matches!(before_key.trim_ascii_end().last(), Some(b'(' | b','));
        if spaced || argument || op.as_bytes() != b"=" {
            return None;
        }
    }
    Some(kind)
}

fn next_non_blank(hay: &[u8], from: usize) -> Option<u8> {
    hay[from..]
        .iter()
        .copied()
        .find(|b| *b != b' ' && *b != b'\t')
}

/// `pass`, `pwd` and `auth` are too short to be trusted inside a longer word
/// (`bypass`, `compass`, `oauth`): they must start the key, follow a
/// separator, or start a camel-case word (`dbPass`).
fn weak_word_ok(key: &[u8], word: &[u8]) -> bool {
    let weak = [&b"pass"[..], b"pwd", b"auth"];
    if !weak.iter().any(|w| word.eq_ignore_ascii_case(w)) {
        return true;
    }
    let prefix = &key[..key.len() - word.len()];
    let prefix = prefix
        .strip_prefix(b"--")
        .or_else(|| prefix.strip_prefix(b"-"))
        .unwrap_or(prefix);
    match prefix.last() {
        None => true,
        Some(b'_' | b'-' | b'.') => true,
        Some(c) => (c.is_ascii_lowercase() || c.is_ascii_digit()) && word[0].is_ascii_uppercase(),
    }
}

fn kind_for_key(key: &[u8], word: &[u8]) -> &'static str {
    let lower = word.to_ascii_lowercase();
    let key_lower = key.to_ascii_lowercase();
    let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    if has(&key_lower, b"aws") && has(&key_lower, b"secret") {
        return "aws-secret-key";
    }
    if lower.starts_with(b"pass") || lower == b"pwd" {
        "password"
    } else if lower.ends_with(b"token") {
        "token"
    } else if lower.starts_with(b"api") {
        "api-key"
    } else if lower.starts_with(b"private") {
        "private-key"
    } else if lower.ends_with(b"key") {
        "secret-key"
    } else if lower.ends_with(b"secret") {
        "secret"
    } else if lower.starts_with(b"credential") {
        "credential"
    } else {
        "auth"
    }
}

fn at_line_end(hay: &[u8], from: usize) -> bool {
    let rest = &hay[from..];
    let skip = rest
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(rest.len());
    let rest = &rest[skip..];
    match rest.first() {
        None | Some(b'\n' | b'\r' | b'#') => true,
        Some(b'\\') => matches!(rest.get(1), Some(b'n' | b'r')),
        _ => false,
    }
}

/// Decodes unpadded base64 (standard or URL alphabet); `None` on bad input.
fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(
            base64_decode(b"MTIzNDU2Nzg5MDEyMzQ1Njc4").unwrap(),
            b"123456789012345678"
        );
        assert!(base64_decode(b"a.b").is_none());
    }

    #[test]
    fn weak_words_need_a_word_start() {
        assert!(weak_word_ok(b"pass", b"pass"));
        assert!(weak_word_ok(b"DB_PASS", b"PASS"));
        assert!(weak_word_ok(b"dbPass", b"Pass"));
        assert!(weak_word_ok(b"--pass", b"pass"));
        assert!(!weak_word_ok(b"bypass", b"pass"));
        assert!(!weak_word_ok(b"oauth", b"auth"));
        assert!(weak_word_ok(b"PGPASSWORD", b"PASSWORD"));
    }

    #[test]
    fn kinds_follow_the_key() {
        assert_eq!(
            kind_for_key(b"aws_secret_access_key", b"access_key"),
            "aws-secret-key"
        );
        assert_eq!(kind_for_key(b"DB_PASSWORD", b"PASSWORD"), "password");
        assert_eq!(kind_for_key(b"GITHUB_TOKEN", b"TOKEN"), "token");
        assert_eq!(kind_for_key(b"apiKey", b"apiKey"), "api-key");
        assert_eq!(kind_for_key(b"client_secret", b"client_secret"), "secret");
        assert_eq!(kind_for_key(b"SECRET_KEY", b"SECRET_KEY"), "secret-key");
    }
}

#[cfg(test)]
mod gate_tests {
    use super::{assignment_gate, cli_flag_gate, xml_gate};

    #[test]
    fn the_assignment_gate_opens_only_for_key_value_shapes() {
        for open in [
            "api_key = abc",
            "DB_PASSWORD=hunter2",
            "{\"client_secret\": \"x\"}",
            "{\\\"token\\\":\\\"x\\\"}",
            "auth_token:\tx",
            "password := x",
        ] {
            assert!(assignment_gate(open.as_bytes()), "{open}");
        }
        for closed in [
            "the tests pass and the keys are sorted",
            "Note: the token bucket refills every second.",
            "key points: none",
            "",
        ] {
            assert!(!assignment_gate(closed.as_bytes()), "{closed}");
        }
        assert!(cli_flag_gate(b"mysql --password hunter2"));
        assert!(cli_flag_gate(b"tool -api-key abc"));
        assert!(!cli_flag_gate(b"the tests pass - all of them"));
        assert!(!cli_flag_gate(b"non-secret value"));
        assert!(xml_gate(b"<db:password>x</db:password>"));
        assert!(!xml_gate(b"Vec<u8> and <b>pass</b>"));
    }
}
