//! Optimisations (SPEC §3.5, the seed's step 5): for steps above 15 % of
//! the total and 1 500 units, the strategies that apply, plus the concrete
//! patterns found anywhere in the skill. The gain is the seed's formula,
//! `(step cost now − step cost optimised) / total`.

use super::estimate::{Estimate, Kind, OUTPUT_WEIGHT, Row};
use super::model::Model;
use super::skills::Skill;

/// The seed's double threshold.
pub const SHARE: f64 = 0.15;
pub const MIN_UNITS: u64 = 1_500;
/// Inline templates above this belong in their own file.
pub const TEMPLATE_BYTES: u64 = 2 * 1024;
/// The skill body size Anthropic recommends staying under.
pub const SKILL_TOKENS: u64 = 5_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Script,
    ConditionalRead,
    ReduceInput,
    Parallel,
    DiffPatch,
    CheaperModel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Optimisation {
    /// Stable across audits, so a later report can tell it was implemented.
    pub key: String,
    pub strategy: Strategy,
    /// The step it concerns (`3a`), if any.
    pub step: Option<String>,
    /// Units saved in the static estimate (0 for the model change, which
    /// saves money, not tokens).
    pub saved_units: u64,
    /// Share of the output tokens saved, for the before/after table.
    pub saved_output: u64,
    /// Percent of the total (units), or of the cost for the model change.
    pub gain_pct: f64,
    pub complexity: Level,
    pub confidence: Level,
    /// Facts the report's sentences are built from.
    pub facts: Facts,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facts {
    pub files: u64,
    pub bytes: u64,
    pub tokens: u64,
    pub folder: Option<String>,
    pub reads: Vec<String>,
    pub template_line: usize,
    pub from_model: Option<Model>,
    pub to_model: Option<Model>,
}

fn confidence(row: &Row) -> Level {
    match row.basis {
        super::estimate::Basis::Measured => Level::High,
        super::estimate::Basis::Hint => Level::Medium,
        super::estimate::Basis::Class => Level::Low,
    }
}

pub fn find(
    skill: &Skill,
    est: &Estimate,
    recommended: Model,
    current: Option<Model>,
) -> Vec<Optimisation> {
    let total = est.units.max(1) as f64;
    let pct = |units: u64| units as f64 * 100.0 / total;
    let mut out: Vec<Optimisation> = Vec::new();
    let costly = |r: &Row| {
        r.kind != Kind::Accumulated
            && r.kind != Kind::System
            && r.units() >= MIN_UNITS
            && r.units() as f64 >= SHARE * total
    };

    // The concrete patterns are looked for on every step that weighs
    // something; the general strategies only on the costly ones.
    let weighs = |r: &Row| r.units() >= MIN_UNITS;
    for r in est
        .rows
        .iter()
        .filter(|r| !matches!(r.kind, Kind::System | Kind::Accumulated) && weighs(r))
    {
        let is_costly = costly(r);
        let mut push = |strategy, saved: u64, saved_output: u64, complexity, conf, facts: Facts| {
            let key = format!("{}:{}", key_of(strategy), r.id);
            out.push(Optimisation {
                key,
                strategy,
                step: Some(r.id.clone()),
                saved_units: saved,
                saved_output,
                gain_pct: pct(saved),
                complexity,
                confidence: conf,
                facts,
            });
        };
        let facts = Facts {
            files: r.files.count,
            bytes: r.files.bytes,
            tokens: if r.kind == Kind::Write {
                r.output
            } else {
                r.files.tokens.max(r.input)
            },
            folder: r.files.folder.clone(),
            ..Facts::default()
        };
        match r.kind {
            Kind::Read if r.read_all && r.files.count > 2 => {
                // Incremental: the new items only (two per run) and the
                // summary that already holds the rest.
                let per = r.input / r.files.count.max(1);
                let kept = per * 2 + per;
                push(
                    Strategy::ConditionalRead,
                    r.input.saturating_sub(kept),
                    0,
                    Level::Medium,
                    confidence(r),
                    facts,
                );
            }
            Kind::Read | Kind::WebFetch if is_costly => {
                // Read only the sections needed: half, on a rule of thumb.
                push(
                    Strategy::ReduceInput,
                    r.input / 2,
                    0,
                    Level::Low,
                    Level::Low.max_with(confidence(r), Level::Medium),
                    facts,
                );
            }
            Kind::Write if r.regenerates => {
                // A diff names the changed sections: −40 to −70 % of the output.
                let saved_out = r.output * 55 / 100;
                push(
                    Strategy::DiffPatch,
                    saved_out * OUTPUT_WEIGHT,
                    saved_out,
                    Level::Medium,
                    confidence(r).min_with(Level::Medium),
                    facts,
                );
            }
            Kind::Write | Kind::Reasoning if is_costly && mechanical(&r.label, &r.text) => {
                let saved_out = r.output * 9 / 10;
                push(
                    Strategy::Script,
                    saved_out * OUTPUT_WEIGHT,
                    saved_out,
                    Level::Medium,
                    Level::Medium,
                    facts,
                );
            }
            Kind::Bash if is_costly => {
                push(
                    Strategy::ReduceInput,
                    r.input * 7 / 10,
                    0,
                    Level::Low,
                    Level::Medium,
                    facts,
                );
            }
            _ => {}
        }
    }

    // Independent reads in a row: one turn for all of them removes the
    // accumulation layers of the N − 1 extra turns.
    let ops: Vec<&Row> = est
        .rows
        .iter()
        .filter(|r| !matches!(r.kind, Kind::System | Kind::Accumulated))
        .collect();
    let mut best: Vec<&Row> = Vec::new();
    let mut run: Vec<&Row> = Vec::new();
    for r in &ops {
        if r.kind == Kind::Read {
            run.push(r);
        } else {
            if run.len() > best.len() {
                best = std::mem::take(&mut run);
            }
            run.clear();
        }
    }
    if run.len() > best.len() {
        best = run;
    }
    if best.len() >= 2 {
        let acc = est
            .rows
            .iter()
            .find(|r| r.kind == Kind::Accumulated)
            .map_or(0, |r| r.input);
        // Each extra turn re-sends what came before it; without an
        // accumulated line (short skills) the gain is the re-sent reads.
        let saved = if acc > 0 {
            acc * (best.len() as u64 - 1) / ops.len().max(1) as u64
        } else {
            best.iter()
                .take(best.len() - 1)
                .map(|r| r.input)
                .sum::<u64>()
                / 10
        };
        out.push(Optimisation {
            key: format!("parallel:{}", best[0].id),
            strategy: Strategy::Parallel,
            step: Some(
                best.iter()
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            saved_units: saved,
            saved_output: 0,
            gain_pct: pct(saved),
            complexity: Level::Low,
            confidence: Level::Medium,
            facts: Facts {
                reads: best.iter().map(|r| r.id.clone()).collect(),
                ..Facts::default()
            },
        });
    }

    // Inline templates over 2 KB: paid on every request while the skill runs.
    let big: Vec<_> = est
        .blocks
        .iter()
        .filter(|b| b.bytes > TEMPLATE_BYTES)
        .collect();
    if !big.is_empty() {
        let bytes: u64 = big.iter().map(|b| b.bytes).sum();
        let saved = bytes / 4;
        out.push(Optimisation {
            key: "templates".into(),
            strategy: Strategy::ReduceInput,
            step: Some("0".into()),
            saved_units: saved,
            saved_output: 0,
            gain_pct: pct(saved),
            complexity: Level::Low,
            confidence: Level::High,
            facts: Facts {
                files: big.len() as u64,
                bytes,
                tokens: saved,
                template_line: big[0].line,
                ..Facts::default()
            },
        });
    }

    // A SKILL.md over the ~5 000 tokens Anthropic recommends for a skill
    // body is paid on every request while the skill runs.
    if let Some(sys) = est.rows.iter().find(|r| r.kind == Kind::System)
        && est.system_tokens > SKILL_TOKENS
        && sys.units() >= MIN_UNITS
    {
        let saved = est.system_tokens - SKILL_TOKENS;
        out.push(Optimisation {
            key: "skill-size".into(),
            strategy: Strategy::ReduceInput,
            step: Some("0".into()),
            saved_units: saved,
            saved_output: 0,
            gain_pct: pct(saved),
            complexity: Level::Low,
            confidence: Level::High,
            facts: Facts {
                bytes: skill.size,
                tokens: est.system_tokens,
                ..Facts::default()
            },
        });
    }

    // A model stronger than the steps need: same tokens, lower price.
    if let Some(cur) = current
        && cur > recommended
    {
        out.push(Optimisation {
            key: "model".into(),
            strategy: Strategy::CheaperModel,
            step: None,
            saved_units: 0,
            saved_output: 0,
            gain_pct: (1.0 - recommended.input_usd() / cur.input_usd()) * 100.0,
            complexity: Level::Low,
            confidence: Level::Medium,
            facts: Facts {
                from_model: Some(cur),
                to_model: Some(recommended),
                ..Facts::default()
            },
        });
    }
    out.sort_by(|a, b| {
        b.gain_pct
            .partial_cmp(&a.gain_pct)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.key.cmp(&b.key))
    });
    out
}

impl Level {
    fn max_with(self, o: Level, cap: Level) -> Level {
        let m = if rank(o) > rank(self) { o } else { self };
        if rank(m) > rank(cap) { cap } else { m }
    }
    fn min_with(self, o: Level) -> Level {
        if rank(o) < rank(self) { o } else { self }
    }
}

fn rank(l: Level) -> u8 {
    match l {
        Level::Low => 0,
        Level::Medium => 1,
        Level::High => 2,
    }
}

fn key_of(s: Strategy) -> &'static str {
    match s {
        Strategy::Script => "script",
        Strategy::ConditionalRead => "incremental",
        Strategy::ReduceInput => "reduce",
        Strategy::Parallel => "parallel",
        Strategy::DiffPatch => "diff",
        Strategy::CheaperModel => "model",
    }
}

/// Work a script does better: copying, sorting, filtering, counting,
/// computing, reformatting. Named in the step's title, or at least twice
/// in its text, so a passing "list" or "count" does not make a summary
/// mechanical.
fn mechanical(title: &str, text: &str) -> bool {
    const WORDS: &[&str] = &[
        "copier",
        "copy",
        "verbatim",
        "trier",
        "sort",
        "filtrer",
        "filter",
        "compter",
        "count",
        "calculer",
        "compute",
        "renommer",
        "rename",
        "reformater",
        "reformat",
        "convertir",
        "convert",
        "dédupliquer",
        "deduplicate",
    ];
    let found = |t: &str| {
        let l = t.to_lowercase();
        WORDS.iter().filter(|w| l.contains(*w)).count()
    };
    found(title) > 0 || found(text) >= 2
}
