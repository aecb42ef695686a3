//! The three-way merge on hand-written cases; properties in `proptests.rs`.

use super::three_way::merge;

const BASE: &str = "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.

## Travail produit
- Parser des logs écrit.

## À suivre
- Écrire le driver de merge.
- Relire la doc.
";

fn ok(base: &str, ours: &str, theirs: &str) -> String {
    merge(base, ours, theirs).unwrap_or_else(|c| panic!("conflict: {c}"))
}

#[test]
fn both_sides_append_then_ours_first_theirs_after() {
    let ours = BASE.replace(
        "- Parser des logs écrit.\n",
        "- Parser des logs écrit.\n- Tests du parser.\n",
    );
    let theirs = BASE
        .replace(
            "- Parser des logs écrit.\n",
            "- Parser des logs écrit.\n- Benchmarks ajoutés.\n",
        )
        .replace(
            "- Relire la doc.\n",
            "- Relire la doc.\n\n## Décisions prises\n- Garder divan.\n",
        );
    // Décisions goes before À suivre in a log; here theirs put it after,
    // and their order is kept for what only they have.
    let want = "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.

## Travail produit
- Parser des logs écrit.
- Tests du parser.
- Benchmarks ajoutés.

## À suivre
- Écrire le driver de merge.
- Relire la doc.

## Décisions prises
- Garder divan.
";
    assert_eq!(ok(BASE, &ours, &theirs), want);
    // Symmetric in content.
    let swapped = ok(BASE, &theirs, &ours);
    assert!(swapped.contains("- Benchmarks ajoutés.\n- Tests du parser.\n"));
}

#[test]
fn a_todo_finalised_on_one_side_leaves_a_suivre_on_both() {
    let ours = BASE.replace("- Écrire le driver de merge.\n", "").replace(
        "- Relire la doc.\n",
        "- Relire la doc.\n\n## Finalisé\n- ✅ Écrire le driver de merge.\n",
    );
    let theirs = BASE.replace(
        "- Relire la doc.\n",
        "- Relire la doc.\n- Publier la release.\n",
    );
    let merged = ok(BASE, &ours, &theirs);
    assert_eq!(
        merged,
        "\
# Log session — 2026-11-30

## Contexte
- Projet cairn, branche main.

## Travail produit
- Parser des logs écrit.

## À suivre
- Relire la doc.
- Publier la release.

## Finalisé
- ✅ Écrire le driver de merge.
"
    );
    assert_eq!(merged, ok(BASE, &theirs, &ours));
}

#[test]
fn a_todo_both_added_and_one_finalised_is_only_done() {
    let base = "# Log session — 2026-11-30\n";
    let ours = "# Log session — 2026-11-30\n\n## Finalisé\n- ✅ Corriger la CI\n";
    let theirs = "# Log session — 2026-11-30\n\n## À suivre\n- corriger la CI\n  - voir le job windows\n- Autre chose\n";
    let merged = ok(base, ours, theirs);
    assert_eq!(
        merged,
        "# Log session — 2026-11-30\n\n## À suivre\n- Autre chose\n\n## Finalisé\n- ✅ Corriger la CI\n  - voir le job windows\n"
    );
}

#[test]
fn deleted_on_one_side_and_untouched_on_the_other_is_deleted() {
    let ours = BASE.replace("- Relire la doc.\n", "");
    let theirs = BASE.replace(
        "- Projet cairn, branche main.\n",
        "- Projet cairn, branche main.\n- Rust 1.89.\n",
    );
    let merged = ok(BASE, &ours, &theirs);
    assert!(!merged.contains("Relire la doc"), "{merged}");
    assert!(merged.contains("- Rust 1.89.\n"), "{merged}");
}

#[test]
fn deleted_on_one_side_and_changed_on_the_other_is_kept_changed() {
    let ours = BASE.replace("- Relire la doc.\n", "");
    let theirs = BASE.replace(
        "- Relire la doc.\n",
        "- Relire la doc.\n  - surtout le README\n",
    );
    let merged = ok(BASE, &ours, &theirs);
    assert!(
        merged.contains("- Relire la doc.\n  - surtout le README\n"),
        "{merged}"
    );
}

#[test]
fn files_created_on_both_sides_are_united() {
    let ours = "# Log session — 2026-11-30\n\n## Contexte\n- A\n\n## À suivre\n- T1\n";
    let theirs = "# Log session — 2026-11-30\n\n## Contexte\n- a\n- B\n\n## Travail produit\n- W\n\n## To do\n- T2\n";
    let merged = ok("", ours, theirs);
    assert_eq!(
        merged,
        "# Log session — 2026-11-30\n\n## Contexte\n- A\n- B\n\n## Travail produit\n- W\n\n## À suivre\n- T1\n- T2\n"
    );
}

#[test]
fn unknown_sections_and_lines_survive() {
    let base = "---\ntags: [x]\n---\n# Log session — 2026-11-30\n\nNote libre.\n\n## Contexte\n- a\n\n```sh\n## pas un titre\n```\n\n## Liens\n- https://example.com\n";
    let ours = base.replace("- a\n", "- a\n- b\n");
    let theirs = format!("{base}\n## Notes perso\nUn paragraphe.\n");
    let merged = ok(base, &ours, &theirs);
    assert_eq!(
        merged,
        "---\ntags: [x]\n---\n# Log session — 2026-11-30\n\nNote libre.\n\n## Contexte\n- a\n- b\n\n```sh\n## pas un titre\n```\n\n## Liens\n- https://example.com\n\n## Notes perso\nUn paragraphe.\n"
    );
}

#[test]
fn long_memory_blocks_appended_on_both_sides_are_kept() {
    let base = "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise jiff.\n";
    let ours = format!("{base}\n## 2026-11-30\n\nOn garde divan pour les benchmarks.\n");
    let theirs = format!(
        "{base}\n## 2026-11-30\n\nLe driver de merge est en Rust.\n\n## Promotion 2026-11-30\n- Décision: MIT.\n"
    );
    let merged = ok(base, &ours, &theirs);
    assert_eq!(
        merged,
        "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise jiff.\n\n## 2026-11-30\n\nOn garde divan pour les benchmarks.\n\nLe driver de merge est en Rust.\n\n## Promotion 2026-11-30\n- Décision: MIT.\n"
    );
}

#[test]
fn a_heading_edited_differently_on_both_sides_is_a_conflict() {
    let ours = BASE.replace("## Travail produit", "## Travail produit (Alice)");
    let theirs = BASE.replace("## Travail produit", "## Travail fait par Bob");
    let err = merge(BASE, &ours, &theirs).unwrap_err();
    assert!(err.0.contains("moved to different sections"), "{err}");
    // A known heading spelled differently on both sides, still the same section.
    let ours = BASE.replace("## À suivre", "## A faire");
    let theirs = BASE.replace("## À suivre", "## TODO");
    let err = merge(BASE, &ours, &theirs).unwrap_err();
    assert!(err.0.contains("edited differently on both sides"), "{err}");
    // Edited on one side only: theirs' bullet joins our renamed section.
    let ours = BASE.replace("## À suivre", "## A faire");
    let theirs = BASE.replace("- Relire la doc.\n", "- Relire la doc.\n- Nouveau.\n");
    assert!(
        ok(BASE, &ours, &theirs)
            .contains("## A faire\n- Écrire le driver de merge.\n- Relire la doc.\n- Nouveau.\n")
    );
}

#[test]
fn the_same_lines_rewritten_on_both_sides_are_a_conflict() {
    let base = "# Mémoire long terme — root\n\n## 2026-11-01\n\nLe projet utilise jiff.\n";
    let ours = base.replace("utilise jiff", "utilise jiff 0.2");
    let theirs = base.replace("utilise jiff", "utilise chrono");
    assert!(merge(base, &ours, &theirs).is_err());
    let ours = base.replace("# Mémoire long terme — root", "# Mémoire — root");
    let theirs = base.replace("# Mémoire long terme — root", "# Long-term memory — root");
    assert!(merge(base, &ours, &theirs).is_err());
}

#[test]
fn a_bullet_added_in_two_sections_stays_where_we_put_it() {
    let base = "# Log session — 2026-11-30\n";
    let ours = "# Log session — 2026-11-30\n\n## Travail produit\n- Fix CI\n";
    let theirs = "# Log session — 2026-11-30\n\n## Problèmes rencontrés\n- fix ci\n- Flaky test\n";
    assert_eq!(
        ok(base, ours, theirs),
        "# Log session — 2026-11-30\n\n## Problèmes rencontrés\n- Flaky test\n\n## Travail produit\n- Fix CI\n"
    );
}

#[test]
fn crlf_and_bom_of_ours_are_kept() {
    let crlf = |s: &str| format!("\u{feff}{}", s.replace('\n', "\r\n"));
    let ours = crlf(&BASE.replace("- Relire la doc.\n", "- Relire la doc.\n- A\n"));
    let theirs = BASE.replace("- Relire la doc.\n", "- Relire la doc.\n- B\n");
    let merged = ok(&crlf(BASE), &ours, &theirs);
    assert!(merged.starts_with('\u{feff}'));
    assert!(merged.contains("- A\r\n- B\r\n"), "{merged:?}");
    assert!(!merged.replace("\r\n", "").contains('\n'));
}

#[test]
fn trivial_cases_return_a_side_verbatim() {
    let ours = BASE.replace("- Relire la doc.\n", "");
    assert_eq!(ok(BASE, &ours, BASE), ours);
    assert_eq!(ok(BASE, BASE, &ours), ours);
    assert_eq!(ok(BASE, &ours, &ours), ours);
}

#[test]
fn two_different_titles_are_a_conflict() {
    let ours = "# Log session — 2026-11-30\n\n## Contexte\n- a\n";
    let theirs = "# Session log — 2026-11-30\n\n## Context\n- b\n";
    let err = merge("", ours, theirs).unwrap_err();
    assert_eq!(err.0, "the title differs on the two sides");
}

#[test]
fn a_block_left_open_is_closed_when_the_merge_puts_text_after_it() {
    let base = "# T\n\n## Notes\n- a\n";
    let ours = "# T\n\n## Notes\n- a\n\n```\ncode never closed\n";
    let theirs = "# T\n\n## Notes\n- a\n\n## Liens\n";
    assert_eq!(
        ok(base, ours, theirs),
        "# T\n\n## Notes\n- a\n\n```\ncode never closed\n```\n\n## Liens\n"
    );
}
