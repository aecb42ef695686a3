#!/usr/bin/env python3
"""Timing loop for the bench scripts when hyperfine is not installed (or with
--python-timer). Runs PREPARE through bash (when given, untimed), then
COMMAND directly with stdin from --input (default /dev/null) and output
discarded, WARMUP untimed times then RUNS timed times, and writes
hyperfine's --export-json shape. A non-zero exit of COMMAND is an error.

Usage: time_cmd.py --name NAME [--input FILE] [--prepare SHELL_CMD]
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
    ap.add_argument("--input", default=os.devnull)
    ap.add_argument("--prepare")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--export-json", required=True)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()

    def once():
        if args.prepare:
            subprocess.run(["bash", "-c", args.prepare], check=True)
        with open(args.input, "rb") as stdin:
            t0 = time.perf_counter()
            proc = subprocess.Popen(args.command, stdin=stdin, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit("time_cmd: %s: exited with %d: %s" % (args.name, code, " ".join(args.command)))
        return elapsed, ru.ru_utime, ru.ru_stime

    for _ in range(args.warmup):
        once()
    times, users, systems = [], [], []
    for i in range(args.runs):
        t, u, s = once()
        times.append(t)
        users.append(u)
        systems.append(s)
        print("\r  %s: run %d/%d" % (args.name, i + 1, args.runs), end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    result = {"command": args.name, "mean": statistics.fmean(times), "user": statistics.fmean(users),
              "system": statistics.fmean(systems),
              "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
              "median": statistics.median(times), "min": min(times), "max": max(times),
              "times": times, "exit_codes": [0] * len(times)}
    with open(args.export_json, "w") as f:
        json.dump({"results": [result]}, f, indent=1)
    print("  %s: median %.1f ms, mean %.1f ms (%d runs)" % (args.name, result["median"] * 1e3,
                                                            result["mean"] * 1e3, args.runs), file=sys.stderr)


if __name__ == "__main__":
    main()
