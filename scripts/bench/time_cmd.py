#!/usr/bin/env python3
"""Fallback timer when hyperfine is not installed: runs PREPARE (through
bash) then COMMAND (directly, stdin from a file, output discarded) RUNS times
after WARMUP untimed runs, and writes hyperfine's --export-json shape so the
report reads both the same way. A non-zero exit of COMMAND is an error, as in
hyperfine.

Usage: time_cmd.py --name NAME --input FILE --prepare SHELL_CMD
                   --warmup N --runs N --export-json OUT -- COMMAND ARGS...
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--prepare", required=True)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--export-json", required=True)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()

    def once():
        subprocess.run(["bash", "-c", args.prepare], check=True)
        with open(args.input, "rb") as stdin:
            t0 = time.perf_counter()
            proc = subprocess.Popen(args.command, stdin=stdin, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            sys.exit(f"time_cmd: {args.name}: command exited with {proc.returncode}: "
                     f"{' '.join(args.command)}")
        # wait4's usage covers the child and the descendants it waited for
        # (a shell script's python3 calls included), like hyperfine's
        return elapsed, ru.ru_utime, ru.ru_stime

    for _ in range(args.warmup):
        once()
    times, users, systems = [], [], []
    for i in range(args.runs):
        t, u, s = once()
        times.append(t)
        users.append(u)
        systems.append(s)
        print(f"\r  {args.name}: run {i + 1}/{args.runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    result = {
        "command": args.name,
        "mean": statistics.fmean(times),
        "user": statistics.fmean(users),
        "system": statistics.fmean(systems),
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "times": times,
        "exit_codes": [0] * len(times),
    }
    with open(args.export_json, "w") as f:
        json.dump({"results": [result]}, f, indent=1)
    print(f"  {args.name}: mean {result['mean'] * 1e3:.1f} ms, median {result['median'] * 1e3:.1f} ms "
          f"({args.runs} runs)", file=sys.stderr)


if __name__ == "__main__":
    main()
