//! The context guard through its public API, on transcripts shaped like the
//! real client's: levels fire once each, compaction re-arms, the window the
//! status line saw wins, the hand-off note's exact content, the pending
//! hand-off, and the fault matrix (nothing ever blocks by accident).

use crate::common::guard::*;
use cairn::config::Config;
use cairn::event::{SessionStart as SessionStartInfo, Stop as StopInfo};
use cairn::guard::{self, Level, ModelRule, Outcome};
use serde_json::{Value, json};
use std::path::Path;

fn block(o: &Outcome) -> &guard::Blocked {
    match o {
        Outcome::Block(b) => b,
        other => panic!("expected a block, got {other:?}"),
    }
}

fn start(s: &Scratch, sid: &str, source: &str) -> Option<std::path::PathBuf> {
    guard::on_session_start(
        &s.ctx(),
        &Config::default().guard,
        &s.root,
        &SessionStartInfo {
            session_id: sid.into(),
            source: source.into(),
            cwd: Some(s.root.clone()),
        },
    )
    .unwrap()
}

#[test]
fn warn_fires_once_then_hard_once() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.prompt("Refactor the parser in src/parse.rs");
    t.answer(100_000, "Working on it.");
    assert_eq!(kind(&s.check(&t)), "silent:Below");

    t.answer(125_000, "Still working.");
    let (ctx, config) = (s.ctx(), Config::default());
    let spend = cairn::usage::Spend::new(&ctx, &config.usage);
    let out = guard::on_stop(
        &ctx,
        &config.for_guard(),
        &s.root,
        &s.stop_info(&t),
        None,
        &spend,
    )
    .unwrap()
    .expect("warn blocks");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "block");
    let reason = v["reason"].as_str().unwrap();
    let notes = s.checkpoints();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let note = notes[0].display().to_string();
    assert!(reason.len() < 1000, "{} chars: {reason}", reason.len());
    assert_eq!(
        reason,
        format!(
            "cairn context guard: the context is at 62% of the window (125,000 / 200,000 tokens), \
             past the warn level (120,000 tokens). A hand-off note was written to {note}. Pause for \
             reflection before going on: 1. Refine the note in place: the goal in one or two \
             sentences, where the work stands, decisions and why, open items with the next action \
             first, files touched as path:line; under 500 words, no secrets. 2. Consider what in \
             the context is no longer needed and what you would do differently. 3. Then continue \
             the task where you left off. This will not stop you again before the hard level \
             (160,000 tokens)."
        )
    );
    let name = notes[0].file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, "2026-11-30T120000Z-592d55cf.md");
    assert_eq!(
        v["systemMessage"],
        format!(
            "cairn: context at 62% of the window (125,000 / 200,000 tokens); checkpoint written to memory_sessions/checkpoints/{name}"
        )
    );

    // The block's continuation, then more turns at the same level: silent.
    let mut active = s.stop_info(&t);
    active.stop_hook_active = true;
    let o = guard::check(
        &s.ctx(),
        &Config::default().for_guard(),
        &s.root,
        &active,
        None,
        &guard::Unpriced,
    )
    .unwrap();
    assert_eq!(kind(&o), "silent:StopHookActive");
    t.hook_feedback(reason);
    t.answer(131_000, "Refined the note.");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");
    t.answer(150_000, "More work.");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");

    // The model refined the note; the hard level must not overwrite it.
    std::fs::write(&notes[0], "# refined by the model\n").unwrap();
    t.answer(165_000, "Even more.");
    let o = s.check(&t);
    let b = block(&o);
    assert_eq!(b.level, Level::Hard);
    assert!(!b.wrote_checkpoint);
    assert_eq!(b.checkpoint, notes[0]);
    assert_eq!(
        std::fs::read_to_string(&notes[0]).unwrap(),
        "# refined by the model\n"
    );
    assert!(
        b.reason.contains("past the hard level (160,000 tokens)"),
        "{}",
        b.reason
    );
    assert!(b.reason.contains("/clear"), "{}", b.reason);
    assert!(b.reason.contains(&note), "{}", b.reason);
    assert!(b.reason.len() < 1000);
    assert!(b.system_message.contains("/clear"), "{}", b.system_message);

    t.answer(180_000, "Wrapping up.");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");
    assert_eq!(s.checkpoints().len(), 1);
    let r = guard::read_ratchet(&s.ctx(), SID).unwrap();
    assert_eq!(r.level, Level::Hard);
    assert_eq!(
        r.fires
            .iter()
            .map(|f| (f.level, f.tokens))
            .collect::<Vec<_>>(),
        [(Level::Warn, 125_000), (Level::Hard, 165_000)]
    );
}

#[test]
fn a_jump_past_both_levels_fires_hard_with_a_fresh_note() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.prompt("Go");
    t.answer(170_000, "Big read.");
    let o = s.check(&t);
    let b = block(&o);
    assert_eq!(b.level, Level::Hard);
    assert!(b.wrote_checkpoint);
    assert!(b.checkpoint.is_file());
    t.answer(175_000, "x");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");
}

#[test]
fn thresholds_follow_the_model() {
    let s = Scratch::new();
    // 1M model: 150K is fine, 185K warns, 245K is hard.
    let mut t = s.session("opus").model(OPUS_1M);
    t.answer(150_000, "a");
    assert_eq!(kind(&s.check(&t)), "silent:Below");
    t.answer(185_000, "b");
    let o = s.check(&t);
    assert_eq!(block(&o).limits.window, 1_000_000);
    assert!(
        block(&o)
            .reason
            .contains("18% of the window (185,000 / 1,000,000 tokens)")
    );
    t.answer(245_000, "c");
    assert_eq!(kind(&s.check(&t)), "block:hard");

    // 200K model: warns at 120K.
    let mut h = s.session("haiku");
    h.answer(121_000, "a");
    assert_eq!(kind(&s.check(&h)), "block:warn");

    // Unknown model: silent, whatever the fill.
    let mut g = s.session("gateway").model("my-gateway-model");
    g.answer(900_000, "a");
    assert_eq!(kind(&s.check(&g)), "silent:UnknownModel");
    // … unless a rule describes it.
    let mut c = Config::default();
    c.guard.models = vec![ModelRule {
        pattern: "gateway".into(),
        window: Some(128_000),
        warn: Some(50_000),
        hard: None,
    }];
    assert_eq!(kind(&s.check_with(&c, &g)), "block:hard");
    let mut g2 = s.session("gateway2").model("my-gateway-model");
    g2.answer(60_000, "a");
    assert_eq!(kind(&s.check_with(&c, &g2)), "block:warn");

    // Levels can be set per window class, and the guard turned off.
    let mut c = Config::default();
    c.guard.warn_tokens = 100_000;
    let mut h2 = s.session("haiku2");
    h2.answer(101_000, "a");
    assert_eq!(kind(&s.check_with(&c, &h2)), "block:warn");
    c.guard.enabled = false;
    let mut h3 = s.session("haiku3");
    h3.answer(199_000, "a");
    assert_eq!(kind(&s.check_with(&c, &h3)), "silent:Disabled");
}

#[test]
fn the_window_the_status_line_saw_wins() {
    let s = Scratch::new();
    // Sonnet 4.6 is 200K by the table; this session runs the 1M variant.
    let mut t = s.session("sonnet").model("claude-sonnet-4-6");
    guard::record_window(&s.ctx(), "sonnet", Some("claude-sonnet-4-6[1m]"), 1_000_000).unwrap();
    t.answer(150_000, "a");
    assert_eq!(kind(&s.check(&t)), "silent:Below");
    t.answer(181_000, "b");
    let o = s.check(&t);
    assert_eq!(block(&o).limits.window, 1_000_000);
    assert_eq!(block(&o).limits.source, guard::WindowSource::StatusLine);

    // The reverse: a 1M-by-table model held at 200K by the client.
    let mut u = s.session("held").model(OPUS_1M);
    guard::record_window(&s.ctx(), "held", Some(OPUS_1M), 200_000).unwrap();
    u.answer(125_000, "a");
    assert_eq!(kind(&s.check(&u)), "block:warn");

    // Garbage from the status line is ignored; unchanged figures are not rewritten.
    guard::record_window(&s.ctx(), "odd", None, 0).unwrap();
    assert_eq!(guard::read_window(&s.ctx(), "odd").unwrap(), None);
    let w = s.state.join("guard/windows/held.json");
    let before = std::fs::metadata(&w).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    guard::record_window(&s.ctx(), "held", Some(OPUS_1M), 200_000).unwrap();
    assert_eq!(std::fs::metadata(&w).unwrap().modified().unwrap(), before);

    // CLAUDE_CODE_DISABLE_1M_CONTEXT holds native-1M models to 200K.
    let mut v = s.session("env").model(OPUS_1M);
    v.answer(125_000, "a");
    let mut ctx = s.ctx();
    ctx.env.set("CLAUDE_CODE_DISABLE_1M_CONTEXT", "1");
    let o = guard::check(
        &ctx,
        &Config::default().for_guard(),
        &s.root,
        &s.stop_info(&v),
        None,
        &guard::Unpriced,
    )
    .unwrap();
    assert_eq!(kind(&o), "block:warn");
}

#[test]
fn session_start_compact_rearms_both_levels() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    assert_eq!(kind(&s.check(&t)), "block:warn");
    t.answer(165_000, "b");
    assert_eq!(kind(&s.check(&t)), "block:hard");

    // `/compact`: SessionStart(compact) arrives; the transcript may not
    // show the boundary yet. The record that already fired stays quiet.
    assert_eq!(start(&s, SID, "compact"), None);
    assert_eq!(kind(&s.check(&t)), "silent:SameRecord");
    t.compact(165_000);
    assert_eq!(kind(&s.check(&t)), "silent:NoUsage");
    t.prompt("Continue");
    t.answer(30_000, "Back to work.");
    assert_eq!(kind(&s.check(&t)), "silent:Below");
    t.answer(126_000, "c");
    let o = s.check(&t);
    assert_eq!(block(&o).level, Level::Warn);
    assert!(block(&o).wrote_checkpoint, "a new note after a compaction");
    t.answer(170_000, "d");
    assert_eq!(kind(&s.check(&t)), "block:hard");
    assert_eq!(s.checkpoints().len(), 2);
    assert_eq!(guard::read_ratchet(&s.ctx(), SID).unwrap().rearms, 1);
}

#[test]
fn a_compaction_seen_in_the_transcript_rearms_without_session_start() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    assert_eq!(kind(&s.check(&t)), "block:warn");
    t.answer(165_000, "b");
    assert_eq!(kind(&s.check(&t)), "block:hard");
    t.compact(165_000);
    t.prompt("Continue");
    t.answer(25_000, "smaller now");
    assert_eq!(kind(&s.check(&t)), "rearmed");
    assert_eq!(kind(&s.check(&t)), "silent:Below");
    t.answer(122_000, "growing");
    assert_eq!(kind(&s.check(&t)), "block:warn");
}

#[test]
fn other_session_starts_do_not_rearm() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    assert_eq!(kind(&s.check(&t)), "block:warn");
    for source in ["resume", "startup", "clear", "bogus"] {
        start(&s, SID, source);
    }
    t.answer(130_000, "b");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");
    // A compaction of a session the guard never fired in writes nothing.
    start(&s, "never-fired", "compact");
    assert!(!s.state.join("guard/sessions/never-fired.json").exists());
}

#[test]
fn the_hard_note_is_handed_to_the_next_session_once() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    let warn_note = block(&s.check(&t)).checkpoint.clone();
    // Warn alone leaves nothing pending.
    assert_eq!(
        guard::pending_handoff(&s.ctx(), &Config::default().guard, &s.root),
        None
    );
    t.answer(165_000, "b");
    assert_eq!(block(&s.check(&t)).checkpoint, warn_note);
    assert_eq!(
        guard::pending_handoff(&s.ctx(), &Config::default().guard, &s.root),
        Some(warn_note.clone())
    );
    // compact and resume belong to the same session: the note stays pending.
    assert_eq!(start(&s, SID, "compact"), None);
    assert_eq!(start(&s, SID, "resume"), None);
    // `/clear` starts a new session, which gets it, once.
    assert_eq!(start(&s, "next-session", "clear"), Some(warn_note.clone()));
    assert_eq!(start(&s, "next-session", "clear"), None);
    assert_eq!(
        guard::pending_handoff(&s.ctx(), &Config::default().guard, &s.root),
        None
    );

    // `startup` (the user quit and came back) gets it too.
    let mut u = s.session("second");
    u.answer(170_000, "x");
    let note = block(&s.check(&u)).checkpoint.clone();
    assert_eq!(start(&s, "third", "startup"), Some(note.clone()));

    // Too old, or deleted since: not injected.
    let mut v = s.session("fourth");
    v.answer(170_000, "x");
    let old = block(&s.check(&v)).checkpoint.clone();
    let later = s.ctx_at("2026-12-08T12:00:01Z");
    let got = guard::on_session_start(
        &later,
        &Config::default().guard,
        &s.root,
        &SessionStartInfo {
            session_id: "fifth".into(),
            source: "startup".into(),
            cwd: None,
        },
    )
    .unwrap();
    assert_eq!(got, None, "a week-old hand-off is stale");
    let mut w = s.session("sixth");
    w.answer(170_000, "x");
    let gone = block(&s.check(&w)).checkpoint.clone();
    std::fs::remove_file(&gone).unwrap();
    assert_eq!(start(&s, "seventh", "clear"), None);
    assert!(old.is_file());
}

/// A 2.1.332-shaped session with everything the note reads.
fn rich_session(s: &Scratch) -> Session {
    let g = s.root.join(".git");
    std::fs::create_dir_all(g.join("refs/heads/feat")).unwrap();
    std::fs::create_dir_all(g.join("logs")).unwrap();
    let sha = "1111111111111111111111111111111111111111";
    std::fs::write(g.join("HEAD"), "ref: refs/heads/feat/guard\n").unwrap();
    std::fs::write(g.join("refs/heads/feat/guard"), format!("{sha}\n")).unwrap();
    std::fs::write(
        g.join("logs/HEAD"),
        format!(
            "{} {sha} Ann <a@x> 1700000000 +0000\tcommit: guard: ratchet\n",
            "0".repeat(40)
        ),
    )
    .unwrap();
    std::fs::write(
        s.root.join("memory_sessions/logs/2026-11-30.md"),
        "# Log session — 2026-11-30\n\n## Décisions prises\n- Le ratchet vit dans le dossier d'état\n\n## À suivre\n- Brancher le garde dans hook.rs\n",
    )
    .unwrap();

    let r = |p: &str| s.root.join(p).display().to_string();
    let mut t = s.session(SID);
    t.subagent_file("a1");
    t.subagent_file("a2");
    t.prompt("Ajoute le garde de contexte dans src/guard/mod.rs");
    t.tool(
        30_000,
        "Read",
        json!({"file_path": r("src/guard/mod.rs"), "offset": 40, "limit": 20}),
        "    40→fn x() {}",
        false,
        json!({"type": "text", "file": {"filePath": r("src/guard/mod.rs"), "content": "fn x() {}", "numLines": 20, "startLine": 40, "totalLines": 400}}),
    );
    t.tool(
        40_000,
        "Edit",
        json!({"file_path": r("src/guard/mod.rs"), "old_string": "a", "new_string": "b"}),
        "The file has been updated.",
        false,
        json!({"filePath": r("src/guard/mod.rs"), "oldString": "a", "newString": "b", "originalFile": "…",
               "structuredPatch": [{"oldStart": 120, "oldLines": 7, "newStart": 120, "newLines": 8,
                                    "lines": [" c", " c", " c", "-a", "+b", "+c", " c", " c"]}],
               "userModified": false, "replaceAll": false}),
    );
    t.tool(
        50_000,
        "Read",
        json!({"file_path": r("missing.rs")}),
        "<tool_use_error>File does not exist.</tool_use_error>",
        true,
        json!("Error: File does not exist."),
    );
    t.tool(
        60_000,
        "Bash",
        json!({"command": "cargo test --lib guard\necho done", "description": "Run the tests"}),
        "ok",
        false,
        json!({"stdout": "ok", "stderr": "", "interrupted": false}),
    );
    // A subagent's record inside the main file (old clients): not ours.
    t.append(
        &json!({"type": "assistant", "isSidechain": true, "message": {"id": "side", "model": HAIKU,
            "content": [{"type": "tool_use", "id": "toolu_side", "name": "Edit", "input": {"file_path": r("side.rs")}}],
            "usage": {"input_tokens": 1, "cache_read_input_tokens": 190000}}})
        .to_string(),
    );
    t.stop_summary();
    t.task_notification();
    t.prompt("Corrige le test qui échoue ; la clé est sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    t.tool(
        70_000,
        "Write",
        json!({"file_path": r("tests/guard_new.rs"), "content": "#[test] fn t() {}"}),
        "File created successfully",
        false,
        json!({"type": "create", "filePath": r("tests/guard_new.rs"), "content": "#[test] fn t() {}", "structuredPatch": []}),
    );
    t.tool(
        80_000,
        "Edit",
        json!({"file_path": r("src/guard/mod.rs"), "old_string": "x", "new_string": "y"}),
        "The file has been updated.",
        false,
        json!({"filePath": r("src/guard/mod.rs"), "structuredPatch": [{"oldStart": 10, "oldLines": 1, "newStart": 10, "newLines": 1, "lines": ["-x", "+y"]}]}),
    );
    t.answer(125_000, "Le test passe maintenant.");
    t.stop_summary();
    t
}

#[test]
fn the_note_has_the_exact_sections() {
    let s = Scratch::new();
    let t = rich_session(&s);
    let mut info = s.stop_info(&t);
    info.last_assistant_message = Some("Le test passe maintenant.\n\nTout est vert.".into());
    let o = guard::check(
        &s.ctx(),
        &Config::default().for_guard(),
        &s.root,
        &info,
        None,
        &guard::Unpriced,
    )
    .unwrap();
    let note = std::fs::read_to_string(&block(&o).checkpoint).unwrap();
    let expected = format!(
        "# Checkpoint — 2026-11-30 12:00 — session 592d55cf

> Écrit par le garde de contexte de cairn ; le modèle le complète et la session suivante reprend à partir de lui.

## Objectif
- Ajoute le garde de contexte dans src/guard/mod.rs
- Corrige le test qui échoue ; la clé est [REDACTED:anthropic-key]
- _(à compléter : à quoi sert cette session, en une ou deux phrases)_

## État
- Contexte : 125 000 / 200 000 tokens (62 %), niveau warn, `claude-haiku-4-5`
- Session : `592d55cf-11d7-4a1b-99fa-bf536f8ae9a6`
- Répertoire de travail : `{root}`
- Dernière réponse : Le test passe maintenant. Tout est vert.
- Commandes récentes : `cargo test --lib guard`
- _(à compléter : où en est le travail, ce qui est vérifié, ce qui est à moitié fait)_

## Décisions
- Le ratchet vit dans le dossier d'état (du log du jour)
- _(à compléter : décisions prises dans cette session, et pourquoi)_

## À suivre
- Brancher le garde dans hook.rs (du log du jour)
- _(à compléter : l'action suivante exacte d'abord, puis le reste)_

## Fichiers touchés
- `src/guard/mod.rs:10` `src/guard/mod.rs:40` `src/guard/mod.rs:123` — Read, Edit
- `tests/guard_new.rs` — Write

## Git
- Branche : `feat/guard`
- Dernier commit : `111111111111` guard: ratchet

## Sous-agents
- 2 transcripts de sous-agents, dépense : pas encore chiffrée

## Reprise
- Lire cette note d'abord, puis au plus une recherche ciblée ; ne pas relire les fichiers qu'elle résume déjà.
- Rester sous 500 mots ; citer les sorties d'outils avec parcimonie ; jamais de secret.
",
        root = s.root.display()
    );
    assert_eq!(note, expected);
    assert!(!note.contains("sk-ant-api03"), "redacted");
}

struct Priced;
impl guard::SpendSource for Priced {
    fn session(&self, transcript: &Path) -> Result<Option<cairn::spend::SessionSpend>, String> {
        assert!(transcript.ends_with(format!("{SID}.jsonl")));
        Ok(Some(cairn::spend::SessionSpend {
            subagents_usd: 1.5,
            ..Default::default()
        }))
    }
    fn today(&self) -> Result<Option<cairn::spend::TodaySpend>, String> {
        unreachable!("a note gives no daily figure")
    }
}

#[test]
fn the_note_in_english_with_priced_subagents_and_no_repository() {
    let s = Scratch::new();
    let mut t = s.session(SID);
    t.subagent_file("a1");
    t.prompt("Fix the flaky test");
    t.answer(125_000, "Done.");
    let mut c = Config::default();
    c.memory.language = cairn::memory::log::Lang::En;
    let o = guard::check(
        &s.ctx(),
        &c.for_guard(),
        &s.root,
        &s.stop_info(&t),
        None,
        &Priced,
    )
    .unwrap();
    let note = std::fs::read_to_string(&block(&o).checkpoint).unwrap();
    let headings: Vec<&str> = note.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        [
            "## Goal",
            "## State",
            "## Decisions",
            "## Open items",
            "## Files touched",
            "## Git",
            "## Subagents",
            "## Resume"
        ]
    );
    assert!(note.contains("- Fix the flaky test\n"), "{note}");
    assert!(
        note.contains(
            "- Context: 125,000 / 200,000 tokens (62%), level warn, `claude-haiku-4-5`\n"
        ),
        "{note}"
    );
    assert!(note.contains("- Last answer: Done.\n"), "{note}");
    assert!(
        note.contains("- 1 subagent transcripts, spend: $1.50\n"),
        "{note}"
    );
    assert!(
        note.contains("- _(none seen in the end of the transcript)_\n"),
        "{note}"
    );
    // The transcript still knows the branch.
    assert!(note.contains("## Git\n- Branch: `main`\n"), "{note}");
}

#[test]
fn the_note_goes_to_the_sub_project_of_the_cwd() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.root.join("projects/blog/memory_sessions")).unwrap();
    std::fs::create_dir_all(s.root.join("projects/blog/src")).unwrap();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    let mut info = s.stop_info(&t);
    info.cwd = Some(s.root.join("projects/blog/src"));
    let o = guard::check(
        &s.ctx(),
        &Config::default().for_guard(),
        &s.root,
        &info,
        None,
        &guard::Unpriced,
    )
    .unwrap();
    let p = &block(&o).checkpoint;
    assert!(
        p.starts_with(s.root.join("projects/blog/memory_sessions/checkpoints")),
        "{}",
        p.display()
    );
}

// ---------------------------------------------------------------------------
// Fault matrix: nothing here may block, panic or leave a note behind.

fn assert_no_block(r: anyhow::Result<Outcome>) -> String {
    match r {
        Ok(Outcome::Block(b)) => panic!("blocked: {}", b.reason),
        Ok(o) => kind(&o),
        Err(e) => format!("err: {e:#}"),
    }
}

fn run(s: &Scratch, info: &StopInfo) -> String {
    assert_no_block(guard::check(
        &s.ctx(),
        &Config::default().for_guard(),
        &s.root,
        info,
        None,
        &guard::Unpriced,
    ))
}

#[test]
fn fault_matrix() {
    let s = Scratch::new();
    let mut t = s.session(SID);

    // No usage record yet (the first prompt only).
    t.prompt("hello");
    assert_eq!(run(&s, &s.stop_info(&t)), "silent:NoUsage");

    // Missing transcript: an error for the diagnostics log, no block.
    let mut info = s.stop_info(&t);
    info.transcript_path = Some(s.base.join("nope.jsonl"));
    let got = run(&s, &info);
    assert!(
        got.starts_with("err: guard: cannot read the transcript"),
        "{got}"
    );

    // No transcript path, no session id.
    info.transcript_path = None;
    assert_eq!(run(&s, &info), "silent:NoTranscript");
    let mut info = s.stop_info(&t);
    info.session_id = String::new();
    assert_eq!(run(&s, &info), "silent:NoSession");

    // Garbage: binary junk, not UTF-8, JSON of the wrong shape.
    let junk = s.session("junk");
    junk.append_raw(&[0xff, 0xfe, 0x00, b'\n', b'{', b'\n']);
    junk.append("[1,2,3]");
    junk.append(r#"{"type":"assistant","message":{"usage":"lots","model":7}}"#);
    junk.append(r#"{"type":"assistant","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":"many"}}}"#);
    junk.append_raw(&[0xc3, 0x28, b'\n']);
    let r = run(&s, &s.stop_info(&junk));
    assert!(r == "silent:NoUsage" || r == "silent:Below", "{r}");

    // Truncated: the client is still writing the line that would cross the level.
    let mut cut = s.session("cut");
    cut.answer(50_000, "a");
    let full = {
        let mut tmp = s.session("tmp");
        tmp.answer(190_000, "b");
        std::fs::read_to_string(&tmp.path).unwrap()
    };
    let first = full.lines().next().unwrap();
    cut.append_raw(&first.as_bytes()[..first.len() / 2]);
    assert_eq!(run(&s, &s.stop_info(&cut)), "silent:Below");

    // An empty file.
    let empty = s.session("empty");
    assert_eq!(run(&s, &s.stop_info(&empty)), "silent:NoUsage");

    // Unknown model; the client's own placeholder records.
    let mut unk = s.session("unk").model("gpt-5");
    unk.answer(500_000, "a");
    assert_eq!(run(&s, &s.stop_info(&unk)), "silent:UnknownModel");
    let mut synth = s.session("synth").model("<synthetic>");
    synth.answer(500_000, "a");
    assert_eq!(run(&s, &s.stop_info(&synth)), "silent:NoUsage");

    assert!(s.checkpoints().is_empty(), "{:?}", s.checkpoints());
}

#[test]
fn an_unwritable_state_folder_never_blocks_nor_litters() {
    let s = Scratch::new();
    // A file where the folder should be: nothing can be created under it,
    // even for root (a read-only mode would not stop root).
    std::fs::write(&s.state, "not a folder").unwrap();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    for _ in 0..3 {
        let got = run(&s, &s.stop_info(&t));
        assert!(got.starts_with("err: "), "{got}");
    }
    assert!(s.checkpoints().is_empty(), "{:?}", s.checkpoints());
    // Below the level nothing is written, so nothing fails.
    let mut u = s.session("low");
    u.answer(10_000, "a");
    assert_eq!(run(&s, &s.stop_info(&u)), "silent:Below");
    // record_window and SessionStart fail or do nothing, never panic.
    assert!(guard::record_window(&s.ctx(), SID, None, 200_000).is_err());
    assert_eq!(start(&s, "x", "startup"), None);
}

#[cfg(unix)]
#[test]
fn a_read_only_state_folder_never_blocks() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    let guard_dir = s.state.join("guard");
    std::fs::create_dir_all(&guard_dir).unwrap();
    std::fs::set_permissions(&s.state, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&guard_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let restore = || {
        std::fs::set_permissions(&guard_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&s.state, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // Root ignores modes; `an_unwritable_state_folder_never_blocks_nor_litters`
    // covers that case with a file in the folder's place.
    if std::fs::write(guard_dir.join("probe"), "x").is_ok() {
        restore();
        return;
    }
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    let got = run(&s, &s.stop_info(&t));
    restore();
    assert!(got.starts_with("err: "), "{got}");
    assert!(s.checkpoints().is_empty());
}

#[test]
fn an_unwritable_project_leaves_the_level_armed() {
    let s = Scratch::new();
    // `checkpoints` is a file: the note cannot be written.
    std::fs::write(s.root.join("memory_sessions/checkpoints"), "x").unwrap();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    let got = run(&s, &s.stop_info(&t));
    assert!(got.contains("cannot write the checkpoint"), "{got}");
    // The ratchet was rolled back: once the folder is fixed, warn fires.
    assert_eq!(
        guard::read_ratchet(&s.ctx(), SID).unwrap().level,
        Level::None
    );
    std::fs::remove_file(s.root.join("memory_sessions/checkpoints")).unwrap();
    assert_eq!(kind(&s.check(&t)), "block:warn");
}

#[test]
fn a_corrupt_ratchet_file_is_logged_and_replaced() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.state.join("guard/sessions")).unwrap();
    std::fs::write(
        s.state.join(format!("guard/sessions/{SID}.json")),
        "{garbage",
    )
    .unwrap();
    let mut t = s.session(SID);
    t.answer(125_000, "a");
    assert_eq!(kind(&s.check(&t)), "block:warn");
    let diag = std::fs::read_to_string(s.state.join("diagnostics.log")).unwrap();
    assert!(diag.contains("ignoring unreadable state file"), "{diag}");
    t.answer(126_000, "b");
    assert_eq!(kind(&s.check(&t)), "silent:AlreadyFired");
}

#[test]
fn guard_settings_load_from_project_file_and_environment() {
    let s = Scratch::new();
    std::fs::write(
        s.root.join(".cairn.toml"),
        "[guard]\nhard_tokens = 150000\n\n[[guard.models]]\nmatch = \"haiku\"\nwarn = 90000\n",
    )
    .unwrap();
    let mut env =
        cairn::context::Env::from_pairs([("HOME", s.base.join("home").display().to_string())]);
    env.set("CAIRN_GUARD_WARN_TOKENS_1M", "200000");
    let loaded = cairn::config::load(&env, Some(&s.root)).unwrap();
    let g = &loaded.config.guard;
    assert_eq!(g.hard_tokens, 150_000);
    assert_eq!(g.warn_tokens_1m, 200_000);
    assert_eq!(g.models[0].warn, Some(90_000));
    let l = g.limits(Some(HAIKU), None, false).unwrap();
    assert_eq!((l.warn, l.hard), (90_000, 150_000));
    let shown = cairn::config::show(&loaded);
    assert!(shown.contains("[guard]\n"), "{shown}");

    std::fs::write(s.root.join(".cairn.toml"), "[guard]\nwarn = 1\n").unwrap();
    let e = cairn::config::load(&env, Some(&s.root)).unwrap_err();
    assert!(e.to_string().contains("guard.warn"), "{e}");
    std::fs::write(
        s.root.join(".cairn.toml"),
        "[[guard.models]]\nmatch = \"x\"\nwindw = 5\n",
    )
    .unwrap();
    assert!(cairn::config::load(&env, Some(&s.root)).is_err());
}
