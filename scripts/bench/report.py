#!/usr/bin/env python3
"""Reads the per-(size, tool) timing files written by hyperfine (or
time_cmd.py) and the run's facts, prints the comparison table and writes the
JSON report.

Usage: report.py --results DIR --meta META_JSON --out REPORT_JSON [--min-ratio X]
DIR holds <label>.<tool>.json (tool: seed, cairn) and <label>.facts.json
(transcript bytes, produced logs). Exit 1 when --min-ratio is given and a
ratio (of medians) is below it.
"""

import argparse
import json
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def summary(timing):
    r = timing["results"][0]
    times = r["times"]
    return {
        "mean_ms": r["mean"] * 1e3,
        "median_ms": r.get("median", statistics.median(times)) * 1e3,
        "stddev_ms": (r.get("stddev") or 0.0) * 1e3,
        # CPU time (user + system, mean), children included: what the tool
        # costs the machine, less sensitive than wall time to a busy host
        "cpu_ms": (r.get("user", 0.0) + r.get("system", 0.0)) * 1e3,
        "min_ms": r["min"] * 1e3,
        "max_ms": r["max"] * 1e3,
        "runs": len(times),
    }


def fmt_ms(v):
    return f"{v:,.1f} ms" if v >= 10 else f"{v:.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-ratio", type=float, default=None)
    args = ap.parse_args()

    meta = load(args.meta)
    labels = meta["sizes"]
    rows = []
    for label in labels:
        facts = load(os.path.join(args.results, f"{label}.facts.json"))
        seed = summary(load(os.path.join(args.results, f"{label}.seed.json")))
        cairn = summary(load(os.path.join(args.results, f"{label}.cairn.json")))
        rows.append({
            "transcript": label,
            "transcript_bytes": facts["transcript_bytes"],
            "seed": seed,
            "cairn": cairn,
            "ratio_mean": seed["mean_ms"] / cairn["mean_ms"],
            "ratio_median": seed["median_ms"] / cairn["median_ms"],
            "ratio_cpu": seed["cpu_ms"] / cairn["cpu_ms"] if cairn["cpu_ms"] > 0 else None,
            "logs": facts["logs"],
        })

    head = ("tool", "transcript", "mean", "median", "stddev", "cpu", "runs",
            "seed/cairn mean", "median", "cpu")
    table = [head]
    for r in rows:
        size = f"{r['transcript_bytes'] / 2**20:.1f} MiB"
        for tool in ("seed", "cairn"):
            s = r[tool]
            if tool == "cairn":
                cpu = f"{r['ratio_cpu']:.1f}x" if r["ratio_cpu"] else "n/a"
                ratios = (f"{r['ratio_mean']:.1f}x", f"{r['ratio_median']:.1f}x", cpu)
            else:
                ratios = ("", "", "")
            table.append((tool, size, fmt_ms(s["mean_ms"]), fmt_ms(s["median_ms"]),
                          fmt_ms(s["stddev_ms"]), fmt_ms(s["cpu_ms"]), str(s["runs"])) + ratios)
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {2, 3, 4, 5, 6, 7, 8, 9}
    print()
    for n, row in enumerate(table):
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print("(mean, median, stddev: wall time; cpu: user + system, children included)")
    print()
    print("logs written by the last timed run of each tool:")
    for r in rows:
        for tool in ("seed", "cairn"):
            log = r["logs"][tool]
            print(f"  {tool:5}  {r['transcript']:>5}  {log['path']}  ({log['bytes']} bytes, "
                  f"{log['bullets']} bullet(s))")

    report = dict(meta)
    report["results"] = rows
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"\nreport written to {args.out}")

    worst = min(r["ratio_median"] for r in rows)
    expected = meta.get("expected_ratio", 50)
    if worst < expected:
        print(f"note: the smallest ratio (medians) is {worst:.1f}x, under the expected {expected}x")
    if args.min_ratio is not None and worst < args.min_ratio:
        print(f"bench-vs-seed: ratio {worst:.1f}x is under --min-ratio {args.min_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
