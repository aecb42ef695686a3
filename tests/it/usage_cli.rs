//! `cairn usage` as a user runs it: inside a project, whose `.cairn.toml`
//! price rows apply to the report.

use crate::common;

use common::Project;
use serde_json::Value;
use std::path::Path;

fn fixture_config_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/usage/golden")
        .display()
        .to_string()
}

fn report(p: &Project, kind: &str) -> Value {
    let out = p.cairn().args(["usage", kind, "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_projects_price_rows_apply_to_the_report() {
    let mut p = Project::new();
    p.env("CLAUDE_CONFIG_DIR", &fixture_config_dir());
    let before = report(&p, "daily")["totals"]["totalCost"].as_f64().unwrap();
    assert!(before > 0.0);
    // Every Claude model free in this project: only the report run here sees it.
    std::fs::write(
        p.root.join(".cairn.toml"),
        "[[usage.prices]]\nmodel = \"claude-\"\ninput = 0\noutput = 0\ncache_write_5m = 0\ncache_write_1h = 0\ncache_read = 0\n",
    )
    .unwrap();
    let after = report(&p, "daily")["totals"]["totalCost"].as_f64().unwrap();
    assert_eq!(after, 0.0, "was {before}");
    let projects = report(&p, "project");
    assert_eq!(projects["totals"]["totalCost"].as_f64().unwrap(), 0.0);
    assert!(projects["projects"][0]["sessions"].as_u64().unwrap() >= 1);
}

#[test]
fn an_unknown_report_kind_is_bad_usage() {
    let p = Project::new();
    common::snapshot_output("usage_cli_unknown_kind", &p.run(&["usage", "weekly"]));
}
