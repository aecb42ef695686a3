//! `cairn usage daily|monthly|session|blocks`: reports over every
//! transcript the client keeps, plus what cairn's ledger remembers of
//! sessions whose transcripts are gone.
//!
//! A report first brings every session's aggregate up to date (only new
//! bytes are read; a second run over unchanged files reads only state),
//! then merges all sessions' records — a response copied into two sessions
//! (a fork, a copied config folder) counts once — and groups them.
//! Memory is bounded by the number of API responses, not by transcript
//! size: files are streamed, never loaded whole.
//!
//! The JSON keeps ccusage's field names where they mean the same thing
//! (`inputTokens`, `cacheCreationTokens`, `totalCost`, …) so scripts written
//! for it keep working; cairn's own figures are extra fields.

use super::aggregate::{self, LocalDates, SessionTotals, Tokens, UpdateOptions};
use super::dedupe::Dedup;
use super::discover::{self, SessionFiles};
use super::ledger::{self, DayPart};
use super::pricing::{PRICES_AS_OF, PriceTable, Rates};
use super::store::{Log, Rec, Summary};
use crate::context::Ctx;
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    Daily,
    Monthly,
    Session,
    /// 5-hour billing blocks, as ccusage cuts them.
    Blocks,
    /// One row per project (working directory), sessions summed.
    Project,
}

impl std::str::FromStr for ReportKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<ReportKind> {
        Ok(match s {
            "daily" => ReportKind::Daily,
            "monthly" => ReportKind::Monthly,
            "session" => ReportKind::Session,
            "blocks" => ReportKind::Blocks,
            "project" => ReportKind::Project,
            other => bail!(
                "unknown report `{other}`: expected daily, monthly, session, project or blocks"
            ),
        })
    }
}

/// Everything a report depends on, explicit so tests pin it.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    pub kind: ReportKind,
    /// Local dates, `YYYYMMDD` or `YYYY-MM-DD`, inclusive.
    pub since: Option<String>,
    pub until: Option<String>,
    pub json: bool,
    /// ANSI colour in the table (a TTY without `NO_COLOR`).
    pub color: bool,
    /// Show a progress bar on stderr when the scan takes over a second.
    pub progress: bool,
    pub prices: PriceTable,
    /// Config folders to scan; `None`: the ones the client uses.
    pub config_dirs: Option<Vec<PathBuf>>,
    /// Parallel readers for a first scan (default: available cores, max 4).
    pub threads: Option<usize>,
    /// Other machines' `cairn usage export` files, merged response by response.
    pub merge: Vec<PathBuf>,
}

impl ReportOptions {
    pub fn new(kind: ReportKind) -> ReportOptions {
        ReportOptions {
            kind,
            since: None,
            until: None,
            json: false,
            color: false,
            progress: false,
            prices: PriceTable::embedded(),
            config_dirs: None,
            threads: None,
            merge: Vec::new(),
        }
    }
}

/// The report as `cairn usage` prints it: prices from the user's config
/// (`[[usage.prices]]`), colour when stdout is a terminal and `NO_COLOR` is
/// unset, a progress bar when stderr is a terminal.
pub fn report(
    ctx: &Ctx,
    prices: &PriceTable,
    kind: ReportKind,
    since: Option<&str>,
    until: Option<&str>,
    json: bool,
) -> Result<String> {
    report_merging(ctx, prices, kind, since, until, json, &[])
}

/// [`report`] with other machines' export files merged in.
pub fn report_merging(
    ctx: &Ctx,
    prices: &PriceTable,
    kind: ReportKind,
    since: Option<&str>,
    until: Option<&str>,
    json: bool,
    merge: &[PathBuf],
) -> Result<String> {
    use std::io::IsTerminal;
    let no_color = ctx.env.get("NO_COLOR").is_some_and(|v| !v.is_empty());
    let opts = ReportOptions {
        since: since.map(str::to_string),
        until: until.map(str::to_string),
        json,
        color: !json && !no_color && std::io::stdout().is_terminal(),
        progress: std::io::stderr().is_terminal(),
        prices: prices.clone(),
        merge: merge.to_vec(),
        ..ReportOptions::new(kind)
    };
    report_with(ctx, &opts)
}

/// A date bound: `YYYYMMDD` (ccusage's form) or `YYYY-MM-DD`.
fn parse_date(flag: &str, s: &str) -> Result<jiff::civil::Date> {
    let t = s.trim();
    let iso = if t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..])
    } else {
        t.to_string()
    };
    iso.parse::<jiff::civil::Date>()
        .map_err(|_| anyhow::anyhow!("invalid {flag} `{s}`: expected YYYYMMDD or YYYY-MM-DD"))
}

/// One session as the report sees it.
struct SessionInfo {
    id: String,
    project: String,
    cwd: String,
    /// No transcript of it was found this time (deleted by the client, or
    /// in a config folder not scanned): figures come from the ledger.
    ledger_only: bool,
    /// The `--merge` file it came from: another machine's session, whose
    /// transcript was never here.
    merged_from: Option<String>,
    agents: Vec<String>,
}

/// Every session's records, merged across sessions.
struct Dataset {
    sessions: Vec<SessionInfo>,
    models: Vec<String>,
    recs: Dedup,
    warnings: Vec<String>,
    /// Memory calls, this machine's and the merged files', each once, with
    /// the index of their machine in `sources`.
    memory: Vec<(ledger::Entry, u32)>,
    /// `this machine`, then the merged files' names.
    sources: Vec<String>,
}

fn threads_for(opts: &ReportOptions) -> usize {
    opts.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 4)
}

/// Updates every session and merges their records.
fn collect(ctx: &Ctx, opts: &ReportOptions) -> Result<Dataset> {
    let dirs = match &opts.config_dirs {
        Some(d) => d.clone(),
        None => discover::config_dirs(ctx),
    };
    let found: Vec<SessionFiles> = discover::all_sessions(ctx, &dirs).into_values().collect();

    let bar = indicatif::ProgressBar::with_draw_target(
        Some(found.len() as u64),
        indicatif::ProgressDrawTarget::hidden(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "reading transcripts {bar:30} {pos}/{len} sessions, {msg} ({elapsed})",
    ) {
        bar.set_style(style);
    }
    let started = Instant::now();
    let shown = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let read = std::sync::atomic::AtomicU64::new(0);
    let results: Mutex<Vec<Option<Result<aggregate::Updated>>>> =
        Mutex::new((0..found.len()).map(|_| None).collect());
    let upd = UpdateOptions {
        need_records: true,
        write_days: false,
        stale_ok: false,
        agent_types: false,
        known_changed: false,
    };
    std::thread::scope(|s| {
        for _ in 0..threads_for(opts).min(found.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(files) = found.get(i) else { break };
                    let r = aggregate::update(ctx, &opts.prices, files, upd);
                    if let Ok(u) = &r {
                        let mb = (read.fetch_add(u.bytes_read, Ordering::Relaxed) + u.bytes_read)
                            / 1_000_000;
                        bar.set_message(format!("{mb} MB read"));
                    }
                    results.lock().unwrap()[i] = Some(r);
                    bar.inc(1);
                    // Only scans that last show a bar: a warm report is done
                    // before a bar would be readable.
                    if opts.progress
                        && started.elapsed() > Duration::from_secs(1)
                        && !shown.swap(true, Ordering::Relaxed)
                    {
                        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    }
                }
            });
        }
    });
    bar.finish_and_clear();

    let mut data = Dataset {
        sessions: Vec::new(),
        models: Vec::new(),
        recs: Dedup::new(),
        warnings: Vec::new(),
        memory: Vec::new(),
        sources: Vec::new(),
    };
    let mut model_index: HashMap<String, u16> = HashMap::new();
    let mut day_changes: BTreeMap<String, BTreeMap<String, Option<DayPart>>> = BTreeMap::new();
    let mut seen_stems = BTreeSet::new();
    let results = results.into_inner().unwrap();
    let mut add = |data: &mut Dataset, info: SessionInfo, log: &Log, recs: &[Rec]| {
        let owner = data.sessions.len() as u32;
        // Session-local model indexes → report-wide ones.
        let map: Vec<u16> = log
            .models
            .iter()
            .map(|m| {
                let next = data.models.len();
                *model_index.entry(m.clone()).or_insert_with(|| {
                    data.models.push(m.clone());
                    u16::try_from(next).unwrap_or(u16::MAX)
                })
            })
            .collect();
        for r in recs {
            let mut g = *r;
            g.model = map.get(usize::from(r.model)).copied().unwrap_or(0);
            data.recs.offer(g, owner);
        }
        data.sessions.push(info);
    };
    for (files, r) in found.iter().zip(results) {
        // The stem its ledger really has (an odd id's may follow the older rule).
        let log = super::store::session_paths(&ctx.state_dir, &files.session_id).log;
        if let Some(stem) = log.file_stem() {
            seen_stems.insert(stem.to_string_lossy().into_owned());
        }
        let up = match r {
            Some(Ok(up)) => up,
            Some(Err(e)) => {
                let msg = format!("session {}: {e:#}", files.session_id);
                ctx.diag(crate::diag::Level::Warn, "usage", &msg);
                data.warnings.push(msg);
                continue;
            }
            None => continue,
        };
        for (d, p) in &up.day_changes {
            day_changes
                .entry(d.clone())
                .or_default()
                .insert(files.session_id.clone(), *p);
        }
        let Some((log, recs)) = up.records else {
            continue;
        };
        let info = SessionInfo {
            id: files.session_id.clone(),
            project: log
                .meta
                .get("project")
                .cloned()
                .unwrap_or(files.project.clone()),
            cwd: log.meta.get("cwd").cloned().unwrap_or_default(),
            // The main file is what a session's transcript is: gone, or never
            // written (a folder holding only subagents' files).
            merged_from: None,
            ledger_only: !files
                .files
                .iter()
                .any(|f| f.agent.is_empty() && f.path.exists()),
            agents: log.agents.clone(),
        };
        add(&mut data, info, &log, &recs);
    }
    // Sessions only the ledger remembers.
    for (stem, path) in aggregate::state_sessions(ctx) {
        if seen_stems.contains(&stem) {
            continue;
        }
        let log = match Log::load(&path) {
            Ok(l) => l,
            Err(e) => {
                let msg = format!("{}: {e:#}", path.display());
                data.warnings.push(msg);
                continue;
            }
        };
        let id = Summary::load(&path.with_extension("json"))
            .map(|s| s.session_id)
            .unwrap_or(stem);
        let recs = aggregate::fold(&log.recs);
        let info = SessionInfo {
            id,
            project: log.meta.get("project").cloned().unwrap_or_default(),
            cwd: log.meta.get("cwd").cloned().unwrap_or_default(),
            ledger_only: true,
            merged_from: None,
            agents: log.agents.clone(),
        };
        add(&mut data, info, &log, &recs);
    }
    let merged = super::export::read_all(&opts.merge)?;
    for s in merged.sessions {
        let info = SessionInfo {
            id: s.id,
            project: s.project,
            cwd: s.cwd,
            ledger_only: true,
            merged_from: merged.sources.get(s.origin as usize).cloned(),
            agents: s.log.agents.clone(),
        };
        add(&mut data, info, &s.log, &s.log.recs);
    }
    data.memory = super::export::memory_calls(ledger::entries(&ctx.state_dir), merged.memory);
    data.sources = merged.sources;
    if let Err(e) = ledger::update_days(&ctx.state_dir, &day_changes) {
        ctx.diag(
            crate::diag::Level::Warn,
            "usage",
            &format!("cannot update the day index: {e:#}"),
        );
    }
    if dirs.is_empty() && data.sessions.is_empty() {
        data.warnings.push(format!(
            "no Claude Code transcripts found ({})",
            discover::config_dirs_hint(ctx)
        ));
    }
    Ok(data)
}

/// Figures of one row (a day, a month, a session, a block).
#[derive(Debug, Clone, Default)]
struct Group {
    tokens: Tokens,
    cost: f64,
    responses: u64,
    /// Per model (report-wide index): tokens, cost.
    models: BTreeMap<u16, (Tokens, f64)>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    /// Subagents (session report): agent index → cost.
    subagents: BTreeMap<u16, f64>,
    main_cost: f64,
}

impl Group {
    fn add(&mut self, r: &Rec, cost: f64, main: bool) {
        let t = Tokens::of(r);
        self.tokens.add(&t);
        self.cost += cost;
        self.responses += 1;
        let m = self.models.entry(r.model).or_default();
        m.0.add(&t);
        m.1 += cost;
        self.first_ms = Some(self.first_ms.map_or(r.ts_ms, |f| f.min(r.ts_ms)));
        self.last_ms = Some(self.last_ms.map_or(r.ts_ms, |l| l.max(r.ts_ms)));
        if main {
            self.main_cost += cost;
        } else {
            *self.subagents.entry(r.agent).or_default() += cost;
        }
    }
}

/// Prices report-wide records; rates cached per model index.
struct ReportPricer<'a> {
    prices: &'a PriceTable,
    models: &'a [String],
    cache: Vec<Option<Option<Rates>>>,
    unknown: BTreeSet<u16>,
}

impl<'a> ReportPricer<'a> {
    fn new(prices: &'a PriceTable, models: &'a [String]) -> Self {
        ReportPricer {
            prices,
            models,
            cache: vec![None; models.len()],
            unknown: BTreeSet::new(),
        }
    }
    fn cost(&mut self, r: &Rec) -> f64 {
        let i = usize::from(r.model);
        let Some(slot) = self.cache.get_mut(i) else {
            return 0.0;
        };
        let rates = slot.get_or_insert_with(|| self.prices.rates(&self.models[i]));
        match rates {
            Some(rates) => super::pricing::price_with(
                rates,
                &r.usage(),
                Some(r.ts_ms.div_euclid(1000)),
                r.fast(),
            )
            .total(),
            None => {
                self.unknown.insert(r.model);
                0.0
            }
        }
    }
}

/// `claude-sonnet-4-5-20250929` → `sonnet-4-5`.
fn short_model(m: &str) -> String {
    if m.is_empty() {
        return "unknown".into();
    }
    let m = m.strip_prefix("claude-").unwrap_or(m);
    match m.rsplit_once('-') {
        Some((head, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => m.to_string(),
    }
}

fn model_name(models: &[String], i: u16) -> String {
    match models.get(usize::from(i)).map(String::as_str) {
        None | Some("") => "unknown".into(),
        Some(m) => m.to_string(),
    }
}

/// Rounded to a micro-dollar so JSON output is stable across platforms.
fn usd(x: f64) -> f64 {
    let v = (x * 1e6).round() / 1e6;
    // An empty float sum is -0.0; print 0.
    if v == 0.0 { 0.0 } else { v }
}

fn token_fields(t: &Tokens) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("inputTokens".into(), json!(t.input));
    m.insert("outputTokens".into(), json!(t.output));
    m.insert("cacheCreationTokens".into(), json!(t.cache_write()));
    m.insert("cacheReadTokens".into(), json!(t.cache_read));
    m.insert("totalTokens".into(), json!(t.total()));
    m.insert("cacheCreation5mTokens".into(), json!(t.cache_write_5m));
    m.insert("cacheCreation1hTokens".into(), json!(t.cache_write_1h));
    m.insert("webSearchRequests".into(), json!(t.web_search_requests));
    m
}

fn breakdowns(g: &Group, models: &[String]) -> Value {
    let mut rows: Vec<(String, Value)> = g
        .models
        .iter()
        .map(|(i, (t, c))| {
            let name = model_name(models, *i);
            let mut m = token_fields(t);
            m.insert("modelName".into(), json!(name));
            m.insert("cost".into(), json!(usd(*c)));
            (name, Value::Object(m))
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    Value::Array(rows.into_iter().map(|(_, v)| v).collect())
}

fn models_used(g: &Group, models: &[String]) -> Vec<String> {
    let set: BTreeSet<String> = g.models.keys().map(|i| model_name(models, *i)).collect();
    set.into_iter().collect()
}

/// Memory-extraction spend by key (date or month).
#[derive(Debug, Clone, Copy, Default)]
struct Memory {
    cost: f64,
    calls: usize,
    tokens: u64,
}

/// cairn's own calls, re-priced with the report's table so one table
/// prices every dollar shown (the price stored at call time is the
/// fallback for models the table does not know: local models), by key and
/// by the machine that made them.
fn memory_by_origin(
    calls: &[(ledger::Entry, u32)],
    prices: &PriceTable,
    key: impl Fn(&str) -> String,
    since: Option<jiff::civil::Date>,
    until: Option<jiff::civil::Date>,
) -> ByMachine {
    let mut out = ByMachine::new();
    for (e, origin) in calls {
        if e.kind != "memory" {
            continue;
        }
        let Ok(d) = e.date.parse::<jiff::civil::Date>() else {
            continue;
        };
        if since.is_some_and(|s| d < s) || until.is_some_and(|u| d > u) {
            continue;
        }
        let cost = match prices.rates(&e.model) {
            Some(r) => {
                let u = crate::transcript::Usage {
                    input_tokens: e.input_tokens,
                    output_tokens: e.output_tokens,
                    cache_creation_input_tokens: e.cache_write_tokens,
                    cache_read_input_tokens: e.cache_read_tokens,
                    ..Default::default()
                };
                let at = e.ts.parse::<jiff::Timestamp>().ok().map(|t| t.as_second());
                super::pricing::price_with(&r, &u, at, false).total()
            }
            None => e.usd.unwrap_or(0.0),
        };
        let m = out.entry((key(&e.date), *origin)).or_default();
        m.cost += cost;
        m.calls += 1;
        m.tokens += e.input_tokens + e.output_tokens + e.cache_write_tokens + e.cache_read_tokens;
    }
    out
}

/// Memory spend by (key, machine's index in `Dataset::sources`).
type ByMachine = BTreeMap<(String, u32), Memory>;

/// [`memory_by_origin`] with every machine added up.
fn memory_by(by_origin: &ByMachine) -> BTreeMap<String, Memory> {
    let mut out: BTreeMap<String, Memory> = BTreeMap::new();
    for ((k, _), m) in by_origin {
        let t = out.entry(k.clone()).or_default();
        t.cost += m.cost;
        t.calls += m.calls;
        t.tokens += m.tokens;
    }
    out
}

/// Brings every session's ledger up to date; returns the warnings.
pub fn refresh(ctx: &Ctx, opts: &ReportOptions) -> Result<Vec<String>> {
    Ok(collect(ctx, opts)
        .context("cannot read the usage state")?
        .warnings)
}

/// Several reports' JSON from one scan (`cairn site` shows four).
pub fn reports_json(ctx: &Ctx, opts: &ReportOptions, kinds: &[ReportKind]) -> Result<Vec<Value>> {
    let data = collect(ctx, opts).context("cannot read the usage state")?;
    kinds
        .iter()
        .map(|&kind| {
            let o = ReportOptions {
                kind,
                json: true,
                color: false,
                ..opts.clone()
            };
            let s = render_with(ctx, &o, &data)?;
            serde_json::from_str(&s).context("a report's JSON does not parse")
        })
        .collect()
}

/// Builds the report.
pub fn report_with(ctx: &Ctx, opts: &ReportOptions) -> Result<String> {
    let data = collect(ctx, opts).context("cannot read the usage state")?;
    render_with(ctx, opts, &data)
}

fn render_with(ctx: &Ctx, opts: &ReportOptions, data: &Dataset) -> Result<String> {
    let since = opts
        .since
        .as_deref()
        .map(|s| parse_date("--since", s))
        .transpose()?;
    let until = opts
        .until
        .as_deref()
        .map(|s| parse_date("--until", s))
        .transpose()?;
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        bail!("--since {s} is after --until {u}");
    }
    let mut dates = LocalDates::new(ctx);
    let mut pricer = ReportPricer::new(&opts.prices, &data.models);
    // Each kept record with its cost and local date, in time order.
    let mut rows: Vec<(usize, jiff::civil::Date, f64)> = Vec::with_capacity(data.recs.len());
    for (i, r) in data.recs.recs.iter().enumerate() {
        let d = dates.date(r.ts_ms);
        if since.is_some_and(|s| d < s) || until.is_some_and(|u| d > u) {
            continue;
        }
        rows.push((i, d, pricer.cost(r)));
    }
    rows.sort_by_key(|(i, _, _)| data.recs.recs[*i].ts_ms);
    let unknown: Vec<String> = pricer
        .unknown
        .iter()
        .map(|i| model_name(&data.models, *i))
        .collect();
    let ctx_info = Info {
        tz: tz_label(ctx),
        unknown,
        warnings: data.warnings.clone(),
        color: opts.color,
    };
    let is_main = |i: usize| -> bool {
        let r = &data.recs.recs[i];
        let s = &data.sessions[data.recs.owners[i] as usize];
        s.agents
            .get(usize::from(r.agent))
            .is_none_or(|a| a.is_empty() || discover::is_compaction_agent(a))
    };
    let out = match opts.kind {
        ReportKind::Daily | ReportKind::Monthly => {
            let monthly = opts.kind == ReportKind::Monthly;
            let key = |d: &jiff::civil::Date| -> String {
                if monthly {
                    d.strftime("%Y-%m").to_string()
                } else {
                    d.to_string()
                }
            };
            let mut groups: BTreeMap<String, Group> = BTreeMap::new();
            for &(i, d, cost) in &rows {
                groups
                    .entry(key(&d))
                    .or_default()
                    .add(&data.recs.recs[i], cost, is_main(i));
            }
            let by_origin = memory_by_origin(
                &data.memory,
                &opts.prices,
                |date| {
                    if monthly {
                        date[..7.min(date.len())].to_string()
                    } else {
                        date.to_string()
                    }
                },
                since,
                until,
            );
            let memory = memory_by(&by_origin);
            for k in memory.keys() {
                groups.entry(k.clone()).or_default();
            }
            // Each machine has its own daily budget: with merged files,
            // each period says what each machine spent.
            let machines = (data.sources.len() > 1).then_some((&by_origin, &data.sources[..]));
            render_periods(
                &groups,
                &memory,
                machines,
                &data.models,
                monthly,
                opts.json,
                &ctx_info,
            )
        }
        ReportKind::Project => {
            let mut groups: BTreeMap<u32, Group> = BTreeMap::new();
            for &(i, _, cost) in &rows {
                groups.entry(data.recs.owners[i]).or_default().add(
                    &data.recs.recs[i],
                    cost,
                    is_main(i),
                );
            }
            render_projects(&groups, data, opts.json, &ctx_info, ctx)
        }
        ReportKind::Session => {
            let mut groups: BTreeMap<u32, Group> = BTreeMap::new();
            for &(i, _, cost) in &rows {
                let owner = data.recs.owners[i];
                groups
                    .entry(owner)
                    .or_default()
                    .add(&data.recs.recs[i], cost, is_main(i));
            }
            let memory = memory_by(&memory_by_origin(
                &data.memory,
                &opts.prices,
                |_| String::new(),
                since,
                until,
            ));
            render_sessions(
                &groups,
                data,
                memory.get("").copied(),
                opts.json,
                &ctx_info,
                ctx,
            )
        }
        ReportKind::Blocks => {
            let recs: Vec<(&Rec, f64)> = rows
                .iter()
                .map(|&(i, _, c)| (&data.recs.recs[i], c))
                .collect();
            let blocks = blocks_of(&recs, ctx.clock.now().as_millisecond());
            render_blocks(&blocks, &data.models, opts.json, &ctx_info, ctx)
        }
    };
    Ok(out)
}

/// What every renderer prints besides its rows.
struct Info {
    tz: String,
    unknown: Vec<String>,
    warnings: Vec<String>,
    color: bool,
}

fn tz_label(ctx: &Ctx) -> String {
    let tz = ctx.tz();
    match tz.iana_name() {
        Some(n) if n != "Local" => n.to_string(),
        _ => match ctx.env.get("TZ").filter(|s| !s.is_empty()) {
            Some(t) => t.trim_start_matches(':').to_string(),
            None => "local time".to_string(),
        },
    }
}

/// `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    crate::format::group_digits(n, ',')
}

use crate::format::dollars;

/// Column alignment.
#[derive(Clone, Copy, PartialEq)]
enum Al {
    L,
    R,
}

/// A plain aligned table: two spaces between columns, a rule under the
/// header and above the total, no trailing spaces.
fn table(
    head: &[(&str, Al)],
    rows: &[Vec<String>],
    total: Option<Vec<String>>,
    color: bool,
) -> String {
    let n = head.len();
    let mut width: Vec<usize> = head.iter().map(|(h, _)| h.chars().count()).collect();
    for r in rows.iter().chain(total.iter()) {
        for (i, c) in r.iter().enumerate().take(n) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(n) {
            let pad = width[i] - c.chars().count();
            if i > 0 {
                s.push_str("  ");
            }
            match head[i].1 {
                Al::L => {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                }
                Al::R => {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                }
            }
        }
        s.trim_end().to_string()
    };
    let bold = |s: String| {
        if color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s
        }
    };
    let rule = "-".repeat(width.iter().sum::<usize>() + 2 * (n - 1));
    let mut out = String::new();
    let head_cells: Vec<String> = head.iter().map(|(h, _)| h.to_string()).collect();
    out.push_str(&bold(line(&head_cells)));
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    for r in rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    if let Some(t) = total {
        out.push_str(&rule);
        out.push('\n');
        out.push_str(&bold(line(&t)));
        out.push('\n');
    }
    out
}

fn token_cells(t: &Tokens) -> Vec<String> {
    vec![
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_write()),
        thousands(t.cache_read),
        thousands(t.total()),
    ]
}

const TOKEN_HEAD: [(&str, Al); 5] = [
    ("Input", Al::R),
    ("Output", Al::R),
    ("Cache write", Al::R),
    ("Cache read", Al::R),
    ("Total tokens", Al::R),
];

fn footer(out: &mut String, info: &Info, memory: Option<Memory>) {
    if let Some(m) = memory.filter(|m| m.calls > 0) {
        let _ = writeln!(
            out,
            "cairn memory extraction: {} call{}, {} tokens, ${:.4} (not in the totals above)",
            m.calls,
            if m.calls == 1 { "" } else { "s" },
            thousands(m.tokens),
            m.cost
        );
    }
    if !info.unknown.is_empty() {
        let _ = writeln!(
            out,
            "Not priced (unknown model, counted at $0; add a [[usage.prices]] row): {}",
            info.unknown.join(", ")
        );
    }
    for w in &info.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

/// The first line of a text report.
fn title(by: &str, info: &Info) -> String {
    format!(
        "Claude Code usage by {by} ({}), prices as of {}\n\n",
        info.tz, PRICES_AS_OF
    )
}

/// The `totals` object of a JSON report; `memory` adds cairn's own spend.
fn totals_json(total: &Group, memory: Option<Memory>) -> Value {
    let mut t = token_fields(&total.tokens);
    t.insert("totalCost".into(), json!(usd(total.cost)));
    t.insert("responses".into(), json!(total.responses));
    if let Some(mem) = memory {
        t.insert("memoryCost".into(), json!(usd(mem.cost)));
        t.insert("memoryCalls".into(), json!(mem.calls));
    }
    Value::Object(t)
}

/// A JSON report: its rows under `key`, the totals, the common fields.
fn report_json(key: &str, rows: Vec<Value>, totals: Option<Value>, info: &Info) -> String {
    let mut v = serde_json::Map::new();
    v.insert(key.into(), Value::Array(rows));
    if let Some(t) = totals {
        v.insert("totals".into(), t);
    }
    json_common(&mut v, info);
    to_json(v)
}

fn json_common(v: &mut serde_json::Map<String, Value>, info: &Info) {
    v.insert("unknownModels".into(), json!(info.unknown));
    v.insert("pricesAsOf".into(), json!(PRICES_AS_OF));
    v.insert("timezone".into(), json!(info.tz));
    if !info.warnings.is_empty() {
        v.insert("warnings".into(), json!(info.warnings));
    }
}

fn to_json(v: serde_json::Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(&Value::Object(v)).expect("json");
    s.push('\n');
    s
}

fn render_periods(
    groups: &BTreeMap<String, Group>,
    memory: &BTreeMap<String, Memory>,
    machines: Option<(&ByMachine, &[String])>,
    models: &[String],
    monthly: bool,
    json: bool,
    info: &Info,
) -> String {
    let label = if monthly { "month" } else { "date" };
    let mut total = Group::default();
    let mut total_mem = Memory::default();
    for g in groups.values() {
        total.tokens.add(&g.tokens);
        total.cost += g.cost;
        total.responses += g.responses;
    }
    for m in memory.values() {
        total_mem.cost += m.cost;
        total_mem.calls += m.calls;
        total_mem.tokens += m.tokens;
    }
    if json {
        let rows: Vec<Value> = groups
            .iter()
            .map(|(k, g)| {
                let mut m = serde_json::Map::new();
                m.insert(label.into(), json!(k));
                m.extend(token_fields(&g.tokens));
                m.insert("totalCost".into(), json!(usd(g.cost)));
                m.insert("responses".into(), json!(g.responses));
                m.insert("modelsUsed".into(), json!(models_used(g, models)));
                m.insert("modelBreakdowns".into(), breakdowns(g, models));
                let mem = memory.get(k).copied().unwrap_or_default();
                m.insert("memoryCost".into(), json!(usd(mem.cost)));
                m.insert("memoryCalls".into(), json!(mem.calls));
                if let Some((by, names)) = machines {
                    let per: Vec<Value> = by
                        .range((k.clone(), 0)..=(k.clone(), u32::MAX))
                        .map(|((_, o), mm)| {
                            json!({
                                "machine": names.get(*o as usize).map_or("", String::as_str),
                                "memoryCost": usd(mm.cost),
                                "memoryCalls": mm.calls,
                            })
                        })
                        .collect();
                    m.insert("memoryByMachine".into(), Value::Array(per));
                }
                Value::Object(m)
            })
            .collect();
        let key = if monthly { "monthly" } else { "daily" };
        return report_json(key, rows, Some(totals_json(&total, Some(total_mem))), info);
    }
    let mut out = title(if monthly { "month" } else { "day" }, info);
    let mut head = vec![(if monthly { "Month" } else { "Date" }, Al::L)];
    head.extend(TOKEN_HEAD);
    head.extend([("Cost", Al::R), ("Memory", Al::R), ("Models", Al::L)]);
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(k, g)| {
            let mut r = vec![k.clone()];
            r.extend(token_cells(&g.tokens));
            r.push(dollars(g.cost));
            let mem = memory.get(k).copied().unwrap_or_default();
            r.push(if mem.calls > 0 {
                dollars(mem.cost)
            } else {
                "-".into()
            });
            let names: Vec<String> = models_used(g, models)
                .iter()
                .map(|m| short_model(m))
                .collect();
            r.push(names.join(", "));
            r
        })
        .collect();
    if rows.is_empty() {
        out.push_str("No usage in this period.\n");
    } else {
        let mut t = vec!["Total".to_string()];
        t.extend(token_cells(&total.tokens));
        t.push(dollars(total.cost));
        t.push(if total_mem.calls > 0 {
            dollars(total_mem.cost)
        } else {
            "-".into()
        });
        t.push(String::new());
        out.push_str(&table(&head, &rows, Some(t), info.color));
    }
    footer(&mut out, info, Some(total_mem));
    out
}

fn ms_date(ctx: &Ctx, ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(ctx.tz()).date().to_string())
        .unwrap_or_default()
}

fn ms_minute(ctx: &Ctx, ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(ctx.tz()).strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

fn render_sessions(
    groups: &BTreeMap<u32, Group>,
    data: &Dataset,
    memory: Option<Memory>,
    json: bool,
    info: &Info,
    ctx: &Ctx,
) -> String {
    // Oldest activity first: the latest sessions end up next to the total.
    let mut order: Vec<(&u32, &Group)> = groups.iter().collect();
    order.sort_by_key(|(o, g)| {
        (
            g.last_ms.unwrap_or(0),
            data.sessions[**o as usize].id.clone(),
        )
    });
    let mut total = Group::default();
    for (_, g) in &order {
        total.tokens.add(&g.tokens);
        total.cost += g.cost;
        total.responses += g.responses;
    }
    let subagent_cost = |g: &Group| g.subagents.values().sum::<f64>();
    if json {
        let rows: Vec<Value> = order
            .iter()
            .map(|(o, g)| {
                let s = &data.sessions[**o as usize];
                let mut m = serde_json::Map::new();
                m.insert("sessionId".into(), json!(s.id));
                m.insert("projectPath".into(), json!(s.project));
                m.insert("cwd".into(), json!(s.cwd));
                m.extend(token_fields(&g.tokens));
                m.insert("totalCost".into(), json!(usd(g.cost)));
                m.insert("responses".into(), json!(g.responses));
                m.insert(
                    "firstActivity".into(),
                    json!(g.first_ms.map(aggregate::ts_string).unwrap_or_default()),
                );
                // ccusage's types: both ends are RFC 3339 timestamps (the
                // table shows the local date; a script does its own zones).
                m.insert(
                    "lastActivity".into(),
                    json!(g.last_ms.map(aggregate::ts_string).unwrap_or_default()),
                );
                m.insert("mainCost".into(), json!(usd(g.main_cost)));
                m.insert("subagents".into(), json!(g.subagents.len()));
                m.insert("subagentCost".into(), json!(usd(subagent_cost(g))));
                m.insert(
                    "transcriptMissing".into(),
                    json!(s.ledger_only && s.merged_from.is_none()),
                );
                if let Some(f) = &s.merged_from {
                    m.insert("mergedFrom".into(), json!(f));
                }
                m.insert("modelsUsed".into(), json!(models_used(g, &data.models)));
                m.insert("modelBreakdowns".into(), breakdowns(g, &data.models));
                Value::Object(m)
            })
            .collect();
        let totals = totals_json(&total, Some(memory.unwrap_or_default()));
        return report_json("sessions", rows, Some(totals), info);
    }
    let mut out = title("session", info);
    let mut head = vec![
        ("Session", Al::L),
        ("Project", Al::L),
        ("Last activity", Al::L),
    ];
    head.extend(TOKEN_HEAD);
    head.extend([("Cost", Al::R), ("Subagents", Al::R), ("Models", Al::L)]);
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|(o, g)| {
            let s = &data.sessions[**o as usize];
            let mut id: String = s.id.chars().take(8).collect();
            if s.merged_from.is_some() {
                id.push('+');
            } else if s.ledger_only {
                id.push('*');
            }
            let project = if s.cwd.is_empty() {
                s.project.clone()
            } else {
                s.cwd.clone()
            };
            let mut r = vec![
                id,
                project,
                g.last_ms.map(|ms| ms_date(ctx, ms)).unwrap_or_default(),
            ];
            r.extend(token_cells(&g.tokens));
            r.push(dollars(g.cost));
            r.push(if g.subagents.is_empty() {
                "-".into()
            } else {
                format!("{} {}", g.subagents.len(), dollars(subagent_cost(g)))
            });
            let names: Vec<String> = models_used(g, &data.models)
                .iter()
                .map(|m| short_model(m))
                .collect();
            r.push(names.join(", "));
            r
        })
        .collect();
    if rows.is_empty() {
        out.push_str("No usage in this period.\n");
    } else {
        let mut t = vec!["Total".to_string(), String::new(), String::new()];
        t.extend(token_cells(&total.tokens));
        t.push(dollars(total.cost));
        let n: usize = order.iter().map(|(_, g)| g.subagents.len()).sum();
        let c: f64 = order.iter().map(|(_, g)| subagent_cost(g)).sum();
        t.push(if n == 0 {
            "-".into()
        } else {
            format!("{n} {}", dollars(c))
        });
        t.push(String::new());
        out.push_str(&table(&head, &rows, Some(t), info.color));
        let shown = |f: &dyn Fn(&SessionInfo) -> bool| {
            order.iter().any(|(o, _)| f(&data.sessions[**o as usize]))
        };
        if shown(&|s| s.ledger_only && s.merged_from.is_none()) {
            out.push_str(
                "* transcript not found (the client deletes them after 30 days): figures from cairn's ledger\n",
            );
        }
        if shown(&|s| s.merged_from.is_some()) {
            out.push_str("+ from another machine (a --merge file)\n");
        }
    }
    footer(&mut out, info, memory);
    out
}

/// One project's sessions summed. Subagents are counted per session (agent
/// indices are only unique within one).
#[derive(Default)]
struct ProjectRow {
    group: Group,
    sessions: usize,
    subagents: usize,
    subagent_cost: f64,
}

fn render_projects(
    groups: &BTreeMap<u32, Group>,
    data: &Dataset,
    json: bool,
    info: &Info,
    ctx: &Ctx,
) -> String {
    let mut projects: BTreeMap<String, ProjectRow> = BTreeMap::new();
    for (o, g) in groups {
        let s = &data.sessions[*o as usize];
        let name = if s.cwd.is_empty() {
            s.project.clone()
        } else {
            s.cwd.clone()
        };
        let p = projects.entry(name).or_default();
        p.sessions += 1;
        p.subagents += g.subagents.len();
        p.subagent_cost += g.subagents.values().sum::<f64>();
        let t = &mut p.group;
        t.tokens.add(&g.tokens);
        t.cost += g.cost;
        t.responses += g.responses;
        t.main_cost += g.main_cost;
        for (m, (tok, c)) in &g.models {
            let e = t.models.entry(*m).or_default();
            e.0.add(tok);
            e.1 += c;
        }
        t.first_ms = t.first_ms.min(g.first_ms).or(t.first_ms.or(g.first_ms));
        t.last_ms = t.last_ms.max(g.last_ms);
    }
    // Costliest first: the question is where the money went.
    let mut order: Vec<(&String, &ProjectRow)> = projects.iter().collect();
    order.sort_by(|a, b| b.1.group.cost.total_cmp(&a.1.group.cost).then(a.0.cmp(b.0)));
    let mut total = Group::default();
    for (_, p) in &order {
        total.tokens.add(&p.group.tokens);
        total.cost += p.group.cost;
        total.responses += p.group.responses;
    }
    if json {
        let rows: Vec<Value> = order
            .iter()
            .map(|(name, p)| {
                let g = &p.group;
                let mut m = serde_json::Map::new();
                m.insert("project".into(), json!(name));
                m.insert("sessions".into(), json!(p.sessions));
                m.extend(token_fields(&g.tokens));
                m.insert("totalCost".into(), json!(usd(g.cost)));
                m.insert("responses".into(), json!(g.responses));
                m.insert(
                    "lastActivity".into(),
                    json!(g.last_ms.map(aggregate::ts_string).unwrap_or_default()),
                );
                m.insert("subagents".into(), json!(p.subagents));
                m.insert("subagentCost".into(), json!(usd(p.subagent_cost)));
                m.insert("modelsUsed".into(), json!(models_used(g, &data.models)));
                m.insert("modelBreakdowns".into(), breakdowns(g, &data.models));
                Value::Object(m)
            })
            .collect();
        return report_json("projects", rows, Some(totals_json(&total, None)), info);
    }
    let mut out = title("project", info);
    let mut head = vec![
        ("Project", Al::L),
        ("Sessions", Al::R),
        ("Last activity", Al::L),
    ];
    head.extend(TOKEN_HEAD);
    head.extend([("Cost", Al::R), ("Subagents", Al::R)]);
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|(name, p)| {
            let g = &p.group;
            let mut r = vec![
                name.to_string(),
                p.sessions.to_string(),
                g.last_ms.map(|ms| ms_date(ctx, ms)).unwrap_or_default(),
            ];
            r.extend(token_cells(&g.tokens));
            r.push(dollars(g.cost));
            r.push(if p.subagents == 0 {
                "-".into()
            } else {
                format!("{} {}", p.subagents, dollars(p.subagent_cost))
            });
            r
        })
        .collect();
    if rows.is_empty() {
        out.push_str("No usage in this period.\n");
    } else {
        let sessions: usize = order.iter().map(|(_, p)| p.sessions).sum();
        let mut t = vec!["Total".to_string(), sessions.to_string(), String::new()];
        t.extend(token_cells(&total.tokens));
        t.push(dollars(total.cost));
        t.push(String::new());
        out.push_str(&table(&head, &rows, Some(t), info.color));
    }
    footer(&mut out, info, None);
    out
}

const BLOCK_MS: i64 = 5 * 3_600_000;

/// A 5-hour billing block (or the gap between two).
#[derive(Debug, Clone, Default)]
struct Block {
    start_ms: i64,
    end_ms: i64,
    /// Last activity in the block.
    last_ms: i64,
    first_ms: i64,
    gap: bool,
    active: bool,
    group: Group,
}

/// ccusage's cut: a block starts at its first response floored to the
/// hour and lasts 5 hours; a response more than 5 hours after the block's
/// start or after the previous response starts a new block; a silence
/// longer than 5 hours between blocks is shown as a gap.
fn blocks_of(recs: &[(&Rec, f64)], now_ms: i64) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut cur: Option<Block> = None;
    let close = |b: Block, out: &mut Vec<Block>| {
        let mut b = b;
        b.active = now_ms - b.last_ms < BLOCK_MS && now_ms < b.end_ms;
        out.push(b);
    };
    for &(r, cost) in recs {
        let t = r.ts_ms;
        if let Some(b) = cur.as_ref()
            && (t - b.start_ms > BLOCK_MS || t - b.last_ms > BLOCK_MS)
        {
            let b = cur.take().expect("checked");
            let last = b.last_ms;
            close(b, &mut out);
            if t - last > BLOCK_MS {
                let gap_start = last + BLOCK_MS;
                if t > gap_start {
                    out.push(Block {
                        start_ms: gap_start,
                        end_ms: t,
                        last_ms: gap_start,
                        first_ms: gap_start,
                        gap: true,
                        ..Block::default()
                    });
                }
            }
        }
        let b = cur.get_or_insert_with(|| {
            let start = t.div_euclid(3_600_000) * 3_600_000;
            Block {
                start_ms: start,
                end_ms: start + BLOCK_MS,
                last_ms: t,
                first_ms: t,
                ..Block::default()
            }
        });
        b.last_ms = b.last_ms.max(t);
        b.group.add(r, cost, true);
    }
    if let Some(b) = cur {
        close(b, &mut out);
    }
    out
}

fn duration_label(ms: i64) -> String {
    let m = (ms.max(0) + 59_999) / 60_000;
    format!("{}h {:02}m", m / 60, m % 60)
}

fn render_blocks(
    blocks: &[Block],
    models: &[String],
    json: bool,
    info: &Info,
    ctx: &Ctx,
) -> String {
    let now = ctx.clock.now().as_millisecond();
    // Burn rate over the active block's span, and where it would end.
    let rate = |b: &Block| -> Option<(f64, f64, f64)> {
        let mins = (b.last_ms - b.first_ms) as f64 / 60_000.0;
        (b.active && mins > 0.0).then(|| {
            let tpm = b.group.tokens.total() as f64 / mins;
            let cph = b.group.cost / mins * 60.0;
            let remaining = ((b.end_ms - now) as f64 / 60_000.0).max(0.0).round();
            (tpm, cph, remaining)
        })
    };
    // What ccusage's indicator rates: tokens that are not cache traffic.
    let fresh_rate = |b: &Block| -> f64 {
        let mins = (b.last_ms - b.first_ms) as f64 / 60_000.0;
        (b.group.tokens.input + b.group.tokens.output) as f64 / mins
    };
    if json {
        let rows: Vec<Value> = blocks
            .iter()
            .map(|b| {
                let iso = |ms: i64| aggregate::ts_string(ms);
                let mut m = serde_json::Map::new();
                m.insert(
                    "id".into(),
                    json!(if b.gap { format!("gap-{}", iso(b.start_ms)) } else { iso(b.start_ms) }),
                );
                m.insert("startTime".into(), json!(iso(b.start_ms)));
                m.insert("endTime".into(), json!(iso(b.end_ms)));
                m.insert(
                    "actualEndTime".into(),
                    if b.gap { Value::Null } else { json!(iso(b.last_ms)) },
                );
                m.insert("isActive".into(), json!(b.active));
                m.insert("isGap".into(), json!(b.gap));
                m.insert("entries".into(), json!(b.group.responses));
                // ccusage nests a block's counts, under the API's own names.
                let t = &b.group.tokens;
                m.insert(
                    "tokenCounts".into(),
                    json!({
                        "inputTokens": t.input,
                        "outputTokens": t.output,
                        "cacheCreationInputTokens": t.cache_write(),
                        "cacheReadInputTokens": t.cache_read,
                    }),
                );
                m.insert("totalTokens".into(), json!(t.total()));
                m.insert("costUSD".into(), json!(usd(b.group.cost)));
                m.insert("models".into(), json!(models_used(&b.group, models)));
                match rate(b) {
                    Some((tpm, cph, remaining)) => {
                        m.insert(
                            "burnRate".into(),
                            json!({
                                "tokensPerMinute": tpm,
                                "tokensPerMinuteForIndicator": fresh_rate(b),
                                "costPerHour": usd(cph),
                            }),
                        );
                        // Counts and minutes are integers in ccusage's JSON.
                        m.insert(
                            "projection".into(),
                            json!({
                                "totalTokens": (b.group.tokens.total() as f64 + tpm * remaining).round() as u64,
                                "totalCost": usd(b.group.cost + cph * remaining / 60.0),
                                "remainingMinutes": remaining as u64,
                            }),
                        );
                    }
                    None => {
                        m.insert("burnRate".into(), Value::Null);
                        m.insert("projection".into(), Value::Null);
                    }
                }
                Value::Object(m)
            })
            .collect();
        return report_json("blocks", rows, None, info);
    }
    let mut out = title("5-hour block", info);
    let head = [
        ("Block start", Al::L),
        ("Status", Al::L),
        ("Responses", Al::R),
        ("Total tokens", Al::R),
        ("Cost", Al::R),
        ("Models", Al::L),
    ];
    let rows: Vec<Vec<String>> = blocks
        .iter()
        .map(|b| {
            if b.gap {
                return vec![
                    ms_minute(ctx, b.start_ms),
                    format!("gap {}", duration_label(b.end_ms - b.start_ms)),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ];
            }
            let status = if b.active {
                format!("active, {} left", duration_label(b.end_ms - now))
            } else {
                let last = ms_minute(ctx, b.last_ms);
                format!("last activity {}", last.get(11..).unwrap_or(&last))
            };
            let names: Vec<String> = models_used(&b.group, models)
                .iter()
                .map(|m| short_model(m))
                .collect();
            vec![
                ms_minute(ctx, b.start_ms),
                status,
                thousands(b.group.responses),
                thousands(b.group.tokens.total()),
                dollars(b.group.cost),
                names.join(", "),
            ]
        })
        .collect();
    if rows.is_empty() {
        out.push_str("No usage in this period.\n");
    } else {
        out.push_str(&table(&head, &rows, None, info.color));
    }
    if let Some(b) = blocks.iter().rev().find(|b| b.active)
        && let Some((tpm, cph, remaining)) = rate(b)
    {
        let _ = writeln!(
            out,
            "Active block: {} tokens/min, {}/hour; at this rate {} and {} tokens by {}",
            thousands(tpm.round() as u64),
            dollars(cph),
            dollars(b.group.cost + cph * remaining / 60.0),
            thousands((b.group.tokens.total() as f64 + tpm * remaining).round() as u64),
            ms_minute(ctx, b.end_ms),
        );
    }
    footer(&mut out, info, None);
    out
}

/// Totals of one session straight from the ledger, for callers that hold a
/// session id rather than a transcript path. `None` when cairn never saw it.
pub fn ledger_session(
    ctx: &Ctx,
    prices: &PriceTable,
    session_id: &str,
) -> Result<Option<SessionTotals>> {
    let paths = super::store::session_paths(&ctx.state_dir, session_id);
    if !paths.log.exists() {
        return Ok(None);
    }
    let log = Log::load(&paths.log)?;
    let recs = aggregate::fold(&log.recs);
    Ok(Some(aggregate::totals_of(session_id, &log, &recs, prices)))
}
