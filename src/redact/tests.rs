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
