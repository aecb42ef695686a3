//! The Guard tab: per session, the context fill of each main-thread turn
//! against the warn and hard levels, where the guard fired and the
//! checkpoint it wrote; then the gate's notes per day.
//!
//! The fill over turns comes from the usage ledger (each response's input,
//! cache reads and cache writes are what the context held), so it outlives
//! the client's transcripts; the fires come from the guard's history
//! (`guard::history`, kept past the 30-day sweep of the ratchets) and from
//! the ratchet files themselves, for fires older than that history; gate
//! notes from `gate::journal`. Both histories only hold what was written
//! since they exist, and only on the machine that wrote them: a `--merge`
//! file brings another machine's sessions (drawn when they ran under this
//! project's path) without their fires or gate notes, and the tab says so.

use super::svg;
use crate::context::Ctx;
use crate::usage::export::Merged;
use crate::usage::store::{Log, Summary};
use crate::usage::{aggregate, discover};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Sessions drawn, newest first.
const SESSIONS_SHOWN: usize = 30;

#[derive(Debug, Default, Serialize)]
pub struct Tab {
    pub sessions: Vec<SessionView>,
    pub more_sessions: usize,
    pub gate_days: Vec<GateDay>,
    pub gate_total: usize,
}

#[derive(Debug, Serialize)]
pub struct SessionView {
    pub id: String,
    pub short: String,
    pub started: String,
    pub model: String,
    pub turns: usize,
    pub peak: String,
    pub peak_pct: u64,
    pub warn: String,
    pub hard: String,
    pub svg: String,
    pub fires: Vec<FireView>,
    pub checkpoint: Option<String>,
    /// The `--merge` file it came from; empty for this machine's sessions.
    pub machine: String,
}

#[derive(Debug, Serialize)]
pub struct FireView {
    pub level: String,
    pub at: String,
    pub tokens: String,
    pub turn: usize,
}

#[derive(Default)]
struct GateCount {
    notes: usize,
    classes: BTreeMap<String, usize>,
    sessions: std::collections::BTreeSet<String>,
}

#[derive(Debug, Serialize)]
pub struct GateDay {
    pub date: String,
    pub notes: usize,
    pub classes: String,
    pub sessions: usize,
}

fn k(n: u64) -> String {
    if n >= 1000 {
        format!("{}K", (n + 500) / 1000)
    } else {
        n.to_string()
    }
}

/// A session belongs to the page's project when it ran in its root or
/// below (a sub-project's folder is below the root too).
fn in_project(cwd: &str, root: &Path) -> bool {
    !cwd.is_empty() && Path::new(cwd).starts_with(root)
}

/// A fire as the tab shows it, from either source.
struct Fired {
    level: crate::guard::Level,
    at: String,
    tokens: u64,
}

/// `merged`: the `--merge` files' sessions and their names. Their context
/// fill is in the file; their fires and gate notes stay on the machine that
/// recorded them.
pub fn build(
    ctx: &Ctx,
    guard: &crate::guard::GuardConfig,
    root: &Path,
    since: Option<&str>,
    merged: Merged,
) -> Tab {
    // Fires and checkpoints by session, oldest first.
    let mut history: std::collections::HashMap<String, Vec<crate::guard::history::Entry>> =
        std::collections::HashMap::new();
    for e in crate::guard::history::read(&ctx.state_dir) {
        history.entry(e.session.clone()).or_default().push(e);
    }
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let local = aggregate::state_sessions(ctx)
        .into_iter()
        .filter_map(|(stem, path)| {
            let log = Log::load(&path).ok()?;
            let cwd = log.meta.get("cwd").cloned().unwrap_or_default();
            if !in_project(&cwd, root) {
                return None;
            }
            let id = Summary::load(&path.with_extension("json"))
                .map(|s| s.session_id)
                .unwrap_or(stem);
            Some((id, log, String::new()))
        });
    // Another machine's session is drawn when it ran under the same path
    // (a synced home, a dev container's `/workspaces/x`); a session this
    // machine also has is drawn once, from here, where its fires are.
    let sources = merged.sources;
    let imported = merged.sessions.into_iter().filter_map(|s| {
        in_project(&s.cwd, root).then(|| {
            let from = sources.get(s.origin as usize).cloned().unwrap_or_default();
            (s.id, s.log, from)
        })
    });
    for (id, log, machine) in local.chain(imported) {
        if !seen.insert(id.clone()) {
            continue;
        }
        let mut turns: Vec<_> = aggregate::fold(&log.recs)
            .into_iter()
            .filter(|r| {
                log.agents
                    .get(usize::from(r.agent))
                    .is_none_or(|a| a.is_empty() || discover::is_compaction_agent(a))
                    && !r.sidechain()
            })
            .collect();
        if turns.is_empty() {
            continue;
        }
        turns.sort_by_key(|r| r.ts_ms);
        let first = turns[0].ts_ms;
        let started = jiff::Timestamp::from_millisecond(first)
            .map(|t| t.to_zoned(ctx.tz()).strftime("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default();
        if since.is_some_and(|s| started.as_str() < s) {
            continue;
        }
        found.push((first, id, log, turns, started, machine));
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let more_sessions = found.len().saturating_sub(SESSIONS_SHOWN);
    let mut sessions = Vec::new();
    for (_, id, log, turns, started, machine) in found.into_iter().take(SESSIONS_SHOWN) {
        let last = turns.last().expect("not empty");
        let model = log.model(last).to_string();
        let fills: Vec<f64> = turns
            .iter()
            .map(|r| {
                (u64::from(r.input)
                    + u64::from(r.cache_read)
                    + u64::from(r.cache_write_5m)
                    + u64::from(r.cache_write_1h)) as f64
            })
            .collect();
        let limits = guard.limits(Some(&model), None, false);
        let mut rules = Vec::new();
        let (mut warn, mut hard) = ("off".to_string(), "off".to_string());
        if let Some(l) = &limits {
            if l.warn > 0 {
                warn = k(l.warn);
                rules.push(svg::Rule {
                    value: l.warn as f64,
                    class: "warn",
                    label: format!("warn at {} tokens", k(l.warn)),
                });
            }
            if l.hard > 0 {
                hard = k(l.hard);
                rules.push(svg::Rule {
                    value: l.hard as f64,
                    class: "hard",
                    label: format!("hard at {} tokens", k(l.hard)),
                });
            }
        }
        let ratchet = crate::guard::file_id(&id)
            .and_then(|f| crate::guard::read_ratchet(ctx, &f).ok())
            .unwrap_or_default();
        let logged = history.remove(&id).unwrap_or_default();
        let mut fired: Vec<Fired> = logged
            .iter()
            .map(|e| Fired {
                level: e.level,
                at: e.at.clone(),
                tokens: e.tokens,
            })
            .collect();
        // A ratchet written before the history existed may know more.
        for f in &ratchet.fires {
            if !fired.iter().any(|g| g.level == f.level && g.at == f.at) {
                fired.push(Fired {
                    level: f.level,
                    at: f.at.clone(),
                    tokens: f.tokens,
                });
            }
        }
        fired.sort_by(|a, b| a.at.cmp(&b.at));
        let checkpoint = ratchet
            .checkpoint
            .or_else(|| logged.iter().rev().find_map(|e| e.checkpoint.clone()));
        let mut fires = Vec::new();
        let mut marks = Vec::new();
        for f in &fired {
            // The turn it fired on: the first response at or after the fire
            // whose fill reached the figure the guard saw.
            let at_ms =
                f.at.parse::<jiff::Timestamp>()
                    .map_or(i64::MAX, |t| t.as_millisecond());
            let turn = turns
                .iter()
                .rposition(|r| r.ts_ms <= at_ms)
                .unwrap_or(turns.len() - 1);
            let level = f.level.as_str().to_string();
            // In the zone the session's start is shown in.
            let at =
                f.at.parse::<jiff::Timestamp>()
                    .map(|t| t.to_zoned(ctx.tz()).strftime("%Y-%m-%d %H:%M").to_string())
                    .unwrap_or_else(|_| f.at.clone());
            marks.push(svg::Mark {
                index: turn,
                label: format!("{level} fired at {} tokens ({at})", k(f.tokens)),
            });
            fires.push(FireView {
                level,
                at,
                tokens: k(f.tokens),
                turn: turn + 1,
            });
        }
        let peak = fills.iter().copied().fold(0.0, f64::max) as u64;
        let window = limits.as_ref().map_or(0, |l| l.window);
        sessions.push(SessionView {
            svg: svg::line(
                &format!("Context fill of session {id} over its turns"),
                &fills,
                &rules,
                &marks,
                &|v| k(v as u64),
            ),
            short: super::spend::short_id(&id),
            id,
            started,
            model,
            turns: turns.len(),
            peak: k(peak),
            peak_pct: (peak * 100).checked_div(window).unwrap_or(0),
            warn,
            hard,
            fires,
            checkpoint: checkpoint.map(|p| crate::search::scan::rel_path(root, &p)),
            machine,
        });
    }

    let mut days: BTreeMap<String, GateCount> = BTreeMap::new();
    let root_s = root.display().to_string();
    let mut gate_total = 0;
    for n in crate::gate::journal::read(&ctx.state_dir) {
        if !n.root.is_empty() && n.root != root_s {
            continue;
        }
        let date =
            n.at.parse::<jiff::Timestamp>()
                .map(|t| ctx.local_date(t))
                .unwrap_or_else(|_| n.at.get(..10).unwrap_or("").to_string());
        if since.is_some_and(|s| date.as_str() < s) {
            continue;
        }
        gate_total += 1;
        let d = days.entry(date).or_default();
        d.notes += 1;
        for c in n.classes {
            *d.classes.entry(c).or_default() += 1;
        }
        d.sessions.insert(n.session);
    }
    Tab {
        sessions,
        more_sessions,
        gate_days: days
            .into_iter()
            .rev()
            .map(|(date, c)| GateDay {
                date,
                notes: c.notes,
                sessions: c.sessions.len(),
                classes: c
                    .classes
                    .iter()
                    .map(|(c, n)| format!("{c} ×{n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
            .collect(),
        gate_total,
    }
}
