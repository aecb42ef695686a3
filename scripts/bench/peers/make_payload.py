#!/usr/bin/env python3
"""Write the status line payload (stdin JSON of the 2.1.332 client, as in
../shared/lab/samples/statusline/example.json) for the corpus' large session
that make_corpus.py picked (truth.json "statusline").

Usage: make_payload.py --corpus DIR --out payload.json
"""

import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    corpus = os.path.abspath(args.corpus)
    sl = json.load(open(os.path.join(corpus, "truth.json")))["statusline"]
    u = sl["last_usage"]
    used = u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
    window = sl["context_window_size"]
    pct = round(100 * used / window)
    payload = {
        "session_id": sl["session_id"],
        "transcript_path": os.path.join(corpus, sl["transcript"]),
        "cwd": sl["cwd"],
        "prompt_id": "69a99d2e-e2d9-47c8-809b-95722dcf2bd4",
        "effort": {"level": "medium"},
        "model": {"id": sl["model"], "display_name": sl["display_name"]},
        "workspace": {"current_dir": sl["cwd"], "project_dir": sl["cwd"], "added_dirs": []},
        "version": "2.1.332",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": sl["cost_usd"], "total_duration_ms": 36_000_000,
                 "total_api_duration_ms": 9_000_000, "total_lines_added": 1200, "total_lines_removed": 300},
        "context_window": {"total_input_tokens": used, "total_output_tokens": u["output_tokens"],
                           "context_window_size": window, "current_usage": u,
                           "used_percentage": pct, "remaining_percentage": 100 - pct},
        "exceeds_200k_tokens": used + u["output_tokens"] > 200_000,
        "prompt_cache": {"warm": True, "caching_observed": True, "ttl": "5m", "expires_at": 1796012874,
                         "requests": 10, "misses": 0, "expected_rebuilds": 0, "hit_ratio": 0.95,
                         "cache_write_tokens": 10070, "miss_recache_tokens": 0, "last_miss_at": None,
                         "last_miss_cause": None, "miss_causes": {}, "recache_tokens_if_cold": used},
        "fast_mode": False,
        "thinking": {"enabled": True},
    }
    with open(args.out, "w") as f:
        json.dump(payload, f)


if __name__ == "__main__":
    main()
