use super::*;

#[test]
fn every_builtin_pattern_compiles() {
    for rule in RULES {
        let _ = compile(rule);
    }
    Regex::new(pem::HEADER).unwrap();
    let r = Redactor::new(&[]).unwrap();
    assert!(r.triggers.len() == RULES.len());
}

#[test]
#[ignore]
fn timing_breakdown() {
    let prose = "Réunion : on a corrigé le bug 🎉 dans src/main.rs (commit 3f2a9c1e8b7d). The quick brown fox jumps over the lazy dog, 12345.\n";
    let busy = "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":120}},\"text\":\"set password=hunter2 then token: x9y8z7 and Bearer abcdefgh12345678ijkl and https://a:b1@c/d key AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\"}\n";
    let code = std::fs::read_to_string("/work/main/src/redact/rules.rs").unwrap();
    let r = Redactor::builtin();
    for (name, unit) in [("prose", prose.to_string()), ("busy", busy.to_string()), ("code", code)] {
        let text = unit.repeat((5 << 20) / unit.len());
        let hay = text.as_bytes();
        let t = std::time::Instant::now();
        let fired = r.prefilter.matches(hay);
        eprintln!("{name}: prefilter {:?}", t.elapsed());
        for (i, rule) in RULES.iter().enumerate() {
            if r.triggers[i].is_some_and(|t| !fired.matched(t)) { continue; }
            let re = compile(rule);
            let t = std::time::Instant::now();
            let n = re.captures_iter(hay).count();
            let e = t.elapsed();
            if e.as_millis() > 3 { eprintln!("  {} #{i}: {n} matches {:?}", rule.kind, e); }
        }
        let t = std::time::Instant::now();
        let _ = r.collect(&text);
        eprintln!("  collect {:?}", t.elapsed());
        let t = std::time::Instant::now();
        let _ = placeholders(hay);
        eprintln!("  placeholders {:?}", t.elapsed());
    }
}

#[test]
#[ignore]
fn timing_prefilter_alternatives() {
    let prose = "Réunion : on a corrigé le bug 🎉 dans src/main.rs (commit 3f2a9c1e8b7d). The quick brown fox jumps over the lazy dog, 12345.\n";
    let code = std::fs::read_to_string("/work/main/src/redact/rules.rs").unwrap();
    let mut cs = Vec::new();
    let mut ci = Vec::new();
    for rule in RULES {
        for k in rule.keywords {
            if rule.keywords_ci { ci.push(regex::escape(k)) } else { cs.push(regex::escape(k)) }
        }
    }
    let re = Regex::new(&format!("(?-u){}|(?i:{})", cs.join("|"), ci.join("|"))).unwrap();
    let r = Redactor::builtin();
    let min = |f: &dyn Fn() -> usize| (0..7).map(|_| { let t = std::time::Instant::now(); std::hint::black_box(f()); t.elapsed() }).min().unwrap();
    for (name, unit) in [("prose", prose.to_string()), ("code", code)] {
        let text = unit.repeat((5 << 20) / unit.len());
        let hay = text.as_bytes();
        eprintln!("{name}: set {:?}", min(&|| r.prefilter.matches(hay).len()));
        eprintln!("{name}: single overlapping {:?}", min(&|| { let mut n = 0; let mut at = 0; while let Some(m) = re.find_at(hay, at) { n += 1; at = m.start() + 1; } n }));
        eprintln!("{name}: single find_iter {:?}", min(&|| re.find_iter(hay).count()));
        eprintln!("{name}: memchr count {:?}", min(&|| memchr::memchr_iter(b'q', hay).count()));
    }
}
