#!/usr/bin/env python3
"""Compare daily token totals: the generator's ground truth, `ccusage daily
--json` and `cairn usage daily --json` (cold and warm runs).

Tokens (input, output, cache creation, cache read) must be equal per day;
every difference is printed. Dollars are compared per model over the whole
corpus and per day; differences are printed with the models involved (the
pricing rules that explain them are the reader's job: e.g. a model ccusage
has no price for, long-context tiering per request vs per token category,
fast mode).

Usage: compare.py --truth truth.json --ccusage ccusage.json
                  [--cairn cairn-cold.json] [--cairn-warm cairn-warm.json]
                  --out compare.json
Exit status: 0 when every token total present agrees, 1 otherwise.
"""

import argparse
import json
import re
import sys

TOKEN_KEYS = ("input", "output", "cache_write", "cache_read")
TOKEN_LABEL = {"input": "input", "output": "output", "cache_write": "cache creation", "cache_read": "cache read"}

# --- The one place that knows each tool's JSON shape. -------------------------
# Each value is a field name or a tuple of alternatives, tried in order; a
# dotted name walks into nested objects. When `cairn usage daily --json`
# changes shape, edit SHAPES["cairn"] (and nothing else).
SHAPES = {
    "ccusage": {
        # `ccusage daily` (all agents) says "period", `ccusage claude daily` says "date"
        "rows": ("daily",),
        "date": ("date", "period"),
        "input": ("inputTokens",),
        "output": ("outputTokens",),
        "cache_write": ("cacheCreationTokens",),
        "cache_read": ("cacheReadTokens",),
        "cost": ("totalCost",),
        "breakdowns": ("modelBreakdowns",),
        "model": ("modelName",),
        "model_cost": ("cost",),
        "unpriced": ("missingPricing",),
    },
    "cairn": {
        "rows": ("daily", "days"),
        "date": ("date", "day", "period"),
        "input": ("inputTokens", "tokens.input"),
        "output": ("outputTokens", "tokens.output"),
        "cache_write": ("cacheCreationTokens", "tokens.cacheCreation", "tokens.cache_creation"),
        "cache_read": ("cacheReadTokens", "tokens.cacheRead", "tokens.cache_read"),
        "cost": ("totalCost", "costUSD", "cost"),
        "breakdowns": ("modelBreakdowns", "models"),
        "model": ("modelName", "model"),
        "model_cost": ("cost", "costUSD", "totalCost"),
        "unpriced": ("missingPricing", "unpriced"),
    },
}


def get(obj, names, default=None):
    for name in names:
        cur = obj
        for part in name.split("."):
            if isinstance(cur, dict) and part in cur:
                cur = cur[part]
            else:
                cur = None
                break
        if cur is not None:
            return cur
    return default


def model_key(name):
    """claude-sonnet-4-5-20250929-fast -> claude-sonnet-4-5 (for matching only)."""
    n = re.sub(r"-fast$", "", name or "?")
    return re.sub(r"-\d{8}$", "", n)


def normalize(doc, tool):
    """{date: {"tokens": {...}, "cost": x, "models": {key: {"names", "tokens", "cost", "unpriced"}}}}"""
    shape = SHAPES[tool]
    rows = get(doc, shape["rows"])
    if not isinstance(rows, list):
        raise SystemExit("compare: %s JSON has none of the row lists %s (top-level keys: %s); "
                         "update SHAPES[%r] in %s" % (tool, shape["rows"], sorted(doc)[:12], tool, __file__))
    out = {}
    for r in rows:
        date = get(r, shape["date"])
        if date is None:
            raise SystemExit("compare: a %s row has no date field %s: %s; update SHAPES[%r]"
                             % (tool, shape["date"], sorted(r), tool))
        tokens = {k: int(get(r, shape[k], 0) or 0) for k in TOKEN_KEYS}
        models = {}
        for b in get(r, shape["breakdowns"], []) or []:
            name = get(b, shape["model"], "?")
            m = models.setdefault(model_key(name), {"names": set(), "tokens": dict.fromkeys(TOKEN_KEYS, 0),
                                                    "cost": 0.0, "unpriced": False})
            m["names"].add(name)
            for k in TOKEN_KEYS:
                m["tokens"][k] += int(get(b, shape[k], 0) or 0)
            m["cost"] += float(get(b, shape["model_cost"], 0) or 0)
            m["unpriced"] |= bool(get(b, shape["unpriced"], False))
        out[str(date)[:10]] = {"tokens": tokens, "cost": float(get(r, shape["cost"], 0) or 0), "models": models}
    return out


PRICING_FEATURES = ("requestsOver200k", "fastRequests", "webSearchRequests", "cacheCreation1hTokens")


def truth_features(truth):
    """Per model over the corpus: the counts pricing rules act on."""
    out = {}
    for d in truth["days"].values():
        for m, v in d["models"].items():
            o = out.setdefault(model_key(m), dict.fromkeys(PRICING_FEATURES + ("responses",), 0))
            for k in o:
                o[k] += v.get(k, 0)
    return out


def truth_days(truth):
    out = {}
    for date, d in truth["days"].items():
        t = d["totals"]
        out[date] = {"tokens": {"input": t["inputTokens"], "output": t["outputTokens"],
                                "cache_write": t["cacheCreationTokens"], "cache_read": t["cacheReadTokens"]},
                     "models": {model_key(m): {"names": {m}, "tokens": {
                         "input": v["inputTokens"], "output": v["outputTokens"],
                         "cache_write": v["cacheCreationTokens"], "cache_read": v["cacheReadTokens"]}}
                         for m, v in d["models"].items()}}
    return out


def token_diffs(a, b, name_a, name_b):
    """Per-day token differences between two normalized reports."""
    diffs = []
    for date in sorted(set(a) | set(b)):
        ta = a.get(date, {}).get("tokens")
        tb = b.get(date, {}).get("tokens")
        if ta is None or tb is None:
            diffs.append({"date": date, "missing_in": name_a if ta is None else name_b,
                          "tokens": ta or tb})
            continue
        for k in TOKEN_KEYS:
            if ta[k] != tb[k]:
                diffs.append({"date": date, "field": TOKEN_LABEL[k], name_a: ta[k], name_b: tb[k],
                              "delta": tb[k] - ta[k]})
    return diffs


def totals(days):
    t = dict.fromkeys(TOKEN_KEYS, 0)
    for d in days.values():
        for k in TOKEN_KEYS:
            t[k] += d["tokens"][k]
    return t


def model_costs(days):
    out = {}
    for d in days.values():
        for key, m in d["models"].items():
            o = out.setdefault(key, {"names": set(), "cost": 0.0, "unpriced": False,
                                     "tokens": dict.fromkeys(TOKEN_KEYS, 0)})
            o["names"] |= m["names"]
            o["cost"] += m.get("cost", 0.0)
            o["unpriced"] |= m.get("unpriced", False)
            for k in TOKEN_KEYS:
                o["tokens"][k] += m["tokens"][k]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--ccusage", required=True)
    ap.add_argument("--cairn")
    ap.add_argument("--cairn-warm")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-print", type=int, default=20)
    args = ap.parse_args()

    truth = json.load(open(args.truth))
    reports = {"truth": truth_days(truth), "ccusage": normalize(json.load(open(args.ccusage)), "ccusage")}
    if args.cairn:
        reports["cairn"] = normalize(json.load(open(args.cairn)), "cairn")
    if args.cairn_warm:
        reports["cairn_warm"] = normalize(json.load(open(args.cairn_warm)), "cairn")

    result = {"days": len(reports["truth"]), "totals": {k: totals(v) for k, v in reports.items()},
              "per_line_totals": truth.get("per_line_totals"), "checks": {}, "dollars": {}}
    ok = True
    pairs = [("truth", "ccusage")]
    if "cairn" in reports:
        pairs += [("truth", "cairn"), ("ccusage", "cairn")]
    if "cairn_warm" in reports:
        pairs += [("cairn", "cairn_warm")]
    print("tokens per day (input, output, cache creation, cache read), %d days:" % len(reports["truth"]))
    for a, b in pairs:
        d = token_diffs(reports[a], reports[b], a, b)
        result["checks"]["%s_vs_%s" % (a, b)] = {"equal": not d, "differences": d}
        ok &= not d
        print("  %-22s %s" % ("%s = %s:" % (b, a), "yes" if not d else "NO, %d difference(s)" % len(d)))
        for x in d[:args.max_print]:
            if "missing_in" in x:
                print("      %s: day missing in %s (%s)" % (x["date"], x["missing_in"], x["tokens"]))
            else:
                print("      %s %-14s %s=%d %s=%d (delta %+d)" % (x["date"], x["field"], a, x[a], b, x[b], x["delta"]))
        if len(d) > args.max_print:
            print("      ... %d more in %s" % (len(d) - args.max_print, args.out))
    t = result["totals"]["truth"]
    naive = truth.get("per_line_totals") or {}
    if naive:
        s = sum(t.values())
        n = naive["inputTokens"] + naive["outputTokens"] + naive["cacheCreationTokens"] + naive["cacheReadTokens"]
        print("  summing every line instead of every response would give %.2fx the tokens (%d vs %d)" % (n / s, n, s))
        result["per_line_overcount"] = round(n / s, 3)

    if "cairn" in reports:
        mc = model_costs(reports["ccusage"])
        mk = model_costs(reports["cairn"])
        rows = []
        for key in sorted(set(mc) | set(mk)):
            c, k = mc.get(key), mk.get(key)
            row = {"model": key,
                   "names": {"ccusage": sorted(c["names"]) if c else [], "cairn": sorted(k["names"]) if k else []},
                   "ccusage": round(c["cost"], 4) if c else None, "cairn": round(k["cost"], 4) if k else None,
                   "ccusage_unpriced": bool(c and c["unpriced"])}
            row["delta"] = round((row["cairn"] or 0) - (row["ccusage"] or 0), 4)
            rows.append(row)
        cc_total = sum(d["cost"] for d in reports["ccusage"].values())
        ca_total = sum(d["cost"] for d in reports["cairn"].values())
        day_diffs = []
        for date in sorted(reports["ccusage"]):
            a = reports["ccusage"][date]
            b = reports["cairn"].get(date)
            if b and abs(a["cost"] - b["cost"]) >= 0.01:
                involved = sorted(m for m in set(a["models"]) | set(b["models"])
                                  if abs(a["models"].get(m, {}).get("cost", 0) - b["models"].get(m, {}).get("cost", 0)) >= 0.005)
                day_diffs.append({"date": date, "ccusage": round(a["cost"], 4), "cairn": round(b["cost"], 4),
                                  "delta": round(b["cost"] - a["cost"], 4), "models": involved})
        result["dollars"] = {"ccusage_total": round(cc_total, 4), "cairn_total": round(ca_total, 4),
                             "delta": round(ca_total - cc_total, 4), "by_model": rows, "days_differing": day_diffs}
        print("dollars: ccusage $%.2f, cairn $%.2f (cairn - ccusage = %+.2f); by model over the corpus:"
              % (cc_total, ca_total, ca_total - cc_total))
        features = truth_features(truth)
        print("  %-22s %12s %12s %12s  %s" % ("model", "ccusage", "cairn", "delta", "note"))
        for r in rows:
            f = features.get(r["model"])
            r["truth"] = f
            note = []
            if f:
                note.append("%d responses: %d over 200K input, %d fast, %d web searches, %.1fM 1h-cache writes" % (
                    f["responses"], f["requestsOver200k"], f["fastRequests"], f["webSearchRequests"],
                    f["cacheCreation1hTokens"] / 1e6))
            if r["ccusage_unpriced"]:
                note.append("ccusage: no price for this model")
            names = set(r["names"]["ccusage"]) | set(r["names"]["cairn"])
            if any(n.endswith("-fast") for n in names):
                note.append("includes fast-mode requests")
            fmt = lambda v: "-" if v is None else "$%.2f" % v
            flag = "" if abs(r["delta"]) < 0.01 else " *"
            print("  %-22s %12s %12s %12s  %s" % (r["model"], fmt(r["ccusage"]), fmt(r["cairn"]),
                                                 "%+.2f%s" % (r["delta"], flag), "; ".join(note)))
        print("  %d of %d days differ by a cent or more" % (len(day_diffs), len(reports["ccusage"])))
        for x in day_diffs[:args.max_print]:
            print("      %s ccusage $%.2f cairn $%.2f (%+.2f) models: %s"
                  % (x["date"], x["ccusage"], x["cairn"], x["delta"], ", ".join(x["models"])))
        if len(day_diffs) > args.max_print:
            print("      ... %d more in %s" % (len(day_diffs) - args.max_print, args.out))

    result["tokens_equal"] = ok
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, default=lambda o: sorted(o) if isinstance(o, set) else str(o))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
