//! Reading an LLM's answer into the record, however it was wrapped.
//!
//! Models add prose, wrap JSON in code fences, return one update instead of
//! a list, `null` for an empty section or a bare string for a one-item list.
//! All of that is accepted; only an answer with no usable JSON is an error
//! (the worker keeps the raw text in `.debug/` and changes nothing).

use serde_json::Value;

use super::record::{Extraction, Sections, Update};

/// Balanced `{…}` candidates tried at most; answers are small, this only
/// bounds the work on a pathological one.
const MAX_CANDIDATES: usize = 2_000;

/// Finds and reads the record in an answer: the whole text, then each code
/// fence, then every balanced `{…}` holding `"updates"` (outermost first),
/// then any holding `"sections"` (a lone update).
pub fn parse_answer(raw: &str) -> Result<Extraction, String> {
    let text = raw.trim().trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err("empty answer".to_string());
    }
    let mut first_error: Option<String> = None;
    let mut attempt = |candidate: &str| -> Option<Extraction> {
        let result = serde_json::from_str::<Value>(candidate.trim())
            .map_err(|e| format!("invalid JSON ({e})"))
            .and_then(|v| parse_value(&v));
        match result {
            Ok(e) => Some(e),
            Err(e) => {
                first_error.get_or_insert(e);
                None
            }
        }
    };

    if (text.starts_with('{') || text.starts_with('['))
        && let Some(e) = attempt(text)
    {
        return Ok(e);
    }
    for body in fences(text) {
        if let Some(e) = attempt(body) {
            return Ok(e);
        }
    }
    let objects = balanced_objects(text);
    for key in ["\"updates\"", "\"sections\""] {
        for candidate in objects.iter().filter(|c| c.contains(key)) {
            if let Some(e) = attempt(candidate) {
                return Ok(e);
            }
        }
    }
    Err(match first_error {
        Some(e) => format!("no usable record in the answer: {e}"),
        None => "no JSON object with \"updates\" in the answer".to_string(),
    })
}

/// Reads the record from parsed JSON: `{"updates":[…]}`, a lone update, or
/// a bare list of updates.
pub fn parse_value(value: &Value) -> Result<Extraction, String> {
    let updates: Vec<&Value> = match value {
        Value::Object(o) => match o.get("updates") {
            Some(Value::Array(items)) => items.iter().collect(),
            Some(Value::Null) => Vec::new(),
            Some(one @ Value::Object(_)) => vec![one],
            Some(other) => return Err(format!("\"updates\" is {}, not a list", kind(other))),
            None if o.contains_key("sections") || o.keys().any(|k| section_key(k).is_some()) => {
                vec![value]
            }
            None => return Err("the JSON object has no \"updates\"".to_string()),
        },
        Value::Array(items) => items.iter().collect(),
        other => return Err(format!("the answer is {}, not an object", kind(other))),
    };
    Ok(Extraction {
        updates: updates.into_iter().filter_map(update).collect(),
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn update(v: &Value) -> Option<Update> {
    let o = v.as_object()?;
    let project = match o.get("project") {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    // Sections nested as asked, or flattened into the update.
    let source = match o.get("sections") {
        Some(Value::Object(s)) => s,
        _ => o,
    };
    let mut sections = Sections::default();
    for (key, items) in source {
        let Some(key) = section_key(key) else {
            continue;
        };
        let list = match key {
            "contexte" => &mut sections.contexte,
            "objectif" => &mut sections.objectif,
            "problemes" => &mut sections.problemes,
            "connaissances" => &mut sections.connaissances,
            "travail" => &mut sections.travail,
            "decisions" => &mut sections.decisions,
            "a_suivre" => &mut sections.a_suivre,
            _ => &mut sections.a_suivre_done,
        };
        list.extend(strings(items));
    }
    let long_memory_update = match o.get("long_memory_update") {
        Some(v @ Value::Array(_)) => Some(strings(v).join("\n")),
        Some(v) => strings(v).into_iter().next(),
        None => None,
    }
    .filter(|s| !s.is_empty());
    Some(Update {
        project,
        sections,
        long_memory_update,
    })
}

/// A section's items: a list, a single string, `null`; scalars are written
/// out, objects contribute their `text`.
fn strings(v: &Value) -> Vec<String> {
    let one = |v: &Value| -> Option<String> {
        let s = match v {
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Object(o) => o.get("text")?.as_str()?.trim().to_string(),
            _ => return None,
        };
        (!s.is_empty()).then_some(s)
    };
    match v {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}

/// The record's key for a section name as a model may spell it: accents,
/// case, spaces, the Markdown titles, or the English headings.
fn section_key(name: &str) -> Option<&'static str> {
    let folded: String = crate::format::fold_accents(name.trim())
        .chars()
        .map(|c| if matches!(c, ' ' | '-') { '_' } else { c })
        .collect();
    Some(match folded.as_str() {
        "contexte" | "context" => "contexte",
        "objectif" | "objectifs" | "goal" | "goals" | "objective" => "objectif",
        "problemes" | "probleme" | "problemes_rencontres" | "problems" | "issues" => "problemes",
        "connaissances" | "connaissances_acquises" | "knowledge" => "connaissances",
        "travail" | "travail_produit" | "work" | "work_done" => "travail",
        "decisions" | "decisions_prises" => "decisions",
        "a_suivre" | "todo" | "to_do" | "next_steps" => "a_suivre",
        "a_suivre_done" | "done" | "finalise" => "a_suivre_done",
        _ => return None,
    })
}

/// Bodies of the Markdown code fences, language tag removed.
fn fences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut parts = text.split("```");
    parts.next();
    while let Some(body) = parts.next() {
        // The tag is whatever precedes the first line break, if it holds no JSON.
        let body = match body.split_once('\n') {
            Some((tag, rest)) if !tag.contains(['{', '[']) => rest,
            _ => body,
        };
        out.push(body);
        // Skip the prose between this fence and the next.
        if parts.next().is_none() {
            break;
        }
    }
    out
}

/// Every balanced `{…}` in the text, outermost first, aware of JSON strings
/// and escapes so a brace inside a string does not count.
fn balanced_objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    text.match_indices('{')
        .take(MAX_CANDIDATES)
        .filter_map(|(start, _)| closing_brace(bytes, start).map(|end| &text[start..=end]))
        .collect()
}

fn closing_brace(bytes: &[u8], start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(project: &str, sections: Sections) -> Extraction {
        Extraction {
            updates: vec![Update {
                project: project.into(),
                sections,
                long_memory_update: None,
            }],
        }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    const SEEDS_EXAMPLE: &str = r#"{
  "updates": [
    {
      "project": "cmms_doc",
      "sections": {
        "contexte": ["Refonte du hook memory-session.sh pour passer au format JSON structuré."],
        "objectif": ["Vérifier la découverte des skills."],
        "problemes": ["Recherche des skills échouée : aucun skill trouvé."],
        "connaissances": [],
        "travail": ["Rédaction spec mémoire de session."],
        "decisions": [],
        "a_suivre": ["Revalider découverte skills."],
        "a_suivre_done": []
      },
      "long_memory_update": null
    }
  ]
}"#;

    fn seeds_record() -> Extraction {
        record(
            "cmms_doc",
            Sections {
                contexte: s(&[
                    "Refonte du hook memory-session.sh pour passer au format JSON structuré.",
                ]),
                objectif: s(&["Vérifier la découverte des skills."]),
                problemes: s(&["Recherche des skills échouée : aucun skill trouvé."]),
                travail: s(&["Rédaction spec mémoire de session."]),
                a_suivre: s(&["Revalider découverte skills."]),
                ..Sections::default()
            },
        )
    }

    #[test]
    fn reads_the_seeds_example() {
        assert_eq!(parse_answer(SEEDS_EXAMPLE), Ok(seeds_record()));
    }

    #[test]
    fn finds_the_json_inside_prose_or_a_fence() {
        let prose =
            format!("Voici le JSON demandé :\n{SEEDS_EXAMPLE}\nJ'espère que cela aide {{smile}}.");
        assert_eq!(parse_answer(&prose), Ok(seeds_record()));
        let fenced = format!("Sure! Here it is:\n```json\n{SEEDS_EXAMPLE}\n```\nAnything else?");
        assert_eq!(parse_answer(&fenced), Ok(seeds_record()));
        let bare_fence = format!("```\n{SEEDS_EXAMPLE}```");
        assert_eq!(parse_answer(&bare_fence), Ok(seeds_record()));
    }

    #[test]
    fn a_fence_with_an_example_does_not_hide_the_answer() {
        let text = format!("Format: ```{{\"a\": 1}}``` and the answer:\n{SEEDS_EXAMPLE}");
        assert_eq!(parse_answer(&text), Ok(seeds_record()));
    }

    #[test]
    fn braces_and_quotes_inside_strings_do_not_confuse_the_scan() {
        let text = r#"Note {not json} then {"updates":[{"project":"root","sections":{"travail":["Ajouté `fn f() { \"}\" }`"]}}]} end"#;
        assert_eq!(
            parse_answer(text),
            Ok(record(
                "root",
                Sections {
                    travail: s(&["Ajouté `fn f() { \"}\" }`"]),
                    ..Sections::default()
                }
            ))
        );
    }

    #[test]
    fn is_lenient_about_shape() {
        let text = r#"{"updates":{"project":" api ","sections":{"contexte":null,"objectif":"Un seul objectif","problèmes":["  ", "Panne"],"À suivre":["x", 3, {"text":"y"}],"unknown":["z"]},"long_memory_update":"  "}}"#;
        assert_eq!(
            parse_answer(text),
            Ok(record(
                "api",
                Sections {
                    objectif: s(&["Un seul objectif"]),
                    problemes: s(&["Panne"]),
                    a_suivre: s(&["x", "3", "y"]),
                    ..Sections::default()
                }
            ))
        );
        // A lone update, sections flattened, missing keys.
        let flat =
            r#"{"project":"root","travail":["Fait"],"long_memory_update":["Fait A","Fait B"]}"#;
        let got = parse_answer(flat).unwrap();
        assert_eq!(got.updates[0].sections.travail, ["Fait"]);
        assert_eq!(
            got.updates[0].long_memory_update.as_deref(),
            Some("Fait A\nFait B")
        );
        // Missing project and sections.
        assert_eq!(
            parse_answer(r#"{"updates":[{}]}"#),
            Ok(record("", Sections::default()))
        );
        assert_eq!(parse_answer(r#"{"updates":[]}"#), Ok(Extraction::default()));
        assert_eq!(
            parse_answer(r#"{"updates":null}"#),
            Ok(Extraction::default())
        );
        assert_eq!(
            parse_answer(r#"[{"project":"root"}]"#),
            Ok(record("root", Sections::default()))
        );
    }

    #[test]
    fn english_keys_are_understood() {
        let text = r#"{"updates":[{"project":"root","sections":{"context":["C"],"goal":["G"],"problems":["P"],"knowledge":["K"],"work done":["W"],"decisions":["D"],"to do":["T"],"done":["F"]}}]}"#;
        let got = parse_answer(text).unwrap();
        let sec = &got.updates[0].sections;
        assert_eq!(
            (
                &sec.contexte[0],
                &sec.objectif[0],
                &sec.problemes[0],
                &sec.connaissances[0]
            ),
            (
                &"C".to_string(),
                &"G".to_string(),
                &"P".to_string(),
                &"K".to_string()
            )
        );
        assert_eq!(
            (
                &sec.travail[0],
                &sec.decisions[0],
                &sec.a_suivre[0],
                &sec.a_suivre_done[0]
            ),
            (
                &"W".to_string(),
                &"D".to_string(),
                &"T".to_string(),
                &"F".to_string()
            )
        );
    }

    #[test]
    fn unusable_answers_are_errors_with_a_reason() {
        assert_eq!(parse_answer("   "), Err("empty answer".into()));
        assert_eq!(
            parse_answer("I cannot help with that."),
            Err("no JSON object with \"updates\" in the answer".into())
        );
        let bad = parse_answer(r#"{"updates":[{"project":"root","sections":{"travail":["x",]}}"#)
            .unwrap_err();
        assert!(
            bad.starts_with("no usable record in the answer: invalid JSON"),
            "{bad}"
        );
        let wrong = parse_answer(r#"{"updates":"none"}"#).unwrap_err();
        assert!(
            wrong.contains("\"updates\" is a string, not a list"),
            "{wrong}"
        );
        assert!(parse_answer(r#"{"foo":1}"#).is_err());
        assert!(parse_answer("42").is_err());
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn bullet() -> impl Strategy<Value = String> {
            // Non-empty, already trimmed: what the parser keeps as is.
            "[a-zA-Zéà{}\\[\\]\"`:, ]{0,20}[a-zA-Zé{}]".prop_map(|s| s.trim().to_string())
        }

        fn extraction() -> impl Strategy<Value = Extraction> {
            let update = (
                "[a-z_]{1,8}",
                prop::collection::vec(bullet(), 0..3),
                prop::collection::vec(bullet(), 0..3),
            )
                .prop_map(|(project, travail, a_suivre)| Update {
                    project,
                    sections: Sections {
                        travail,
                        a_suivre,
                        ..Sections::default()
                    },
                    long_memory_update: None,
                });
            prop::collection::vec(update, 0..3).prop_map(|updates| Extraction { updates })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

            #[test]
            fn never_panics(text in "\\PC{0,200}") {
                let _ = parse_answer(&text);
            }

            #[test]
            fn a_record_is_found_wherever_it_is_wrapped(
                record in extraction(),
                before in "[^{}`]{0,30}",
                after in "[^{}`]{0,30}",
                fenced in any::<bool>(),
            ) {
                let json = serde_json::to_string(&record).unwrap();
                let text = if fenced {
                    format!("{before}\n```json\n{json}\n```\n{after}")
                } else {
                    format!("{before} {json} {after}")
                };
                prop_assert_eq!(parse_answer(&text), Ok(record));
            }
        }
    }
}
