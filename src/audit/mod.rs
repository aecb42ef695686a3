//! Token audit of skills (SPEC §3): `cairn audit skill [NAME]` and
//! `cairn audit index`.
//!
//! - [`skills`] and [`frontmatter`]: where skills live and what they say.
//! - [`estimate`]: the static estimate, step by step (the seed's method).
//! - [`measure`]: real runs found in the transcripts, incrementally.
//! - [`model`] and [`optimize`]: the model a skill needs, what to change.
//! - [`report`] and [`index`]: the Markdown report and the index.

pub mod estimate;
pub mod frontmatter;
pub mod index;
pub mod measure;
pub mod model;
pub mod optimize;
pub mod report;
pub mod skills;

use crate::Output;
use crate::context::Ctx;
use crate::memory::log::Lang;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand, Debug)]
pub enum AuditCommand {
    /// Estimate and measure what one skill costs; list skills without NAME.
    Skill {
        name: Option<String>,
        /// Skip the scan of transcripts for real runs.
        #[arg(long)]
        no_measured: bool,
        /// Report language: fr or en (default: memory.language).
        #[arg(long)]
        lang: Option<String>,
        /// Print the figures as JSON (the report is written all the same).
        #[arg(long)]
        json: bool,
    },
    /// Rebuild docs/audits/token/README.md from every report.
    Index {
        /// Index language: fr or en (default: memory.language).
        #[arg(long)]
        lang: Option<String>,
    },
}

/// `[audit]` settings: bytes per token by content (the seed's ratios).
///
/// ```toml
/// [audit]
/// bytes_per_token_prose = 5.0      # French prose
/// bytes_per_token_json = 2.5
/// bytes_per_token_code = 3.5
/// bytes_per_token_markdown = 4.0   # mixed Markdown (prose, tables, code)
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuditConfig {
    pub bytes_per_token_prose: f64,
    pub bytes_per_token_json: f64,
    pub bytes_per_token_code: f64,
    pub bytes_per_token_markdown: f64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            bytes_per_token_prose: 5.0,
            bytes_per_token_json: 2.5,
            bytes_per_token_code: 3.5,
            bytes_per_token_markdown: 4.0,
        }
    }
}

impl AuditConfig {
    /// The first key whose value cannot be a ratio, and why.
    pub fn invalid(&self) -> Option<(&'static str, String)> {
        [
            ("bytes_per_token_prose", self.bytes_per_token_prose),
            ("bytes_per_token_json", self.bytes_per_token_json),
            ("bytes_per_token_code", self.bytes_per_token_code),
            ("bytes_per_token_markdown", self.bytes_per_token_markdown),
        ]
        .into_iter()
        .find(|(_, v)| !(v.is_finite() && *v >= 0.5 && *v <= 100.0))
        .map(|(k, v)| {
            (
                k,
                format!("{v} is not a number of bytes per token between 0.5 and 100"),
            )
        })
    }
}

/// What an audit reads of the configuration: its own section, the
/// language reports default to, and the price table of `[[usage.prices]]`.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub audit: AuditConfig,
    pub language: Lang,
    pub prices: crate::usage::PriceTable,
}

/// `cairn audit …` in the project at `root` (the entry point found it and
/// loaded its configuration).
pub fn run(ctx: &Ctx, root: &Path, config: &Settings, cmd: AuditCommand) -> Result<Output> {
    match cmd {
        AuditCommand::Skill {
            name,
            no_measured,
            lang,
            json,
        } => {
            let lang = pick_lang(lang.as_deref(), config.language)?;
            skill(ctx, config, root, name.as_deref(), !no_measured, lang, json)
        }
        AuditCommand::Index { lang } => {
            let lang = pick_lang(lang.as_deref(), config.language)?;
            let _lock = crate::fsutil::lock(&lock_path(ctx, root))?;
            let found = skills::discover(ctx, root);
            let r = index::rebuild(root, lang, &ctx.today(), |s| project_of(root, &found, s))?;
            Ok(Output::ok(index_line(root, &r)))
        }
    }
}

fn pick_lang(flag: Option<&str>, default: Lang) -> Result<Lang> {
    match flag.map(str::to_ascii_lowercase).as_deref() {
        None => Ok(default),
        Some("fr") => Ok(Lang::Fr),
        Some("en") => Ok(Lang::En),
        Some(other) => anyhow::bail!("--lang {other}: expected fr or en"),
    }
}

fn lock_path(ctx: &Ctx, root: &Path) -> PathBuf {
    let h = crate::usage::store::hash(&[root.to_string_lossy().as_bytes()]);
    crate::state_layout::locks(&ctx.state_dir).join(format!("audit-{h:016x}.lock"))
}

fn project_of(root: &Path, found: &[skills::Found], skill: &str) -> Option<String> {
    let f = skills::find(found, skill)?;
    skills::read(root, f)
        .ok()
        .and_then(|s| s.fm.get("metadata.project").map(str::to_string))
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

fn index_line(root: &Path, r: &index::Rebuilt) -> String {
    let mut s = format!("index: {} ({} reports", rel(root, &r.path), r.valid);
    if !r.invalid.is_empty() {
        let names: Vec<String> = r
            .invalid
            .iter()
            .map(|(n, why)| format!("{n} ({why})"))
            .collect();
        let _ = write!(s, "; skipped {}", names.join(", "));
    }
    s.push_str(")\n");
    s
}

/// The skills found, with the tokens their listing line costs on every
/// request of every session (name + description, always in context).
pub fn listing(ctx: &Ctx, root: &Path, found: &[skills::Found]) -> String {
    let mut s = String::new();
    if found.is_empty() {
        let _ = writeln!(
            s,
            "no skill found (looked in .claude/skills/*/SKILL.md, .claude/commands/*.md, the user's skills and plugins)"
        );
        return s;
    }
    let _ = writeln!(s, "skills found ({}):", found.len());
    let width = found
        .iter()
        .map(|f| f.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut always = 0u64;
    for f in found {
        let (tokens, path) = match skills::read(root, f) {
            Ok(sk) => (
                (skills::listing_chars(&sk) as u64).div_ceil(4),
                rel(root, &f.path),
            ),
            Err(e) => (0, format!("{} (cannot read: {e})", f.path.display())),
        };
        always += tokens;
        let _ = writeln!(
            s,
            "  {:width$}  {:<16}  ~{:>5} tokens always on  {}",
            f.name,
            f.scope.label(),
            tokens,
            path
        );
    }
    let _ = writeln!(s, "always-on listing cost: ~{always} tokens per request");
    let _ = ctx;
    s
}

fn skill(
    ctx: &Ctx,
    config: &Settings,
    root: &Path,
    name: Option<&str>,
    measured: bool,
    lang: Lang,
    json: bool,
) -> Result<Output> {
    let found = skills::discover(ctx, root);
    let Some(name) = name else {
        return Ok(Output {
            stdout: listing(ctx, root, &found),
            stderr: "hint: cairn audit skill NAME audits one of them\n".into(),
            code: 2,
        });
    };
    let Some(f) = skills::find(&found, name) else {
        return Ok(Output {
            stdout: listing(ctx, root, &found),
            stderr: format!("cairn: no skill named `{name}`; the skills found are listed above\n"),
            code: 1,
        });
    };
    let sk = skills::read(root, f).with_context(|| format!("cannot read {}", f.path.display()))?;
    let est = estimate::estimate(&config.audit, root, &sk);
    let choice = model::recommend(&est);
    let current = sk.fm.get("model").and_then(model::Model::parse);
    let opts = optimize::find(&sk, &est, choice.model, current);
    let prices = config.prices.clone();
    let measured = if measured {
        Some(measure::measure(ctx, &prices, &sk.found.name)?)
    } else {
        None
    };
    let runs = measured.as_ref().map_or(0, |m| m.runs.len());
    let proof = if runs > 0 {
        report::Proof::Measured
    } else if est.example_based {
        report::Proof::ExampleBased
    } else {
        report::Proof::StaticEstimate
    };
    let median_units = measured.as_ref().map_or(0.0, |m| {
        measure::median_p90(m.runs.iter().map(|r| r.units as f64).collect()).0
    });
    let mut out = String::new();
    let scan_line = |out: &mut String| {
        if let Some(m) = &measured {
            let _ = writeln!(
                out,
                "transcripts: {} files in {} sessions, {} read this time of {} ({} runs of {} found)",
                m.stats.files,
                m.stats.sessions,
                human_bytes(m.stats.bytes_read),
                human_bytes(m.stats.bytes_total),
                runs,
                sk.name()
            );
        }
    };
    if est.units < optimize::MIN_UNITS && median_units < optimize::MIN_UNITS as f64 {
        let _ = writeln!(out, "{}", report::verdict(lang, sk.name(), est.units));
        scan_line(&mut out);
        if json {
            let v = to_json(&sk, &est, &choice, &opts, measured.as_ref(), proof, None);
            return Ok(Output::ok(format!(
                "{}\n",
                serde_json::to_string_pretty(&v)?
            )));
        }
        return Ok(Output::ok(out));
    }

    let _lock = crate::fsutil::lock(&lock_path(ctx, root))?;
    let path = index::report_path(root, sk.name());
    let previous = crate::fsutil::confine::read_to_string(&path)
        .ok()
        .and_then(|t| report::parse(&t).ok());
    let references = estimate::referenced(root, &sk);
    let audit = report::Audit {
        skill: &sk,
        est: &est,
        choice: &choice,
        current_model: current,
        opts: &opts,
        measured: measured.as_ref(),
        proof,
        date: ctx.today(),
        previous: previous.as_ref(),
        references: &references,
        lang,
        ratios: &config.audit,
    };
    let text = report::render(&audit);
    std::fs::create_dir_all(index::dir(root))
        .with_context(|| format!("cannot create {}", index::dir(root).display()))?;
    crate::fsutil::atomic_write(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let rebuilt = index::rebuild(root, lang, &ctx.today(), |s| project_of(root, &found, s))?;

    let _ = writeln!(
        out,
        "token audit of {}: {} units (input {}, output {}), level of proof {}",
        sk.name(),
        est.units,
        est.input,
        est.output,
        proof.as_str()
    );
    if est.show_cache() {
        let _ = writeln!(
            out,
            "steady state (system context cached): {} units",
            est.cached_units
        );
    }
    if let Some(c) = est.costliest() {
        let _ = writeln!(
            out,
            "costliest step: {} ({}%)",
            c.id,
            (c.units() as f64 * 100.0 / est.units.max(1) as f64).round()
        );
    }
    let _ = writeln!(out, "recommended model: {}", choice.model.name());
    if let Some(m) = measured.as_ref().filter(|m| !m.runs.is_empty()) {
        let (mt, pt) = measure::median_p90(m.runs.iter().map(|r| r.tokens as f64).collect());
        let (mc, _) = measure::median_p90(m.runs.iter().map(|r| r.cost).collect());
        let total: u64 = m.runs.iter().map(|r| r.tokens).sum();
        let _ = writeln!(
            out,
            "measured: {} run{}, {} tokens in all, median {} tokens (p90 {}), median cost ${:.4}",
            m.runs.len(),
            if m.runs.len() == 1 { "" } else { "s" },
            total,
            mt.round(),
            pt.round(),
            mc
        );
    }
    scan_line(&mut out);
    for o in opts.iter().take(3) {
        let _ = writeln!(out, "optimisation: {} ({:.0}%)", o.key, o.gain_pct);
    }
    let _ = writeln!(out, "report: {}", rel(root, &path));
    out.push_str(&index_line(root, &rebuilt));
    if json {
        let mut v = to_json(
            &sk,
            &est,
            &choice,
            &opts,
            measured.as_ref(),
            proof,
            Some(rel(root, &path)),
        );
        v["index"] = serde_json::json!(rel(root, &rebuilt.path));
        return Ok(Output::ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&v)?
        )));
    }
    Ok(Output::ok(out))
}

/// `--json`: the figures behind the report.
fn to_json(
    sk: &skills::Skill,
    est: &estimate::Estimate,
    choice: &model::Choice,
    opts: &[optimize::Optimisation],
    measured: Option<&measure::Measured>,
    proof: report::Proof,
    report_path: Option<String>,
) -> serde_json::Value {
    use serde_json::json;
    let rows: Vec<_> = est
        .rows
        .iter()
        .map(|r| {
            json!({"id": r.id, "label": r.label, "kind": format!("{:?}", r.kind).to_lowercase(),
                   "input": r.input, "output": r.output, "units": r.units(),
                   "basis": format!("{:?}", r.basis).to_lowercase(), "files": r.files.count,
                   "bytes": r.files.bytes})
        })
        .collect();
    let opts: Vec<_> = opts
        .iter()
        .map(|o| {
            json!({"key": o.key, "strategy": format!("{:?}", o.strategy).to_lowercase(),
                   "step": o.step, "gain_pct": (o.gain_pct * 10.0).round() / 10.0,
                   "saved_units": o.saved_units,
                   "complexity": format!("{:?}", o.complexity).to_lowercase(),
                   "confidence": format!("{:?}", o.confidence).to_lowercase()})
        })
        .collect();
    let measured = measured.map(|m| {
        let (mt, pt) = measure::median_p90(m.runs.iter().map(|r| r.tokens as f64).collect());
        let (mc, pc) = measure::median_p90(m.runs.iter().map(|r| r.cost).collect());
        let runs: Vec<_> = m
            .runs
            .iter()
            .map(|r| {
                json!({"session": r.session, "via": format!("{:?}", r.via).to_lowercase(),
                       "start": crate::usage::aggregate::ts_string(r.start_ms),
                       "responses": r.responses, "tokens": r.tokens, "cost_usd": r.cost,
                       "units": r.units, "model": r.model,
                       "input_tokens": r.usage.input_tokens,
                       "cache_creation_input_tokens": r.usage.cache_creation_input_tokens,
                       "cache_read_input_tokens": r.usage.cache_read_input_tokens,
                       "output_tokens": r.usage.output_tokens})
            })
            .collect();
        json!({"runs": runs, "tokens_total": m.runs.iter().map(|r| r.tokens).sum::<u64>(),
               "median_tokens": mt, "p90_tokens": pt, "median_cost_usd": mc, "p90_cost_usd": pc,
               "scan": {"files": m.stats.files, "sessions": m.stats.sessions,
                        "bytes_read": m.stats.bytes_read, "bytes_total": m.stats.bytes_total}})
    });
    json!({
        "skill": sk.name(),
        "path": sk.found.path.display().to_string(),
        "scope": sk.found.scope.label(),
        "project": sk.project(),
        "level_of_proof": proof.as_str(),
        "verdict_only": report_path.is_none(),
        "input": est.input,
        "output": est.output,
        "units": est.units,
        "cached_units": est.cached_units,
        "steps": est.steps,
        "rows": rows,
        "recommended_model": choice.model.name(),
        "optimisations": opts,
        "measured": measured,
        "report": report_path,
    })
}

fn human_bytes(b: u64) -> String {
    crate::format::human_bytes(b, 2)
}
