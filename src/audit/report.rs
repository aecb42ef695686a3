//! The report `docs/audits/token/token_audit_NAME.md` in the seed's
//! layout, French or English, and the reading back of earlier reports
//! (for the evolution table and the index).
//!
//! The frontmatter keys are the seed's (`date_creation`, `skill_audite`)
//! plus a few machine-readable figures, in both languages, so a report in
//! either language can be compared with one in the other.

use super::estimate::{Basis, Estimate, Kind, Row};
use super::measure::{Measured, RunTotals, Via, median_p90};
use super::model::{Choice, Model};
use super::optimize::{Level, Optimisation, Strategy};
use super::skills::Skill;
use crate::format::dollars_fine as usd;
use crate::memory::log::Lang;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Thousands separator: narrow no-break space (U+202F), as French
/// typography writes `826 000`.
pub const THIN: char = '\u{202f}';

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    Measured,
    ExampleBased,
    StaticEstimate,
}

impl Proof {
    pub fn as_str(self) -> &'static str {
        match self {
            Proof::Measured => "measured",
            Proof::ExampleBased => "example_based",
            Proof::StaticEstimate => "static_estimate",
        }
    }
}

/// Everything a report shows.
pub struct Audit<'a> {
    pub skill: &'a Skill,
    pub est: &'a Estimate,
    pub choice: &'a Choice,
    pub current_model: Option<Model>,
    pub opts: &'a [Optimisation],
    pub measured: Option<&'a Measured>,
    pub proof: Proof,
    pub date: String,
    pub previous: Option<&'a Parsed>,
    pub references: &'a [(String, u64, u64)],
    pub lang: Lang,
    pub ratios: &'a super::AuditConfig,
}

pub fn int(n: u64) -> String {
    crate::format::group_digits(n, THIN)
}

fn pct(lang: Lang, x: f64) -> String {
    let v = if x > 0.0 && x < 1.0 {
        "<1".to_string()
    } else {
        format!("{x:.0}")
    };
    match lang {
        Lang::Fr => format!("{v}{THIN}%"),
        Lang::En => format!("{v}%"),
    }
}

fn signed_pct(lang: Lang, x: f64) -> String {
    let x = if x.abs() < 0.5 { 0.0 } else { x };
    let s = if x >= 0.5 { "+" } else { "" };
    match lang {
        Lang::Fr => format!("{s}{x:.0}{THIN}%"),
        Lang::En => format!("{s}{x:.0}%"),
    }
}

fn tr<'a>(lang: Lang, fr: &'a str, en: &'a str) -> &'a str {
    match lang {
        Lang::Fr => fr,
        Lang::En => en,
    }
}

/// French puts a space before a colon, English does not.
fn colon(lang: Lang) -> &'static str {
    tr(lang, " :", ":")
}

/// A size in bytes: `1 718 o` in French, `1 718 B` in English.
fn size(lang: Lang, n: u64) -> String {
    format!("{}{THIN}{}", int(n), tr(lang, "o", "B"))
}

fn units_word(lang: Lang) -> &'static str {
    tr(lang, "unités", "units")
}

fn kind_name(lang: Lang, k: Kind) -> &'static str {
    match (k, lang) {
        (Kind::System, Lang::Fr) => "Contexte système",
        (Kind::System, Lang::En) => "System context",
        (Kind::Read, _) => "Read",
        (Kind::Bash, _) => "Bash/script",
        (Kind::WebFetch, _) => "WebFetch",
        (Kind::Agent, _) => "Agent",
        (Kind::Ask, _) => "AskUserQuestion",
        (Kind::Reasoning, Lang::Fr) => "Raisonnement",
        (Kind::Reasoning, Lang::En) => "Reasoning",
        (Kind::Write, Lang::Fr) => "Write/génération",
        (Kind::Write, Lang::En) => "Write/generation",
        (Kind::Accumulated, _) => "Input",
    }
}

fn level(lang: Lang, l: Level) -> &'static str {
    match l {
        Level::Low => tr(lang, "faible", "low"),
        Level::Medium => tr(lang, "moyenne", "medium"),
        Level::High => tr(lang, "élevée", "high"),
    }
}

fn confidence(lang: Lang, l: Level, proof: Proof) -> String {
    let word = match l {
        Level::Low => "low",
        Level::Medium => "medium",
        Level::High => "high",
    };
    let basis = match (l, proof) {
        (Level::High, _) => tr(
            lang,
            "volumes mesurés sur disque",
            "volumes measured on disk",
        ),
        (Level::Low, _) => tr(lang, "règle empirique", "rule of thumb"),
        (_, Proof::Measured) => tr(
            lang,
            "exécutions réelles mesurées, gain estimé",
            "real runs measured, gain estimated",
        ),
        (_, Proof::ExampleBased) => tr(
            lang,
            "volumes mesurés, gain selon une règle empirique",
            "volumes measured, gain by a rule of thumb",
        ),
        (_, Proof::StaticEstimate) => tr(lang, "estimation statique", "static estimate"),
    };
    format!("{word} ({basis})")
}

/// A row's label for the per-step table: the step title, with what was
/// measured.
fn row_label(a: &Audit, r: &Row) -> String {
    let lang = a.lang;
    match r.kind {
        Kind::System => {
            let mut s = format!(
                "{} (SKILL.md {}",
                kind_name(lang, Kind::System),
                size(lang, a.skill.size)
            );
            if a.est.claude_md > 0 {
                let _ = write!(s, " + CLAUDE.md {}", size(lang, a.est.claude_md));
            }
            s.push(')');
            s
        }
        Kind::Accumulated => tr(lang, "Contexte accumulé", "Accumulated context").to_string(),
        _ => {
            let mut s = clean_title(&r.label);
            if r.files.count > 0 {
                let what = match &r.files.folder {
                    Some(f) if r.files.count == 1 => {
                        format!("{f}, {}", tr(lang, "1 fichier", "1 file"))
                    }
                    Some(f) => format!(
                        "{f}, {} {}",
                        int(r.files.count),
                        tr(lang, "fichiers", "files")
                    ),
                    None if r.files.count == 1 => tr(lang, "1 fichier", "1 file").to_string(),
                    None => format!("{} {}", int(r.files.count), tr(lang, "fichiers", "files")),
                };
                let _ = write!(s, " ({what}, {})", size(lang, r.files.bytes));
            }
            if r.basis == Basis::Class {
                s.push_str(tr(lang, " [classe de taille]", " [size class]"));
            } else if r.basis == Basis::Hint {
                s.push_str(tr(lang, " [d'après le SKILL.md]", " [from the SKILL.md]"));
            }
            s
        }
    }
}

fn clean_title(t: &str) -> String {
    let t = t.replace('|', "/");
    let t = t.trim().trim_matches(['*', '_']).trim();
    crate::format::truncate_tail(t, 70)
}

fn step_ref(a: &Audit, r: &Row) -> String {
    format!("{} — {}", r.id, row_label(a, r))
}

pub fn render(a: &Audit) -> String {
    let lang = a.lang;
    let est = a.est;
    let total = est.units.max(1) as f64;
    let mut s = String::new();
    let opt_keys: Vec<&str> = a.opts.iter().map(|o| o.key.as_str()).collect();
    let med = a.measured.filter(|m| !m.runs.is_empty()).map(|m| {
        let (mt, pt) = median_p90(m.runs.iter().map(|r| r.tokens as f64).collect());
        (mt, pt)
    });
    // Frontmatter.
    let _ = writeln!(s, "---");
    let _ = writeln!(s, "date_creation: {}", a.date);
    let _ = writeln!(s, "skill_audite: {}", a.skill.name());
    let _ = writeln!(s, "niveau_de_preuve: {}", a.proof.as_str());
    let _ = writeln!(s, "projet: {}", a.skill.project());
    let _ = writeln!(s, "cout_pondere_total: {}", est.units);
    let _ = writeln!(s, "tokens_input: {}", est.input);
    let _ = writeln!(s, "tokens_output: {}", est.output);
    let _ = writeln!(s, "modele_recommande: {}", a.choice.model.name());
    let _ = writeln!(s, "taille_skill_md: {}", a.skill.size);
    if let Some((mt, _)) = med {
        let _ = writeln!(s, "tokens_mesures_mediane: {}", mt.round() as u64);
    }
    let _ = writeln!(s, "optimisations: [{}]", opt_keys.join(", "));
    let _ = writeln!(s, "langue: {}", tr(lang, "fr", "en"));
    let _ = writeln!(s, "---");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{}{}",
        tr(lang, "# Audit tokens : ", "# Token audit: "),
        a.skill.name()
    );
    let _ = writeln!(s);

    // Summary.
    let _ = writeln!(s, "{}", tr(lang, "## Résumé", "## Summary"));
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Métrique", "Metric"),
        tr(lang, "Valeur", "Value")
    );
    let _ = writeln!(s, "|----------|--------|");
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Tokens input estimés", "Estimated input tokens"),
        int(est.input)
    );
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Tokens output estimés", "Estimated output tokens"),
        int(est.output)
    );
    let _ = writeln!(
        s,
        "| {} | {} {} |",
        tr(lang, "Coût pondéré total", "Weighted total"),
        int(est.units),
        units_word(lang)
    );
    if est.show_cache() {
        let _ = writeln!(
            s,
            "| {} | {} {} |",
            tr(
                lang,
                "Coût pondéré en régime établi (cache)",
                "Weighted total, steady state (cache)"
            ),
            int(est.cached_units),
            units_word(lang)
        );
    }
    if let Some(c) = est.costliest() {
        let _ = writeln!(
            s,
            "| {} | {} ({}) |",
            tr(lang, "Étape la plus coûteuse", "Costliest step"),
            step_ref(a, c),
            pct(lang, c.units() as f64 * 100.0 / total)
        );
    }
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Modèle recommandé", "Recommended model"),
        a.choice.model.name()
    );
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Niveau de preuve", "Level of proof"),
        a.proof.as_str()
    );
    if let Some((mt, _)) = med {
        let _ = writeln!(
            s,
            "| {} | {} |",
            tr(
                lang,
                "Tokens mesurés par exécution (médiane)",
                "Measured tokens per run (median)"
            ),
            int(mt.round() as u64)
        );
    }
    let _ = writeln!(s);

    // Measurement basis.
    let _ = writeln!(
        s,
        "**{}**{} {}",
        tr(lang, "Base de mesure", "Measurement basis"),
        colon(lang),
        basis(a)
    );
    let _ = writeln!(s);
    if !a.references.is_empty() || a.skill.doc.is_some() {
        let _ = writeln!(
            s,
            "{}",
            tr(
                lang,
                "Fichiers associés mesurés :",
                "Related files measured:"
            )
        );
        let _ = writeln!(s);
        if let Some((p, len)) = &a.skill.doc {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "- `docs/skills/{name}` — {} (documentation)",
                size(lang, *len)
            );
        }
        for (r, n, bytes) in a.references {
            if *n == 1 {
                let _ = writeln!(s, "- `{r}` — {}", size(lang, *bytes));
            } else {
                let _ = writeln!(
                    s,
                    "- `{r}` — {} {}, {}",
                    int(*n),
                    tr(lang, "fichiers", "files"),
                    size(lang, *bytes)
                );
            }
        }
        let _ = writeln!(s);
    }

    // Measured.
    if let Some(m) = a.measured.filter(|m| !m.runs.is_empty()) {
        measured_section(&mut s, a, m);
    }

    // Per step.
    let _ = writeln!(s, "{}", tr(lang, "## Détail par étape", "## Step by step"));
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| # | {} | Type | Tokens in | Tokens out | {} | % total |",
        tr(lang, "Étape", "Step"),
        tr(lang, "Coût pondéré", "Weighted cost")
    );
    let _ = writeln!(
        s,
        "|---|-------|------|-----------|------------|-------------|---------|"
    );
    for r in &est.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.id,
            row_label(a, r),
            kind_name(lang, r.kind),
            int(r.input),
            int(r.output),
            int(r.units()),
            pct(lang, r.units() as f64 * 100.0 / total)
        );
    }
    let _ = writeln!(
        s,
        "| | **Total** | | **{}** | **{}** | **{}** | 100{} |",
        int(est.input),
        int(est.output),
        int(est.units),
        tr(lang, "\u{202f}%", "%")
    );
    let _ = writeln!(s);
    if est.show_cache() {
        let _ = writeln!(
            s,
            "{}",
            match lang {
                Lang::Fr => format!(
                    "Sans cache : {} unités. En régime établi (contexte système lu en cache, × 0,1) : {} unités.",
                    int(est.units),
                    int(est.cached_units)
                ),
                Lang::En => format!(
                    "Uncached: {} units. Steady state (system context read from cache, × 0.1): {} units.",
                    int(est.units),
                    int(est.cached_units)
                ),
            }
        );
        let _ = writeln!(s);
    }

    // Optimisations.
    let _ = writeln!(
        s,
        "{}",
        tr(
            lang,
            "## Optimisations proposées",
            "## Proposed optimisations"
        )
    );
    let _ = writeln!(s);
    if a.opts.is_empty() {
        let _ = writeln!(
            s,
            "{}",
            tr(
                lang,
                "Aucune étape ne dépasse 15 % du total et 1 500 unités, et aucun motif coûteux n'a été trouvé.",
                "No step is above 15% of the total and 1,500 units, and no costly pattern was found."
            )
        );
        let _ = writeln!(s);
    }
    for (i, o) in a.opts.iter().enumerate() {
        let (title, problem, solution) = describe(a, o);
        let gain = if o.strategy == Strategy::CheaperModel {
            match lang {
                Lang::Fr => format!("{} du coût en dollars", pct(lang, o.gain_pct)),
                Lang::En => format!("{} of the dollar cost", pct(lang, o.gain_pct)),
            }
        } else {
            format!(
                "{} ({} {})",
                pct(lang, o.gain_pct),
                int(o.saved_units),
                units_word(lang)
            )
        };
        let _ = writeln!(
            s,
            "### {}. {} — {}{} {}",
            i + 1,
            title,
            tr(lang, "Gain estimé", "Estimated gain"),
            colon(lang),
            gain
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "- **{}**{} {}",
            tr(lang, "Problème", "Problem"),
            colon(lang),
            problem
        );
        let _ = writeln!(s, "- **Solution**{} {solution}", colon(lang));
        let _ = writeln!(
            s,
            "- **{}**{} {}",
            tr(lang, "Complexité", "Complexity"),
            colon(lang),
            level(lang, o.complexity)
        );
        let _ = writeln!(
            s,
            "- **{}**{} {}",
            tr(lang, "Confiance", "Confidence"),
            colon(lang),
            confidence(lang, o.confidence, a.proof)
        );
        let _ = writeln!(
            s,
            "- **{}**{} {}",
            tr(lang, "Modèle recommandé", "Recommended model"),
            colon(lang),
            o.facts.to_model.unwrap_or(a.choice.model).name()
        );
        let _ = writeln!(
            s,
            "- **{}**{} `{}`",
            tr(lang, "Clé", "Key"),
            colon(lang),
            o.key
        );
        let _ = writeln!(s);
    }

    // Model.
    let _ = writeln!(
        s,
        "{}",
        tr(lang, "## Justification du modèle", "## Why this model")
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "{}", justification(a));
    let _ = writeln!(s);

    // Evolution.
    if let Some(p) = a.previous {
        evolution(&mut s, a, p);
    }

    // Before / after.
    let (sin, sout, sunits) = savings(a);
    let _ = writeln!(s, "{}", tr(lang, "## Bilan", "## Before / after"));
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| {} | Tokens in | Tokens out | {} | Gain |",
        tr(lang, "Scénario", "Scenario"),
        tr(lang, "Coût pondéré", "Weighted cost")
    );
    let _ = writeln!(
        s,
        "|----------|-----------|------------|-------------|------|"
    );
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} | — |",
        tr(lang, "Actuel", "Current"),
        int(est.input),
        int(est.output),
        int(est.units)
    );
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} | {} |",
        tr(lang, "Optimisé", "Optimised"),
        int(est.input - sin),
        int(est.output - sout),
        int(est.units - sunits),
        signed_pct(lang, -(sunits as f64) * 100.0 / total)
    );
    let _ = writeln!(s);
    s
}

/// What the optimisations save together, each step counted once (the
/// largest saving on a step wins).
pub fn savings(a: &Audit) -> (u64, u64, u64) {
    let mut per: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for o in a.opts.iter().filter(|o| o.saved_units > 0) {
        let k = o.step.clone().unwrap_or_default();
        let saved_in = o.saved_units - o.saved_output * super::estimate::OUTPUT_WEIGHT;
        let e = per.entry(k).or_default();
        if o.saved_units > e.2 {
            *e = (saved_in, o.saved_output, o.saved_units);
        }
    }
    let mut t = per
        .values()
        .fold((0, 0, 0), |t, v| (t.0 + v.0, t.1 + v.1, t.2 + v.2));
    t.0 = t.0.min(a.est.input);
    t.1 = t.1.min(a.est.output);
    t.2 = t.2.min(a.est.units);
    t
}

fn fr_num(x: f64) -> String {
    x.to_string().replace('.', ",")
}

fn basis(a: &Audit) -> String {
    let lang = a.lang;
    let est = a.est;
    let mut parts = Vec::new();
    parts.push(match lang {
        Lang::Fr => format!(
            "SKILL.md {}{}o (~{} tokens de contexte), {} étapes numérotées repérées, ratios octets/token : prose française {}, JSON {}, code {}, Markdown mixte {}",
            int(a.skill.size),
            THIN,
            int(est.rows.first().map_or(0, |r| r.input)),
            est.steps,
            fr_num(a.ratios.bytes_per_token_prose),
            fr_num(a.ratios.bytes_per_token_json),
            fr_num(a.ratios.bytes_per_token_code),
            fr_num(a.ratios.bytes_per_token_markdown),
        ),
        Lang::En => format!(
            "SKILL.md {} B (~{} context tokens), {} numbered steps found, bytes per token: French prose {}, JSON {}, code {}, mixed Markdown {}",
            int(a.skill.size),
            int(est.rows.first().map_or(0, |r| r.input)),
            est.steps,
            a.ratios.bytes_per_token_prose,
            a.ratios.bytes_per_token_json,
            a.ratios.bytes_per_token_code,
            a.ratios.bytes_per_token_markdown,
        ),
    });
    let measured_rows = est
        .rows
        .iter()
        .filter(|r| r.kind != Kind::System && r.basis == Basis::Measured)
        .count();
    if est.example_based {
        parts.push(match lang {
            Lang::Fr => format!(
                "{} opérations mesurées sur des fichiers du projet ({} sorties d'exécutions précédentes)",
                measured_rows,
                int(est.examples)
            ),
            Lang::En => format!(
                "{} operations measured on project files ({} outputs of earlier runs)",
                measured_rows,
                int(est.examples)
            ),
        });
    } else {
        parts.push(
            tr(
                lang,
                "estimation sans données réelles (aucun fichier exemple trouvé)",
                "estimate without real data (no example file found)",
            )
            .to_string(),
        );
    }
    if let Some(m) = a.measured {
        parts.push(match (lang, m.runs.len()) {
            (Lang::Fr, 0) => format!(
                "aucune exécution trouvée dans {} sessions de transcripts",
                int(m.stats.sessions)
            ),
            (Lang::En, 0) => format!(
                "no run found in {} transcript sessions",
                int(m.stats.sessions)
            ),
            (Lang::Fr, n) => format!(
                "{} exécutions réelles mesurées dans les transcripts",
                int(n as u64)
            ),
            (Lang::En, n) => format!("{} real runs measured in transcripts", int(n as u64)),
        });
    } else {
        parts.push(
            tr(
                lang,
                "transcripts non lus (--no-measured)",
                "transcripts not read (--no-measured)",
            )
            .to_string(),
        );
    }
    if let Some(m) = a.current_model {
        parts.push(match lang {
            Lang::Fr => format!("modèle déclaré par le skill : {}", m.name()),
            Lang::En => format!("model set by the skill: {}", m.name()),
        });
    }
    let sk = a.skill;
    if !sk.fm.present {
        parts.push(tr(lang, "pas de frontmatter", "no frontmatter").to_string());
    }
    for p in sk.fm.problems.iter().take(3) {
        parts.push(format!(
            "{} {p}",
            tr(lang, "frontmatter illisible :", "unreadable frontmatter:")
        ));
    }
    if sk.not_utf8 {
        parts.push(
            tr(
                lang,
                "SKILL.md pas entièrement en UTF-8 (octets remplacés)",
                "SKILL.md not entirely UTF-8 (bytes replaced)",
            )
            .to_string(),
        );
    }
    if sk.truncated {
        parts.push(
            tr(
                lang,
                "SKILL.md lu en partie (trop gros), taille comptée en entier",
                "SKILL.md read in part (too large), size counted in full",
            )
            .to_string(),
        );
    }
    let mut s = parts.join(tr(lang, " ; ", "; "));
    s.push('.');
    s
}

fn measured_section(s: &mut String, a: &Audit, m: &Measured) {
    let lang = a.lang;
    let runs = &m.runs;
    let (mt, pt) = median_p90(runs.iter().map(|r| r.tokens as f64).collect());
    let (mc, pc) = median_p90(runs.iter().map(|r| r.cost).collect());
    let (mu, _) = median_p90(runs.iter().map(|r| r.units as f64).collect());
    let all: u64 = runs.iter().map(|r| r.tokens).sum();
    let prompt: u64 = runs
        .iter()
        .map(|r| {
            r.usage.input_tokens
                + r.usage.cache_creation_input_tokens
                + r.usage.cache_read_input_tokens
        })
        .sum();
    let read: u64 = runs.iter().map(|r| r.usage.cache_read_input_tokens).sum();
    let slash = runs.iter().filter(|r| r.via == Via::Slash).count();
    let tool = runs.iter().filter(|r| r.via == Via::Tool).count();
    let attr = runs.len() - slash - tool;
    let _ = writeln!(
        s,
        "{}",
        tr(
            lang,
            "## Mesure sur les exécutions réelles",
            "## Measured on real runs"
        )
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Métrique", "Metric"),
        tr(lang, "Valeur", "Value")
    );
    let _ = writeln!(s, "|----------|--------|");
    let how = match lang {
        Lang::Fr => format!(
            "{slash} par /{n}, {tool} par l'outil Skill, {attr} par attribution",
            n = a.skill.name()
        ),
        Lang::En => format!(
            "{slash} by /{n}, {tool} by the Skill tool, {attr} by attribution",
            n = a.skill.name()
        ),
    };
    let _ = writeln!(
        s,
        "| {} | {} ({how}) |",
        tr(lang, "Exécutions trouvées", "Runs found"),
        int(runs.len() as u64)
    );
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(lang, "Tokens, toutes exécutions", "Tokens, all runs"),
        int(all)
    );
    let _ = writeln!(
        s,
        "| {} | {} / {} |",
        tr(
            lang,
            "Tokens par exécution (médiane / p90)",
            "Tokens per run (median / p90)"
        ),
        int(mt.round() as u64),
        int(pt.round() as u64)
    );
    let _ = writeln!(
        s,
        "| {} | {} / {} |",
        tr(
            lang,
            "Coût par exécution (médiane / p90)",
            "Cost per run (median / p90)"
        ),
        usd(mc),
        usd(pc)
    );
    let _ = writeln!(
        s,
        "| {} | {} |",
        tr(
            lang,
            "Part de l'input lue en cache",
            "Input share read from cache"
        ),
        pct(
            lang,
            if prompt == 0 {
                0.0
            } else {
                read as f64 * 100.0 / prompt as f64
            }
        )
    );
    let _ = writeln!(
        s,
        "| {} | {} {} |",
        tr(
            lang,
            "Unités pondérées par exécution (médiane, cache × 0,1)",
            "Weighted units per run (median, cache × 0.1)"
        ),
        int(mu.round() as u64),
        units_word(lang)
    );
    let est_units = if a.est.show_cache() {
        a.est.cached_units
    } else {
        a.est.units
    };
    if mu > 0.0 {
        let err = (est_units as f64 - mu) * 100.0 / mu;
        let _ = writeln!(
            s,
            "| {} | {} ({} {} {}) |",
            tr(
                lang,
                "Écart de l'estimation statique",
                "Static estimate error"
            ),
            signed_pct(lang, err),
            int(est_units),
            tr(lang, "estimées contre", "estimated against"),
            int(mu.round() as u64)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{}",
        tr(
            lang,
            "Les tokens mesurés comprennent ce que le client renvoie à chaque requête (son propre prompt système, la définition des outils, l'historique de la conversation), que l'estimation statique ne compte pas : l'essentiel en est lu en cache.",
            "Measured tokens include what the client re-sends with every request (its own system prompt, tool definitions, the conversation so far), which the static estimate does not count: most of it is read from cache."
        )
    );
    let _ = writeln!(s);
    // Costliest steps as they happened, over all runs.
    let mut steps: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
    for r in runs {
        for (label, t, w) in &r.steps {
            let e = steps.entry(label.as_str()).or_default();
            e.0 += 1;
            e.1 += t;
            e.2 += w;
        }
    }
    let mut v: Vec<_> = steps.into_iter().collect();
    v.sort_by(|a, b| b.1.2.cmp(&a.1.2).then(a.0.cmp(b.0)));
    let wsum: u64 = v.iter().map(|x| x.1.2).sum::<u64>().max(1);
    let _ = writeln!(
        s,
        "{}",
        tr(
            lang,
            "Étapes réelles les plus coûteuses (toutes exécutions) :",
            "Costliest real steps (all runs):"
        )
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| {} | {} | Tokens | {} | % |",
        tr(lang, "Réponse (outils appelés)", "Response (tools called)"),
        tr(lang, "Réponses", "Responses"),
        tr(lang, "Unités pondérées", "Weighted units")
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for (label, (n, t, w)) in v.iter().take(8) {
        let label = if *label == "text" {
            tr(lang, "texte (réponse)", "text (answer)")
        } else {
            label
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            label.replace('|', "/"),
            int(*n),
            int(*t),
            int(*w),
            pct(lang, *w as f64 * 100.0 / wsum as f64)
        );
    }
    let _ = writeln!(s);
    let models: Vec<&str> = {
        let mut m: Vec<&str> = runs
            .iter()
            .map(|r| r.model.as_str())
            .filter(|m| !m.is_empty())
            .collect();
        m.sort();
        m.dedup();
        m
    };
    if !models.is_empty() {
        let _ = writeln!(
            s,
            "{} {}.",
            tr(lang, "Modèles observés :", "Models seen:"),
            models.join(", ")
        );
        let _ = writeln!(s);
    }
}

fn justification(a: &Audit) -> String {
    let c = a.choice;
    let lang = a.lang;
    let mut s = match (c.model, lang) {
        (Model::Opus, Lang::Fr) => format!(
            "Opus est justifié : {} étapes, {} tokens générés par exécution{}. L'orchestration de nombreuses étapes et les synthèses entre documents sont là où un modèle inférieur se trompe (rapprochements incorrects, enrichissements manqués, synthèses approximatives).",
            c.steps,
            int(c.generated),
            if c.agents > 0 { format!(", {} délégation(s) à des sous-agents", c.agents) } else { String::new() }
        ),
        (Model::Opus, Lang::En) => format!(
            "Opus is justified: {} steps, {} tokens generated per run{}. Orchestrating many steps and synthesising across documents is where a smaller model goes wrong (wrong mappings, missed enrichments, loose summaries).",
            c.steps,
            int(c.generated),
            if c.agents > 0 { format!(", {} delegation(s) to subagents", c.agents) } else { String::new() }
        ),
        (Model::Sonnet, Lang::Fr) => format!(
            "Sonnet suffit : {} étape(s) de génération et {} de raisonnement ({} tokens générés), sans orchestration lourde. Haiku risquerait des textes approximatifs ; Opus coûterait plus sans gain visible.",
            c.write_steps, c.reasoning_steps, int(c.generated)
        ),
        (Model::Sonnet, Lang::En) => format!(
            "Sonnet is enough: {} generation step(s) and {} reasoning step(s) ({} tokens generated), no heavy orchestration. Haiku would risk loose writing; Opus would cost more for no visible gain.",
            c.write_steps, c.reasoning_steps, int(c.generated)
        ),
        (Model::Haiku, Lang::Fr) => "Haiku suffit : le skill lit, lance des commandes et rend un résultat court, sans synthèse ni génération longue.".to_string(),
        (Model::Haiku, Lang::En) => "Haiku is enough: the skill reads, runs commands and returns a short result, with no synthesis or long generation.".to_string(),
    };
    if let Some(cur) = a.current_model
        && cur != c.model
    {
        let _ = write!(
            s,
            "{}",
            match lang {
                Lang::Fr => format!(" Le skill demande aujourd'hui {} (`model:`).", cur.name()),
                Lang::En => format!(" The skill asks for {} today (`model:`).", cur.name()),
            }
        );
    }
    s
}

fn describe(a: &Audit, o: &Optimisation) -> (String, String, String) {
    let lang = a.lang;
    let f = &o.facts;
    let step = o.step.clone().unwrap_or_default();
    match (o.strategy, lang) {
        (Strategy::ConditionalRead, Lang::Fr) => (
            format!("Lecture incrémentale (étape {step})"),
            format!(
                "l'étape {step} relit tous les fichiers de `{}` ({} fichiers, {}{}o, ~{} tokens) à chaque exécution ; le dossier grossit à chaque exécution.",
                f.folder.as_deref().unwrap_or("?"), int(f.files), int(f.bytes), THIN, int(f.tokens)
            ),
            "ne lire que les fichiers nouveaux depuis la dernière exécution et la synthèse existante (suivre les fichiers déjà intégrés dans son frontmatter).".to_string(),
        ),
        (Strategy::ConditionalRead, Lang::En) => (
            format!("Incremental read (step {step})"),
            format!(
                "step {step} reads every file of `{}` again ({} files, {} B, ~{} tokens) on each run; the folder grows with each run.",
                f.folder.as_deref().unwrap_or("?"), int(f.files), int(f.bytes), int(f.tokens)
            ),
            "read only the files added since the last run plus the existing summary (track the files already merged in its frontmatter).".to_string(),
        ),
        (Strategy::ReduceInput, Lang::Fr) if o.key == "templates" => (
            "Externaliser les gabarits du SKILL.md".to_string(),
            format!(
                "{} bloc(s) de plus de 2 Ko dans le SKILL.md ({}{}o, ~{} tokens, premier à la ligne {}) sont envoyés à chaque requête tant que le skill tourne.",
                int(f.files), int(f.bytes), THIN, int(f.tokens), f.template_line
            ),
            "déplacer ces gabarits dans des fichiers à côté du skill et ne les lire qu'à l'étape qui les utilise.".to_string(),
        ),
        (Strategy::ReduceInput, Lang::En) if o.key == "templates" => (
            "Move the templates out of SKILL.md".to_string(),
            format!(
                "{} block(s) over 2 KB in SKILL.md ({} B, ~{} tokens, first at line {}) are sent with every request while the skill runs.",
                int(f.files), int(f.bytes), int(f.tokens), f.template_line
            ),
            "move these templates to files beside the skill and read them only in the step that uses them.".to_string(),
        ),
        (Strategy::ReduceInput, Lang::Fr) if o.key == "skill-size" => (
            "Alléger le SKILL.md".to_string(),
            format!(
                "le SKILL.md fait {}{}o (~{} tokens), au-delà des ~5 000 tokens recommandés pour le corps d'un skill ; il est relu à chaque requête tant que le skill tourne.",
                int(f.bytes), THIN, int(f.tokens)
            ),
            "garder dans le SKILL.md les étapes et les règles, et déplacer le détail (exemples, gabarits, cas particuliers) dans des fichiers lus à la demande.".to_string(),
        ),
        (Strategy::ReduceInput, Lang::En) if o.key == "skill-size" => (
            "Slim down SKILL.md".to_string(),
            format!(
                "SKILL.md is {} B (~{} tokens), over the ~5,000 tokens recommended for a skill body; it is re-read with every request while the skill runs.",
                int(f.bytes), int(f.tokens)
            ),
            "keep the steps and rules in SKILL.md and move the details (examples, templates, special cases) to files read on demand.".to_string(),
        ),
        (Strategy::ReduceInput, Lang::Fr) => (
            format!("Réduire l'input (étape {step})"),
            format!("l'étape {step} fait entrer ~{} tokens dans le contexte, en entier.", int(f.tokens)),
            "ne lire que les sections utiles (offset/limit, grep ciblé) ou filtrer la sortie de la commande ; ne pas lire du tout quand une condition préalable suffit.".to_string(),
        ),
        (Strategy::ReduceInput, Lang::En) => (
            format!("Reduce the input (step {step})"),
            format!("step {step} brings ~{} tokens into the context, whole.", int(f.tokens)),
            "read only the sections needed (offset/limit, a targeted grep) or filter the command's output; skip the read when a prior check suffices.".to_string(),
        ),
        (Strategy::DiffPatch, Lang::Fr) => (
            format!("Diff/patch au lieu de régénérer (étape {step})"),
            format!("l'étape {step} réécrit en entier un fichier qui existe déjà (~{} tokens en sortie, coût × 5).", int(f.tokens)),
            "faire produire au modèle les seules sections modifiées (Edit, ou un format structuré appliqué par un script).".to_string(),
        ),
        (Strategy::DiffPatch, Lang::En) => (
            format!("Diff/patch instead of regenerating (step {step})"),
            format!("step {step} rewrites a file that already exists in full (~{} output tokens, × 5).", int(f.tokens)),
            "have the model produce only the changed sections (Edit, or a structured format applied by a script).".to_string(),
        ),
        (Strategy::Script, Lang::Fr) => (
            format!("Déléguer à un script (étape {step})"),
            format!("l'étape {step} fait générer par le modèle un travail mécanique (copie, tri, filtrage, index)."),
            "écrire un script (Python, shell) appelé par Bash ; le modèle ne lit que son résultat court.".to_string(),
        ),
        (Strategy::Script, Lang::En) => (
            format!("Delegate to a script (step {step})"),
            format!("step {step} has the model generate mechanical work (copying, sorting, filtering, indexing)."),
            "write a script (Python, shell) run through Bash; the model reads only its short result.".to_string(),
        ),
        (Strategy::Parallel, Lang::Fr) => (
            "Paralléliser les lectures indépendantes".to_string(),
            format!("les lectures des étapes {step} se font l'une après l'autre, chacune dans son propre tour."),
            "lire ces fichiers en un seul tour (plusieurs appels Read dans la même réponse) : (N−1) couches d'accumulation de contexte en moins.".to_string(),
        ),
        (Strategy::Parallel, Lang::En) => (
            "Parallelise independent reads".to_string(),
            format!("the reads of steps {step} happen one after the other, each in its own turn."),
            "read these files in one turn (several Read calls in one response): (N−1) fewer layers of accumulated context.".to_string(),
        ),
        (Strategy::CheaperModel, Lang::Fr) => (
            "Choisir un modèle adapté".to_string(),
            format!(
                "le skill demande {} alors que ses étapes ne demandent que {}.",
                f.from_model.map_or("?", |m| m.name()), f.to_model.map_or("?", |m| m.name())
            ),
            format!("mettre `model: {}` dans le frontmatter (mêmes tokens, prix plus bas).", f.to_model.map_or("sonnet", |m| match m { Model::Haiku => "haiku", Model::Sonnet => "sonnet", Model::Opus => "opus" })),
        ),
        (Strategy::CheaperModel, Lang::En) => (
            "Use a fitting model".to_string(),
            format!(
                "the skill asks for {} while its steps only need {}.",
                f.from_model.map_or("?", |m| m.name()), f.to_model.map_or("?", |m| m.name())
            ),
            format!("set `model: {}` in the frontmatter (same tokens, lower price).", f.to_model.map_or("sonnet", |m| match m { Model::Haiku => "haiku", Model::Sonnet => "sonnet", Model::Opus => "opus" })),
        ),
    }
}

fn evolution(s: &mut String, a: &Audit, p: &Parsed) {
    let lang = a.lang;
    let _ = writeln!(
        s,
        "{} {}",
        tr(
            lang,
            "## Évolution depuis l'audit",
            "## Evolution since the audit of"
        ),
        p.date
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "| {} | {} | {} | Impact |",
        tr(lang, "Facteur", "Factor"),
        p.date,
        a.date
    );
    let _ = writeln!(s, "|---|---|---|---|");
    let change = |old: Option<u64>, new: u64| -> String {
        match old {
            Some(o) if o > 0 => signed_pct(lang, (new as f64 - o as f64) * 100.0 / o as f64),
            _ => "—".into(),
        }
    };
    let num = |v: Option<u64>| v.map_or("—".to_string(), int);
    let _ = writeln!(
        s,
        "| SKILL.md | {} | {} | {} |",
        p.skill_md.map_or("—".into(), |v| size(lang, v)),
        size(lang, a.skill.size),
        change(p.skill_md, a.skill.size)
    );
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} |",
        tr(lang, "Coût pondéré total", "Weighted total"),
        int(p.cost),
        int(a.est.units),
        change(Some(p.cost), a.est.units)
    );
    let _ = writeln!(
        s,
        "| Tokens input | {} | {} | {} |",
        num(p.input),
        int(a.est.input),
        change(p.input, a.est.input)
    );
    let _ = writeln!(
        s,
        "| Tokens output | {} | {} | {} |",
        num(p.output),
        int(a.est.output),
        change(p.output, a.est.output)
    );
    let _ = writeln!(
        s,
        "| {} | {} | {} | — |",
        tr(lang, "Niveau de preuve", "Level of proof"),
        p.proof.as_deref().unwrap_or("—"),
        a.proof.as_str()
    );
    let now: Vec<&str> = a.opts.iter().map(|o| o.key.as_str()).collect();
    for k in &p.optimisations {
        let done = !now.contains(&k.as_str());
        let _ = writeln!(
            s,
            "| {} `{k}` | {} | {} | {} |",
            tr(lang, "Opt.", "Opt."),
            tr(lang, "proposée", "proposed"),
            if done {
                tr(lang, "✓ semble implémentée", "✓ appears implemented")
            } else {
                tr(lang, "non implémentée", "not implemented")
            },
            if done {
                tr(lang, "n'est plus détectée", "no longer detected")
            } else {
                "—"
            }
        );
    }
    let _ = writeln!(s);
}

// ---------------------------------------------------------------------------
// Reading reports back.

/// What the index and the evolution table need from a report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub date: String,
    pub skill: String,
    pub cost: u64,
    pub model: String,
    pub project: Option<String>,
    pub proof: Option<String>,
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub skill_md: Option<u64>,
    pub optimisations: Vec<String>,
}

fn digits(s: &str) -> Option<u64> {
    let d: String = s
        .split(['(', '~'])
        .find(|p| p.chars().any(|c| c.is_ascii_digit()))?
        .chars()
        .take_while(|c| !c.is_alphabetic())
        .filter(char::is_ascii_digit)
        .collect();
    d.parse().ok()
}

/// Parses a report; `Err` says why it is not one (for the index).
pub fn parse(text: &str) -> Result<Parsed, String> {
    let (fm, body) = super::frontmatter::split(text);
    if !fm.present {
        return Err("no frontmatter".into());
    }
    let date = fm
        .get("date_creation")
        .ok_or("no date_creation")?
        .to_string();
    if jiff::civil::Date::strptime("%Y-%m-%d", &date).is_err() {
        return Err(format!("bad date_creation `{date}`"));
    }
    let skill = fm.get("skill_audite").ok_or("no skill_audite")?.to_string();
    // The summary table wins over the frontmatter: it is what a reader
    // edits by hand, and what the seed's index reads.
    let mut cost = None;
    let mut model = None;
    for line in body.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() < 2 {
            continue;
        }
        match cells[0] {
            "Coût pondéré total" | "Weighted total" if cost.is_none() => {
                cost = Some(digits(cells[1]))
            }
            "Modèle recommandé" | "Recommended model" if model.is_none() => {
                model = Some(cells[1].to_string())
            }
            _ => {}
        }
    }
    let cost = match cost {
        Some(Some(c)) => c,
        Some(None) => return Err("unreadable weighted total in the summary".into()),
        None => fm
            .get("cout_pondere_total")
            .and_then(|v| v.parse().ok())
            .ok_or("no weighted total")?,
    };
    let model = model
        .or_else(|| fm.get("modele_recommande").map(str::to_string))
        .unwrap_or_else(|| "—".into());
    let num = |k: &str| fm.get(k).and_then(|v| v.parse().ok());
    Ok(Parsed {
        date,
        skill,
        cost,
        model,
        project: fm.get("projet").map(str::to_string),
        proof: fm.get("niveau_de_preuve").map(str::to_string),
        input: num("tokens_input"),
        output: num("tokens_output"),
        skill_md: num("taille_skill_md"),
        optimisations: fm
            .get("optimisations")
            .map(|v| {
                v.split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The one-line verdict for a skill too cheap to optimise.
pub fn verdict(lang: Lang, name: &str, units: u64) -> String {
    match lang {
        Lang::Fr => format!(
            "{name} : {} unités estimées. Ce skill consomme très peu de tokens, l'optimisation n'est pas pertinente.",
            int(units)
        ),
        Lang::En => format!(
            "{name}: {} units estimated. This skill uses very few tokens; optimising it is not worth it.",
            int(units)
        ),
    }
}

#[allow(dead_code)]
fn _unused(_: &RunTotals) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_space_thousands() {
        assert_eq!(int(826_000), "826\u{202f}000");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(int(0), "0");
    }

    #[test]
    fn reports_parse_back_and_bad_ones_say_why() {
        let ok = "---\ndate_creation: 2026-03-24\nskill_audite: x\n---\n# Audit\n\n| Métrique | Valeur |\n|---|---|\n| Coût pondéré total | 398\u{202f}619 unités |\n| Modèle recommandé | Opus 4.6 |\n";
        let p = parse(ok).unwrap();
        assert_eq!(
            (p.cost, p.model.as_str(), p.skill.as_str()),
            (398_619, "Opus 4.6", "x")
        );
        assert!(
            parse("# no frontmatter")
                .unwrap_err()
                .contains("frontmatter")
        );
        assert!(
            parse("---\nskill_audite: x\n---\n")
                .unwrap_err()
                .contains("date")
        );
        assert!(
            parse("---\ndate_creation: 2026-13-45\nskill_audite: x\n---\n")
                .unwrap_err()
                .contains("date")
        );
        let bad = ok.replace("398\u{202f}619 unités", "beaucoup");
        assert!(parse(&bad).unwrap_err().contains("weighted total"));
    }
}
