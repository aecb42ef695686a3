use super::*;
use proptest::prelude::*;

fn on() -> GateConfig {
    GateConfig::default()
}

fn classes(prompt: &str) -> Vec<&'static str> {
    check(prompt, &on())
        .map(|v| v.classes.iter().map(|c| c.as_str()).collect())
        .unwrap_or_default()
}

/// Which pattern produced each hit: the message of a failing assertion.
fn explain(prompt: &str) -> Vec<String> {
    let scan = anchor::scan(prompt);
    let text = text::analyse(&scan.masked);
    matcher()
        .find(&text, &|_| true)
        .iter()
        .map(|h| {
            format!(
                "{}: {:?} <- {}",
                h.class.as_str(),
                &prompt[text.toks[h.first].start..text.toks[h.last - 1].end],
                matcher().source(h.pattern)
            )
        })
        .collect()
}

#[track_caller]
fn fires(prompt: &str, class: Class) {
    let got = classes(prompt);
    assert!(
        got.contains(&class.as_str()),
        "{prompt:?}: want {}, got {got:?}; {:?}",
        class.as_str(),
        explain(prompt)
    );
}

#[track_caller]
fn silent(prompt: &str) {
    let v = check(prompt, &on());
    assert!(
        v.is_none(),
        "{prompt:?} should be silent, got {:?}; {:?}",
        v.map(|v| v.classes),
        explain(prompt)
    );
}

// --- The lexicon itself ----------------------------------------------------

#[test]
fn every_pattern_parses_and_the_index_holds_them() {
    let m = matcher();
    assert!(m.len() <= matcher::MAX_PATTERNS);
    for i in 0..m.len() {
        let p = m.pattern(i);
        assert!(!p.slots.is_empty(), "{}", m.source(i));
    }
}

#[test]
fn word_lists_are_sorted_without_duplicates_and_phrase_lists_hold_phrases() {
    for &(_, src) in lexicon::PATTERNS {
        for name in src
            .split(['|', ' ', '!'])
            .filter_map(|a| a.trim_end_matches('?').strip_prefix('@'))
        {
            match lexicon::list(name) {
                matcher::List::Words(l) => {
                    assert!(
                        l.windows(2).all(|w| w[0] < w[1]),
                        "@{name} must be sorted and deduplicated (binary search)"
                    );
                    assert!(
                        l.iter().all(|w| !w.contains('+')),
                        "@{name} holds a phrase: add it to PHRASE_LISTS"
                    );
                }
                matcher::List::Phrases(l) => {
                    assert!(l.iter().any(|w| w.contains('+')), "@{name} has no phrase")
                }
            }
        }
    }
    for &name in lexicon::WORD_SETS {
        let l = lexicon::words(name);
        assert!(
            l.windows(2).all(|w| w[0] < w[1]),
            "{name} must be sorted and deduplicated"
        );
        assert!(
            l.iter().all(|w| !w.contains(['+', ' '])),
            "{name} holds a phrase"
        );
    }
}

#[test]
fn lexicon_words_are_folded() {
    for &(_, src) in lexicon::PATTERNS {
        assert!(
            src.chars().all(|c| c.is_ascii() && !c.is_ascii_uppercase()),
            "patterns are written folded (lower case, no accents): {src}"
        );
    }
}

// --- The five classes, both languages ------------------------------------

#[test]
fn prior_artifact_shorthand() {
    for p in [
        "Bring back the previous fix for the date picker.",
        "make it work like before",
        "fix that bug please",
        "Apply the fix from yesterday to the admin panel too.",
        "Revert to what we had before the refactor.",
        "Use the version that worked.",
        "Remets le correctif d'avant.",
        "Fais comme la dernière fois.",
        "Reprends ce qu'on a fait hier sur le parser.",
        "Corrige ce bug.",
        "Reviens à l'ancienne version du formulaire.",
    ] {
        fires(p, Class::PriorArtifact);
    }
}

#[test]
fn named_but_unlocated_solution() {
    for p in [
        "Use the approach we discussed.",
        "Implement Marc's solution.",
        "Apply the Redis approach to the cache.",
        "Do it as we agreed.",
        "Implement the fix from the Slack thread.",
        "Applique la solution de Marc.",
        "Utilise l'approche dont on a parlé.",
        "Comme convenu, migre la base.",
        "Reprends l'idée de Karim pour le cache.",
        "Implémente la piste vue en réunion.",
    ] {
        fires(p, Class::UnlocatedSolution);
    }
}

#[test]
fn comparison_to_an_unstated_referent() {
    for p in [
        "Make it like the other one.",
        "Make the header the same as the old version.",
        "Style it as usual.",
        "Move the helper to the other file.",
        "Fais-le comme l'autre page.",
        "Mets la carte pareil que l'ancienne.",
        "Refais l'écran comme d'habitude.",
    ] {
        fires(p, Class::UnstatedComparison);
    }
}

#[test]
fn exact_behaviour_reference() {
    for p in [
        "It should do exactly what it did.",
        "Make it behave the way it used to.",
        "Keep the same output as before.",
        "Restore the old behaviour of the search box.",
        "Je veux le même comportement qu'avant.",
        "Fais exactement comme l'ancien script.",
        "Remets le comportement d'origine du tri.",
    ] {
        fires(p, Class::ExactBehaviour);
    }
}

#[test]
fn repeat_failure() {
    for p in [
        "It's still broken.",
        "Still doesn't work.",
        "Same error again.",
        "The build is red again.",
        "We're back to square one.",
        "Your fix didn't work.",
        "Nothing changed.",
        "The crash is back.",
        "I keep getting a 502.",
        "Ça ne marche toujours pas.",
        "Toujours la même erreur.",
        "Ça plante encore.",
        "Le bug est revenu.",
        "Rien n'a changé.",
        "J'ai toujours une erreur au démarrage.",
    ] {
        fires(p, Class::RepeatFailure);
    }
}

#[test]
fn structural_stage_fires_on_unanchored_work_requests() {
    for p in [
        "Fix the deadlock in the wiki system.",
        "Please add a retry to the upload client.",
        "Can you refactor the auth middleware?",
        "ok so now rename the billing service",
        "Look at the logs and fix the crash.",
        "Corrige le calcul de TVA.",
        "Peux-tu ajouter une pagination sur la liste ?",
        "Il faut supprimer le code mort du service.",
        "Merci de mettre à jour la doc.",
        "Je veux que tu renommes le module de facturation.",
        "What about adding a cache to the search?",
    ] {
        fires(p, Class::Unanchored);
    }
}

#[test]
fn structural_stage_ignores_non_requests_and_nouns() {
    for p in [
        "The login page throws a 500 when the email has a plus sign.",
        "Update failed on the staging box.",
        "Build is green now.",
        "Fix: the parser now handles tabs.",
        "Comment faire pour lancer les tests ?",
        "Run the test suite.",
        "the build and deploy steps are slow",
    ] {
        silent(p);
    }
    // "Comment out" is English.
    fires(
        "Comment out the debug logging in the worker.",
        Class::Unanchored,
    );
    fires(
        "Comment on the PR with the remaining issues.",
        Class::Unanchored,
    );
}

// --- Anchors and binding ----------------------------------------------------

#[test]
fn every_anchor_kind_silences_the_structural_stage() {
    for p in [
        "Fix the panic in src/ledger.rs",
        "Fix the panic in ./ledger",
        "Fix the panic in /etc/cairn/config",
        "Fix the panic in ledger.rs",
        "Fix the panic in README.md",
        "Fix the panic introduced by 9f8e7d6",
        "Fix the panic at ledger.rs:88",
        "Fix the panic, see https://example.com/issue",
        "Fix the panic in `merge_usage`",
        "Fix the panic from #123",
        "Fix the panic from GH-123",
        "Fix the panic from issue 42",
        "Corrige le plantage du ticket 42",
        "Fix the panic in Ledger::merge",
        "Fix the panic in parse_date",
        "Fix this panic:\n```\nthread 'main' panicked\n```",
    ] {
        silent(p);
    }
}

#[test]
fn an_anchor_in_the_same_clause_binds_a_vague_phrase() {
    silent("The previous fix in `src/auth.rs` broke the refresh flow, revert it.");
    silent("Revert the previous fix, it is a1b2c3d.");
    silent("Le correctif précédent dans src/api.rs a cassé l'arrondi.");
    silent("Same error again:\nsrc/main.rs:41:13: borrow of moved value");
    silent("Same error again, here is the log:\n```\nerror[E0382]\n```");
    // A second request in the sentence is a new clause: the anchor of the
    // first does not bind the second.
    fires(
        "Fix the typo in README.md and make the header like the other page.",
        Class::UnstatedComparison,
    );
    // Pasted code binds the paragraph introducing it, not the one after.
    fires(
        "Here it is:\n```\nfn x() {}\n```\n\nMake it like the other one.",
        Class::UnstatedComparison,
    );
    // An anchor in another sentence does not bind.
    fires(
        "I changed src/db.rs. It's still broken.",
        Class::RepeatFailure,
    );
}

#[test]
fn anchors_are_masked_before_matching() {
    // "previous" and "fix" inside a path are not a phrase.
    silent("Open src/previous/fix.rs and add a test.");
    silent("Add a test to `the_previous_fix`.");
}

// --- Silences --------------------------------------------------------------

#[test]
fn silent_on_client_turns_commands_and_ok_done() {
    for p in [
        "/compact",
        "/review 12 the previous fix",
        "  /mcp:github:list  ",
        "<task-notification>\n<task-id>x</task-id>\n<status>completed</status>\n</task-notification>",
        "<command-name>/clear</command-name>",
        "Caveat: The messages below were generated by the user while running local commands.",
        "OK-done",
        "ok_done",
        "ok done",
        "  OK-DONE\n",
        "",
        "   \n\t",
        "...",
        "🙏",
    ] {
        silent(p);
    }
    // A path is not a command.
    fires(
        "/etc/nginx/nginx.conf is fine. The proxy is still broken.",
        Class::RepeatFailure,
    );
}

#[test]
fn silent_on_questions_unless_they_ask_for_work() {
    for p in [
        "why does the previous build fail?",
        "Why is it still broken?",
        "What did the previous fix change",
        "How should I structure the new module?",
        "Pourquoi ça plante encore ?",
        "Est-ce que le correctif d'avant est toujours utile",
        "Comment on lance les tests d'avant ?",
        "Comment on fait pour revenir à l'ancienne version",
        "Explain how the old approach worked.",
        "Explique-moi la solution de Marc.",
        "Can you explain why the previous approach was slower?",
    ] {
        silent(p);
    }
    fires("Can you fix that bug?", Class::PriorArtifact);
    fires(
        "Could you make it behave like it used to?",
        Class::ExactBehaviour,
    );
    fires("Peux-tu corriger comme avant ?", Class::PriorArtifact);
    fires(
        "Est-ce que tu peux reprendre la solution de Marc ?",
        Class::UnlocatedSolution,
    );
    // Statements around a question still count.
    fires("It's still broken. Why?", Class::RepeatFailure);
}

#[test]
fn silent_on_thanks_and_chit_chat() {
    for p in [
        "thanks!",
        "Thank you so much, that works",
        "merci",
        "Merci beaucoup !",
        "ok",
        "great",
        "LGTM",
        "super, ça marche",
        "d'accord",
        "yes go ahead",
        "vas-y",
        "continue",
        "fix it",
        "corrige ça",
        "fais-le",
        "ok, fix it now please",
    ] {
        silent(p);
    }
}

// --- Configuration -----------------------------------------------------------

#[test]
fn every_class_and_the_gate_can_be_turned_off() {
    let all = "The previous fix is still broken; use the approach we discussed, make it like the other page and do exactly what it did.";
    let got = classes(all);
    for c in [
        Class::PriorArtifact,
        Class::UnlocatedSolution,
        Class::UnstatedComparison,
        Class::ExactBehaviour,
        Class::RepeatFailure,
        Class::Unanchored,
    ] {
        assert!(got.contains(&c.as_str()), "{c:?} in {got:?}");
        let mut cfg = on();
        match c {
            Class::PriorArtifact => cfg.prior_artifact = false,
            Class::UnlocatedSolution => cfg.unlocated_solution = false,
            Class::UnstatedComparison => cfg.unstated_comparison = false,
            Class::ExactBehaviour => cfg.exact_behaviour = false,
            Class::RepeatFailure => cfg.repeat_failure = false,
            Class::Unanchored => cfg.structural = false,
            Class::Custom => unreachable!(),
        }
        let v = check(all, &cfg).expect("other classes still fire");
        assert!(!v.classes.contains(&c), "{c:?} still reported when off");
        assert!(!cfg.class_enabled(c));
    }
    let off = GateConfig {
        enabled: false,
        ..on()
    };
    assert!(check(all, &off).is_none());
    let only_structural_off = GateConfig {
        structural: false,
        ..on()
    };
    assert!(check("Add a retry to the upload client.", &only_structural_off).is_none());
}

#[test]
fn extra_patterns_add_a_custom_class_and_bad_ones_are_reported() {
    let cfg = GateConfig {
        extra_patterns: vec![r"\bthe usual suspects?\b".into(), "(unclosed".into()],
        ..on()
    };
    let v = check(
        "Round up the usual suspect in `auth`? no: round up the usual suspects.",
        &cfg,
    )
    .unwrap();
    assert_eq!(v.classes, [Class::Custom]);
    assert_eq!(v.found[0].phrase, "the usual suspects");
    assert!(v.context.contains("project pattern"));
    let bad = invalid_extra_patterns(&cfg);
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].0, "(unclosed");
    assert!(invalid_extra_patterns(&on()).is_empty());
}

#[test]
fn config_defaults_round_trip_and_unknown_keys_are_refused() {
    let text = toml::to_string(&on()).unwrap();
    let back: GateConfig = toml::from_str(&text).unwrap();
    assert_eq!(back, on());
    let partial: GateConfig = toml::from_str("prior_artifact = false").unwrap();
    assert!(!partial.prior_artifact && partial.enabled && partial.structural);
    assert!(toml::from_str::<GateConfig>("prior_artefact = false").is_err());
}

// --- The injected text ------------------------------------------------------

#[test]
fn the_note_names_classes_quotes_phrases_and_asks_for_bindings() {
    let v = check(
        "The previous fix is still broken, make it work like before.",
        &on(),
    )
    .unwrap();
    assert_eq!(
        v.classes,
        [
            Class::PriorArtifact,
            Class::RepeatFailure,
            Class::Unanchored
        ]
    );
    let c = &v.context;
    assert!(
        c.starts_with("<cairn-refine-gate>") && c.ends_with("</cairn-refine-gate>"),
        "{c}"
    );
    for s in [
        "prior-artifact shorthand: \"The previous fix\", \"like before\"",
        "repeat failure: \"still broken\"",
        "work request with no anchor",
        "bind each reference to a concrete artefact",
        "ONE batch of questions",
    ] {
        assert!(c.contains(s), "{s:?} missing from\n{c}");
    }
    assert!(c.is_ascii() || c.chars().all(|ch| !ch.is_control() || ch == '\n'));
}

#[test]
fn the_note_stays_under_1500_characters_whatever_the_prompt() {
    let long_phrase = format!("the previous {} fix", "very ".repeat(100));
    let mut prompt = String::new();
    for i in 0..20 {
        prompt.push_str(&format!(
            "Sentence {i}: the previous fix is still broken; use Marc's solution, make it like the other page, do exactly what it did, {long_phrase}. "
        ));
    }
    let cfg = GateConfig {
        extra_patterns: vec!["sentence".into()],
        ..on()
    };
    let v = check(&prompt, &cfg).unwrap();
    assert!(
        v.context.chars().count() < MAX_CONTEXT,
        "{}",
        v.context.chars().count()
    );
    assert_eq!(v.classes.len(), 7);
    // Quotes are capped in number and length.
    assert!(v.context.matches('"').count() <= 2 * MAX_QUOTES);
}

#[test]
fn the_worst_case_note_fits_without_cutting_the_instructions() {
    let found: Vec<Found> = Class::ALL
        .iter()
        .flat_map(|&class| {
            (0..MAX_QUOTES_PER_CLASS).map(move |n| Found {
                class,
                phrase: format!("{n}{}", "x".repeat(MAX_QUOTE_CHARS)),
            })
        })
        .collect();
    let note = render(&Class::ALL, &found);
    assert!(
        note.chars().count() < MAX_CONTEXT,
        "{}",
        note.chars().count()
    );
    assert!(
        note.ends_with("just proceed.\n</cairn-refine-gate>"),
        "{note}"
    );
    for c in Class::ALL {
        assert!(note.contains(c.label()), "{c:?}");
    }
    assert!(note.matches('"').count() / 2 <= MAX_QUOTES);
    // Structural only: its own wording, no talk of "references".
    let note = render(&[Class::Unanchored], &[]);
    assert!(
        note.contains("names no file") && !note.contains("each reference"),
        "{note}"
    );
}

#[test]
fn quotes_are_one_line_and_cannot_close_the_tag() {
    let q = quote("like\n the </cairn-refine-gate> \"other\"\u{0} one");
    assert_eq!(q, "like the /cairn-refine-gate 'other' one");
    let long = quote(&"word ".repeat(40));
    assert_eq!(long.chars().count(), MAX_QUOTE_CHARS + 1);
    assert!(long.ends_with('…'));
    let found = [Found {
        class: Class::Custom,
        phrase: q,
    }];
    let note = render(&[Class::Custom], &found);
    assert_eq!(note.matches("</cairn-refine-gate>").count(), 1, "{note}");
}

// --- Hostile input ----------------------------------------------------------

#[test]
fn huge_prompts_are_cut_and_do_not_panic() {
    let huge = "the previous fix ".repeat(1_000_000);
    let v = check(&huge, &on()).unwrap();
    assert!(v.context.chars().count() < MAX_CONTEXT);
    let one_line = "x".repeat(5_000_000);
    assert!(check(&one_line, &on()).is_none());
    // Whatever these answer, a note stays within its size.
    let bounded = |prompt: &str| {
        if let Some(v) = check(prompt, &on()) {
            assert!(v.context.chars().count() < MAX_CONTEXT);
        }
    };
    bounded(&("`".repeat(100_001) + " still broken"));
    bounded(&"```\n".repeat(50_000));
    // Cuts in the middle of multi-byte characters.
    for filler in ["é", "€", "👍", "a€"] {
        bounded(&filler.repeat(MAX_SCAN));
    }
}

#[test]
fn a_pasted_log_does_not_hide_the_words_after_it() {
    let log = "INFO request served in 12ms id=42\n".repeat(5000);
    let v = check(&format!("Here is the log:\n{log}It's still broken."), &on()).unwrap();
    assert_eq!(v.classes, [Class::RepeatFailure]);
    // So long a prompt carries its own material: no structural nudge.
    assert!(check(&format!("{log}\nAdd a retry."), &on()).is_none());
}

#[test]
fn non_ascii_and_control_characters_do_not_panic() {
    for p in [
        "Ça ne marche toujours pas\u{0}\u{1}\u{7f}",
        "\u{1}\u{1}\u{1} the previous fix \u{1}",
        "修复之前的错误 the previous fix still broken",
        "ＦＩＸ the ｐｒｅｖｉｏｕｓ fix",
        "İstanbul ǅ ß ﬁx the old version",
        "\u{202e}still broken\u{202c}",
        "still\u{0}broken",
        "\r\n\r\nstill broken\r\n",
        "👍👍👍 still broken 🔥",
    ] {
        if let Some(v) = check(p, &on()) {
            assert!(v.context.chars().count() < MAX_CONTEXT);
            assert!(
                !v.context.contains('\u{0}') && !v.context.contains('\u{1}'),
                "{:?}",
                v.context
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn never_panics_and_stays_bounded(s in "\\PC{0,400}") {
        if let Some(v) = check(&s, &on()) {
            prop_assert!(v.context.chars().count() < MAX_CONTEXT);
            prop_assert!(!v.classes.is_empty());
        }
    }

    #[test]
    fn never_panics_on_prompt_shaped_noise(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("the previous fix".to_string()),
                Just("`x`".to_string()),
                Just("```\n".to_string()),
                Just("src/a.rs:3".to_string()),
                Just("?".to_string()),
                Just(":\n".to_string()),
                Just("ça ne marche toujours pas".to_string()),
                Just("peux-tu corriger".to_string()),
                Just("\u{1}".to_string()),
                "[a-zé' ,.!?\n]{0,12}",
            ],
            0..30,
        )
    ) {
        let s = parts.join(" ");
        if let Some(v) = check(&s, &on()) {
            prop_assert!(v.context.chars().count() < MAX_CONTEXT);
        }
    }
}

// --- The session around the prompt ------------------------------------------

fn mid(prompt: &str) -> Vec<&'static str> {
    check_in(prompt, || Session::Ongoing, &on())
        .map(|v| v.classes.iter().map(|c| c.as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn mid_session_a_reference_to_the_conversation_is_bound() {
    // The issue's four: each points at the turn before it.
    for p in [
        "The above \"status report\" is very interesting and good to keep as milestone information. Please create an empty commit with that content.",
        "Fair enough. Can you write a balanced opinion on this approach?",
        "yes please, and let's make it cross-browser",
        "do it",
        "The previous fix is still broken, make it work like before.",
        "Please fix these lint errors",
    ] {
        assert_eq!(mid(p), Vec::<&str>::new(), "{p:?}");
    }
    // On the first prompt the same words point at nothing.
    fires(
        "Can you write a balanced opinion on this approach?",
        Class::Unanchored,
    );
    fires(
        "The previous fix is still broken, make it work like before.",
        Class::PriorArtifact,
    );
}

#[test]
fn mid_session_what_lies_outside_it_still_needs_binding() {
    assert_eq!(
        mid("Use the approach we discussed yesterday for the retry logic."),
        ["unlocated-solution"]
    );
    assert_eq!(
        mid("Implement Marc's solution for the cache invalidation."),
        ["unlocated-solution"]
    );
    assert_eq!(
        mid("Tour cinq : corrige le bug comme la dernière fois."),
        ["prior-artifact"]
    );
    assert_eq!(
        mid("Refactor the payment module the way we agreed in the meeting."),
        ["unlocated-solution"]
    );
    assert_eq!(mid("Formate-le comme d'habitude."), ["unstated-comparison"]);
}

#[test]
fn the_session_is_read_only_when_the_prompt_needs_it() {
    let asked = std::cell::Cell::new(0);
    let session = || {
        asked.set(asked.get() + 1);
        Session::Ongoing
    };
    assert!(check_in("Fix the off-by-one in src/parse.rs:42", session, &on()).is_none());
    assert!(check_in("thanks!", session, &on()).is_none());
    assert_eq!(asked.get(), 0);
    assert!(check_in("make it like the other page", session, &on()).is_none());
    assert_eq!(asked.get(), 1);
}

#[test]
fn ide_context_and_pastes_are_not_the_users_words() {
    // The selection is the README's own text: "the fixes they propose" is
    // not the user speaking.
    silent(
        "<ide_selection>The user selected the lines 206 to 215 from /p/README.md:\nAre the fixes they propose the correct ones? It is still broken like before.\n\nThis may or may not be related to the current task.</ide_selection>\nWhat does this section do?",
    );
    // An open file or a selection is an anchor for the structural stage.
    silent(
        "<ide_opened_file>The user opened the file /p/src/nav.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>\nAdd a loading spinner to the checkout button.",
    );
    fires(
        "Add a loading spinner to the checkout button.",
        Class::Unanchored,
    );
    // A screenshot too.
    silent(
        "[Image #1] Can you please add margin-bottom to the details element when it's not open?",
    );
    // An unfenced log is a paste: it binds the sentence introducing it.
    silent(
        "Same error again:\n\n01:12:38.300 Host key verification failed.\n01:12:38.301 fatal: Could not read from remote repository.",
    );
}

#[test]
fn issue_keys_and_mentions_anchor_a_request() {
    for p in [
        "Implement spotter-gqc",
        "Fix ABC-123",
        "Close #123",
        "Do GH-12 next",
        "Update @docs/ARCHITECTURE.md",
        "Rewrite @Makefile",
    ] {
        silent(p);
    }
    fires("Implement the cache", Class::Unanchored);
}

#[test]
fn a_doubt_about_the_session_is_an_ongoing_one() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(Session::of(None), Session::Ongoing);
    // Not there yet: older clients create the file after the first prompt.
    assert_eq!(
        Session::of(Some(&dir.path().join("new.jsonl"))),
        Session::New
    );
    // A folder, or a FIFO (opened without blocking), cannot be read.
    assert_eq!(Session::of(Some(dir.path())), Session::Ongoing);
    let fifo = dir.path().join("t.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    assert_eq!(Session::of(Some(&fifo)), Session::Ongoing);
}

#[test]
fn someones_solution_stays_unbound_mid_session() {
    // `names_someone` reads the patterns' text: exactly the English and the
    // French person-named solution patterns, so a rewrite shows here.
    let named: Vec<&str> = lexicon::PATTERNS
        .iter()
        .map(|&(_, p)| p)
        .filter(|p| lexicon::names_someone(p))
        .collect();
    assert_eq!(named, ["% s @sol_named_en", "@sol_named_fr de|d ^"]);
    assert_eq!(mid("Applique la solution de Marc."), ["unlocated-solution"]);
    // A thing's name is not a person: "the Redis approach" may have been
    // discussed in this session.
    assert_eq!(
        mid("Apply the Redis approach to the session store."),
        Vec::<&str>::new()
    );
}
