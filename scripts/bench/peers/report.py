#!/usr/bin/env python3
"""Table and JSON for bench-vs-peers.sh.

Reads RESULTS/timing/<key>.json (hyperfine --export-json shape),
RESULTS/mem/<key>.txt ("max_rss_kb wall_s user_s sys_s" per run, from
/usr/bin/time), RESULTS/compare.json (compare.py) and META (meta.json), and
writes OUT (target/bench-vs-peers.json) and a table on stdout.

Keys: usage.ccusage, usage.cairn_cold, usage.cairn_warm, sl.ccstatusline_first,
sl.ccstatusline_warm, sl.cairn_first, sl.cairn_warm. A missing key is a part
that could not run (reported as such).
"""

import argparse
import json
import os

TARGETS = {"usage_cold": 2.0, "usage_warm": 20.0, "cairn_rss_mb": 150.0}
LABELS = {
    "usage.ccusage": "ccusage daily --json",
    "usage.cairn_cold": "cairn usage daily --json, cold",
    "usage.cairn_warm": "cairn usage daily --json, warm",
    "sl.ccstatusline_first": "ccstatusline, first render",
    "sl.ccstatusline_warm": "ccstatusline, warm render",
    "sl.cairn_first": "cairn statusline, first render",
    "sl.cairn_warm": "cairn statusline, warm render",
}


def load_timing(results, key):
    p = os.path.join(results, "timing", key + ".json")
    if not os.path.exists(p):
        return None
    r = json.load(open(p))["results"][0]
    times = sorted(r["times"])
    n = len(times)
    return {"runs": n, "median_s": r["median"], "mean_s": r["mean"], "stddev_s": r["stddev"],
            "min_s": r["min"], "max_s": r["max"], "p90_s": times[min(n - 1, int(0.9 * n))],
            "user_s": r["user"], "system_s": r["system"], "cpu_s": r["user"] + r["system"]}


def load_mem(results, key):
    p = os.path.join(results, "mem", key + ".txt")
    if not os.path.exists(p):
        return None
    runs = []
    for line in open(p):
        f = line.split()
        if len(f) >= 4:
            runs.append({"max_rss_kb": int(f[0]), "wall_s": float(f[1]), "user_s": float(f[2]), "sys_s": float(f[3])})
    if not runs:
        return None
    return {"max_rss_mb": round(max(r["max_rss_kb"] for r in runs) / 1024, 1), "runs": runs}


def ratio(a, b, field="median_s"):
    if not a or not b or not b[field]:
        return None
    return round(a[field] / b[field], 2)


def ms(x):
    if x is None:
        return "-"
    return "%.1f ms" % (x * 1e3) if x < 10 else "%.2f s" % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    meta = json.load(open(args.meta))
    timing = {k: load_timing(args.results, k) for k in LABELS}
    mem = {k: load_mem(args.results, k) for k in LABELS}
    cp = os.path.join(args.results, "compare.json")
    compare = json.load(open(cp)) if os.path.exists(cp) else None

    t = timing
    ratios = {
        "usage_cold": ratio(t["usage.ccusage"], t["usage.cairn_cold"]),
        "usage_warm": ratio(t["usage.ccusage"], t["usage.cairn_warm"]),
        "usage_cold_cpu": ratio(t["usage.ccusage"], t["usage.cairn_cold"], "cpu_s"),
        "usage_warm_cpu": ratio(t["usage.ccusage"], t["usage.cairn_warm"], "cpu_s"),
        "statusline_first": ratio(t["sl.ccstatusline_first"], t["sl.cairn_first"]),
        "statusline_warm": ratio(t["sl.ccstatusline_warm"], t["sl.cairn_warm"]),
    }
    cairn_rss = [m["max_rss_mb"] for k, m in mem.items() if m and k.startswith("usage.cairn")]
    verdict = {
        "usage_cold_ratio_ge_2": None if ratios["usage_cold"] is None else ratios["usage_cold"] >= TARGETS["usage_cold"],
        "usage_warm_ratio_ge_20": None if ratios["usage_warm"] is None else ratios["usage_warm"] >= TARGETS["usage_warm"],
        "cairn_peak_rss_under_150mb": None if not cairn_rss else max(cairn_rss) < TARGETS["cairn_rss_mb"],
        "tokens_equal": None if compare is None or "cairn" not in compare["totals"] else compare["tokens_equal"],
        "ccusage_tokens_equal_truth": None if compare is None else compare["checks"]["truth_vs_ccusage"]["equal"],
        "statusline_warm_p50_under_5ms": None if not t["sl.cairn_warm"] else t["sl.cairn_warm"]["median_s"] < 0.005,
    }
    out = {"meta": meta, "timing": timing, "memory": mem, "ratios": ratios, "targets": TARGETS,
           "verdict": verdict, "correctness": compare}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")

    c = meta["corpus"]
    print("corpus: %.2f GiB in %d JSONL files (%d sessions, %d subagent files, %d projects), %d lines, "
          "%d responses on %d assistant lines, %d days%s" % (
              c["bytes"] / (1 << 30), c["jsonl_files"], c["main_sessions"], c["subagent_files"], c["projects"],
              c["lines"], c["responses"], c["assistant_lines"], c.get("days", 0),
              ", reused" if meta.get("corpus_reused") else ""))
    print("status line transcript: %.1f MiB main file (+ its subagents)" % (meta["statusline"]["transcript_bytes"] / 1048576))
    print()
    print("%-34s %10s %10s %10s %8s %6s %10s" % ("", "median", "mean", "sd", "cpu", "runs", "max RSS"))
    for k, label in LABELS.items():
        x, m = t[k], mem[k]
        if x is None:
            print("%-34s %10s" % (label, "not run"))
            continue
        print("%-34s %10s %10s %10s %8s %6d %10s" % (label, ms(x["median_s"]), ms(x["mean_s"]), ms(x["stddev_s"]),
                                                     ms(x["cpu_s"]), x["runs"],
                                                     "%.1f MB" % m["max_rss_mb"] if m else "-"))
    print()

    def show(name, key, target=None):
        r = ratios[key]
        s = "-" if r is None else "%.1fx" % r
        if target is not None and r is not None:
            s += "  (target >= %gx: %s)" % (target, "met" if r >= target else "NOT met")
        print("  %-44s %s" % (name, s))

    print("ratios (median wall time, peer / cairn):")
    show("usage daily, cold (cairn without state)", "usage_cold", TARGETS["usage_cold"])
    show("usage daily, warm (cairn with its state)", "usage_warm", TARGETS["usage_warm"])
    show("usage daily, cold, CPU time", "usage_cold_cpu")
    show("usage daily, warm, CPU time", "usage_warm_cpu")
    show("status line, first render", "statusline_first")
    show("status line, warm render", "statusline_warm")
    if cairn_rss:
        print("  %-44s %.1f MB  (limit 150 MB: %s)" % ("cairn usage peak RSS", max(cairn_rss),
                                                        "met" if max(cairn_rss) < 150 else "NOT met"))
    if t["sl.cairn_warm"]:
        print("  %-44s %s  (target < 5 ms: %s)" % ("cairn statusline warm p50", ms(t["sl.cairn_warm"]["median_s"]),
                                                  "met" if verdict["statusline_warm_p50_under_5ms"] else "NOT met"))
    if compare is not None:
        print("correctness: ccusage tokens = truth: %s; cairn tokens = truth and ccusage: %s" % (
            "yes" if verdict["ccusage_tokens_equal_truth"] else "NO",
            "not run" if verdict["tokens_equal"] is None else ("yes" if verdict["tokens_equal"] else "NO")))
        if compare.get("dollars"):
            d = compare["dollars"]
            print("dollars: ccusage $%.2f, cairn $%.2f (%+.2f)" % (d["ccusage_total"], d["cairn_total"], d["delta"]))
    for n in meta.get("notes", []):
        print("note: " + n)
    print("results: " + args.out)


if __name__ == "__main__":
    main()
