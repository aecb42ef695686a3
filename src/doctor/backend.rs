//! The memory backend: which one is active, and whether it can answer.
//!
//! An API backend is probed with one `GET …/models` (free, no tokens) and a
//! two-second budget, so the doctor says "unreachable" or "key rejected"
//! before the worker has to find out turn by turn. `--offline` skips it.

use super::{Finding, Scene};
use crate::config::BackendKind;
use std::time::Duration;

const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

pub(super) fn check(scene: &Scene) -> Vec<Finding> {
    let cfg = &scene.config.memory;
    let ctx = scene.ctx;
    let kind = crate::extract::resolve_kind(cfg, ctx);
    let auto = if cfg.backend == BackendKind::Auto {
        " (memory.backend = auto)"
    } else {
        ""
    };
    let model = crate::extract::model_for(cfg, kind);
    let mut out = Vec::new();
    match kind {
        BackendKind::Offline | BackendKind::Auto => out.push(Finding::ok(
            "backend",
            format!("offline{auto}: nothing leaves this machine, nothing is billed"),
        )),
        BackendKind::ClaudeCli => match crate::extract::find_program(&cfg.claude_command, &ctx.env) {
            Some(path) => out.push(Finding::ok(
                "backend",
                format!("claude-cli{auto} ({}, model {model})", path.display()),
            )),
            None => out.push(Finding::broken(
                "backend",
                format!(
                    "memory.backend is claude-cli but `{}` is not on PATH: every turn falls back to retries and dead letters",
                    cfg.claude_command
                ),
                "install Claude Code's CLI, set memory.claude_command to its path, or set memory.backend = \"offline\"",
            )),
        },
        BackendKind::Anthropic => {
            let key_var = &cfg.anthropic_api_key_env;
            let key = ctx.env.get(key_var).map(str::trim).filter(|k| !k.is_empty());
            match key {
                None => out.push(Finding::broken(
                    "backend",
                    format!("memory.backend is anthropic but ${key_var} is empty"),
                    format!("export {key_var}, or set memory.backend = \"offline\""),
                )),
                Some(key) => {
                    let url = crate::extract::join_url(&cfg.anthropic_base_url, "v1/models");
                    let headers = [
                        ("x-api-key", key.to_string()),
                        (
                            "anthropic-version",
                            crate::extract::ANTHROPIC_API_VERSION.to_string(),
                        ),
                    ];
                    out.push(reach(scene, "anthropic", &model, &url, &headers, key));
                }
            }
        }
        BackendKind::Openai => {
            let key_var = &cfg.openai_api_key_env;
            let key = ctx.env.get(key_var).map(str::trim).filter(|k| !k.is_empty());
            let url = crate::extract::join_url(&cfg.openai_base_url, "models");
            let headers: Vec<(&str, String)> = key
                .iter()
                .map(|k| ("authorization", format!("Bearer {k}")))
                .collect();
            out.push(reach(scene, "openai", &model, &url, &headers, key.unwrap_or("")));
        }
    }
    if !matches!(kind, BackendKind::Offline | BackendKind::Auto) {
        // `+ 0.0`: an empty sum is -0.0, which prints as "-0.0000".
        let spent = crate::usage::ledger::memory_spend_on(&ctx.state_dir, &ctx.today()) + 0.0;
        let budget = cfg.daily_budget_usd;
        if spent >= budget {
            out.push(Finding::warn(
                "backend",
                format!("today's memory spend ${spent:.4} reached memory.daily_budget_usd (${budget:.2}): the offline extractor runs until tomorrow"),
                "raise memory.daily_budget_usd if that is not what you want",
            ));
        } else {
            let calls: Vec<f64> = crate::usage::ledger::entries(&ctx.state_dir)
                .iter()
                .filter(|e| e.kind == "memory")
                .filter_map(|e| e.usd)
                .collect();
            let per_turn = if calls.is_empty() {
                String::new()
            } else {
                format!(
                    "; ${:.4} per turn on average over {} calls",
                    calls.iter().sum::<f64>() / calls.len() as f64,
                    calls.len()
                )
            };
            out.push(Finding::info(
                "backend",
                format!("memory spend today ${spent:.4} of ${budget:.2} (memory.daily_budget_usd){per_turn}"),
            ));
        }
    }
    out
}

fn reach(
    scene: &Scene,
    name: &str,
    model: &str,
    url: &str,
    headers: &[(&str, String)],
    secret: &str,
) -> Finding {
    let what = format!("{name} ({model}, {url})");
    if scene.offline {
        return Finding::info("backend", format!("{what}: not probed (--offline)"));
    }
    let scrub = |s: String| {
        if secret.len() >= 4 {
            s.replace(secret, "[REDACTED]")
        } else {
            s
        }
    };
    match probe(url, headers, &scene.ctx.env) {
        Ok(status) if (200..300).contains(&status) => {
            Finding::ok("backend", format!("{what} answers"))
        }
        Ok(status @ (401 | 403)) => Finding::broken(
            "backend",
            format!("{what} rejects the key (HTTP {status})"),
            "check the API key in the environment variable memory.*_api_key_env names",
        ),
        Ok(status) => Finding::warn(
            "backend",
            format!("{what} is reachable but answered HTTP {status} to GET models"),
            "check memory.*_base_url; the worker retries failed turns",
        ),
        Err(e) => Finding::broken(
            "backend",
            format!("{what} cannot be reached: {}", scrub(e)),
            "check the network or memory.*_base_url, or run with --offline to skip this probe",
        ),
    }
}

/// One GET with the doctor's time budget; the HTTP status, or why there was
/// none.
fn probe(url: &str, headers: &[(&str, String)], env: &crate::context::Env) -> Result<u16, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(PROBE_TIMEOUT))
        .proxy(crate::extract::proxy_for(url, env))
        .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut req = agent.get(url);
    for (name, value) in headers {
        req = req.header(*name, value.as_str());
    }
    match req.call() {
        Ok(resp) => Ok(resp.status().as_u16()),
        Err(ureq::Error::Timeout(_)) => {
            Err(format!("no answer within {}s", PROBE_TIMEOUT.as_secs()))
        }
        Err(e) => Err(e.to_string()),
    }
}
