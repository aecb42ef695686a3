//! The Spend tab: daily cost stacked by model, monthly totals, the costliest
//! sessions and 5-hour blocks, and the memory's own spend against its daily
//! budget. Every figure comes from `cairn usage`'s JSON reports (one scan of
//! the ledger for all four), so the page and the terminal agree to the cent.

use super::svg::{self, Bar};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Days drawn in the daily chart; the table below it lists every day.
const CHART_DAYS: usize = 120;
/// Rows of the costliest sessions and blocks.
const TOP: usize = 15;

#[derive(Debug, Default, Serialize)]
pub struct Tab {
    pub total: String,
    pub days_with_usage: usize,
    pub models: Vec<Legend>,
    pub daily_svg: String,
    pub monthly_svg: String,
    pub daily: Vec<Row>,
    pub monthly: Vec<Row>,
    pub sessions: Vec<SessionRow>,
    pub blocks: Vec<BlockRow>,
    pub memory_svg: String,
    pub memory_days: Vec<MemoryRow>,
    pub budget: String,
    pub over_budget_days: usize,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Legend {
    pub name: String,
    pub class: String,
    pub cost: String,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub period: String,
    pub cost: String,
    pub tokens: String,
    pub models: String,
    pub memory: String,
}

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub short: String,
    pub project: String,
    pub last: String,
    pub cost: String,
    pub models: String,
    /// Transcript deleted on this machine: figures from the ledger.
    pub missing: bool,
    /// The `--merge` file of another machine it came from.
    pub machine: String,
}

#[derive(Debug, Serialize)]
pub struct BlockRow {
    pub start: String,
    pub cost: String,
    pub tokens: String,
    pub models: String,
}

#[derive(Debug, Serialize)]
pub struct MemoryRow {
    pub date: String,
    pub cost: String,
    pub calls: u64,
    /// Over the budget on a machine (each has its own).
    pub over: bool,
    /// With merged files: what each machine spent that day.
    pub machines: String,
}

/// A session id as a table has room for; the whole id is in the title.
pub fn short_id(id: &str) -> String {
    match id.char_indices().nth(12) {
        Some((i, _)) => format!("{}…", &id[..i]),
        None => id.to_string(),
    }
}

pub use crate::format::dollars_compact as dollars;

fn thousands(n: u64) -> String {
    crate::format::group_digits(n, ',')
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `claude-sonnet-4-5-20250929` → `sonnet-4-5`: what fits in a legend.
fn short(m: &str) -> String {
    let m = m.strip_prefix("claude-").unwrap_or(m);
    match m.rsplit_once('-') {
        Some((head, d)) if d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()) => head.into(),
        _ => m.into(),
    }
}

fn models_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(short)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn rows_of<'a>(report: &'a Value, key: &str) -> &'a [Value] {
    report
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Bars of the periods, one series per model (models ordered by spend).
fn bars(rows: &[Value], label: &str, series: &BTreeMap<String, usize>) -> Vec<Bar> {
    rows.iter()
        .map(|r| {
            let mut parts: Vec<(usize, f64)> = rows_of(r, "modelBreakdowns")
                .iter()
                .filter_map(|m| Some((*series.get(s(m, "modelName"))?, f(m, "cost"))))
                .filter(|p| p.1 > 0.0)
                .collect();
            parts.sort_by_key(|p| p.0);
            Bar {
                label: s(r, label).to_string(),
                parts,
            }
        })
        .collect()
}

/// An RFC 3339 instant of a report as `YYYY-MM-DD HH:MM` in `tz`, the zone
/// the rest of the page speaks (the reports' instants are UTC).
fn local_minute(rfc3339: &str, tz: &jiff::tz::TimeZone) -> String {
    rfc3339
        .parse::<jiff::Timestamp>()
        .map(|t| {
            t.to_zoned(tz.clone())
                .strftime("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_else(|_| rfc3339.get(..16).unwrap_or("").replace('T', " "))
}

/// `reports`: daily, monthly, session and blocks JSON, in that order.
pub fn build(reports: &[Value], daily_budget: f64, tz: &jiff::tz::TimeZone) -> Tab {
    let [daily, monthly, sessions, blocks] = reports else {
        return Tab::default();
    };
    let days = rows_of(daily, "daily");
    // Series: models by total spend, largest first (it gets the first colour).
    let mut per_model: BTreeMap<String, f64> = BTreeMap::new();
    for d in days {
        for m in rows_of(d, "modelBreakdowns") {
            *per_model.entry(s(m, "modelName").to_string()).or_default() += f(m, "cost");
        }
    }
    let mut order: Vec<(String, f64)> = per_model.into_iter().collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let series: BTreeMap<String, usize> = order
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.clone(), i))
        .collect();
    let names: Vec<String> = order.iter().map(|(m, _)| short(m)).collect();
    let fmt = |v: f64| dollars(v);

    let recent = &days[days.len().saturating_sub(CHART_DAYS)..];
    let daily_svg = svg::stacked_bars(
        "Daily cost by model",
        &bars(recent, "date", &series),
        &names,
        &fmt,
    );
    let months = rows_of(monthly, "monthly");
    let monthly_svg = svg::stacked_bars(
        "Monthly cost by model",
        &bars(months, "month", &series),
        &names,
        &fmt,
    );
    let row = |r: &Value, label: &str| Row {
        period: s(r, label).to_string(),
        cost: dollars(f(r, "totalCost")),
        tokens: thousands(f(r, "totalTokens") as u64),
        models: models_of(r, "modelsUsed"),
        memory: if f(r, "memoryCalls") > 0.0 {
            dollars(f(r, "memoryCost"))
        } else {
            "-".into()
        },
    };

    let mut top_sessions: Vec<&Value> = rows_of(sessions, "sessions").iter().collect();
    top_sessions.sort_by(|a, b| f(b, "totalCost").total_cmp(&f(a, "totalCost")));
    let mut top_blocks: Vec<&Value> = rows_of(blocks, "blocks")
        .iter()
        .filter(|b| !b.get("isGap").and_then(Value::as_bool).unwrap_or(false))
        .collect();
    top_blocks.sort_by(|a, b| f(b, "costUSD").total_cmp(&f(a, "costUSD")));

    // Memory: only days cairn's own extraction spent something.
    let mem_days: Vec<&Value> = days.iter().filter(|d| f(d, "memoryCalls") > 0.0).collect();
    let shown = &mem_days[mem_days.len().saturating_sub(CHART_DAYS)..];
    let memory_svg = if shown.is_empty() {
        String::new()
    } else {
        let values: Vec<f64> = shown.iter().map(|d| f(d, "memoryCost")).collect();
        let rules: Vec<svg::Rule> = (daily_budget > 0.0)
            .then(|| svg::Rule {
                value: daily_budget,
                class: "hard",
                label: format!("memory.daily_budget_usd = {}", dollars(daily_budget)),
            })
            .into_iter()
            .collect();
        let marks: Vec<svg::Mark> = shown
            .iter()
            .enumerate()
            .map(|(i, d)| svg::Mark {
                index: i,
                label: format!("{}: {}", s(d, "date"), dollars(f(d, "memoryCost"))),
            })
            .collect();
        svg::line(
            "Memory spend per day against its daily budget",
            &values,
            &rules,
            &marks,
            &fmt,
        )
    };
    let memory_days: Vec<MemoryRow> = mem_days
        .iter()
        .rev()
        .map(|d| {
            let machines = rows_of(d, "memoryByMachine");
            // The budget is each machine's: two machines under it do not
            // make a day over it.
            let peak = if machines.is_empty() {
                f(d, "memoryCost")
            } else {
                machines
                    .iter()
                    .map(|m| f(m, "memoryCost"))
                    .fold(0.0, f64::max)
            };
            MemoryRow {
                date: s(d, "date").to_string(),
                cost: dollars(f(d, "memoryCost")),
                calls: f(d, "memoryCalls") as u64,
                over: daily_budget > 0.0 && peak > daily_budget,
                machines: machines
                    .iter()
                    .map(|m| format!("{} {}", s(m, "machine"), dollars(f(m, "memoryCost"))))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect();

    let total = daily
        .get("totals")
        .map(|t| f(t, "totalCost"))
        .unwrap_or_else(|| days.iter().map(|d| f(d, "totalCost")).sum());
    let mut warnings: Vec<String> = Vec::new();
    for r in reports {
        for w in rows_of(r, "warnings") {
            if let Some(w) = w.as_str()
                && !warnings.iter().any(|x| x == w)
            {
                warnings.push(w.to_string());
            }
        }
    }
    Tab {
        total: dollars(total),
        days_with_usage: days.iter().filter(|d| f(d, "totalCost") > 0.0).count(),
        models: order
            .iter()
            .enumerate()
            .map(|(i, (m, c))| Legend {
                name: short(m),
                class: svg::series_class(i),
                cost: dollars(*c),
            })
            .collect(),
        daily_svg,
        monthly_svg,
        daily: days.iter().rev().map(|d| row(d, "date")).collect(),
        monthly: months.iter().rev().map(|m| row(m, "month")).collect(),
        sessions: top_sessions
            .into_iter()
            .take(TOP)
            .map(|v| SessionRow {
                id: s(v, "sessionId").to_string(),
                short: short_id(s(v, "sessionId")),
                project: s(v, "projectPath").to_string(),
                last: local_minute(s(v, "lastActivity"), tz),
                cost: dollars(f(v, "totalCost")),
                models: models_of(v, "modelsUsed"),
                missing: v
                    .get("transcriptMissing")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                machine: s(v, "mergedFrom").to_string(),
            })
            .collect(),
        blocks: top_blocks
            .into_iter()
            .take(TOP)
            .map(|v| BlockRow {
                start: local_minute(s(v, "startTime"), tz),
                cost: dollars(f(v, "costUSD")),
                tokens: thousands(f(v, "totalTokens") as u64),
                models: models_of(v, "models"),
            })
            .collect(),
        memory_svg,
        over_budget_days: memory_days.iter().filter(|d| d.over).count(),
        memory_days,
        budget: dollars(daily_budget),
        warnings,
    }
}
