#!/usr/bin/env python3
"""Check `dupstream estimate` against the committed runs: rerun each canonical run
(results/canonical.toml) at its own scale and thread count into a temporary directory, and
record the estimate of today's calibration beside the wall and CPU time measured.

    python3 scripts/timing-check.py                 # runs estimated at most --max-secs
    python3 scripts/timing-check.py --only deng-fig4a,qht-table1
    python3 scripts/timing-check.py --estimate-only # refresh the estimates, rerun nothing

Writes results/timing-check.csv (atomically: a temporary file renamed over it), one row per
canonical run; a run not rerun this time keeps its earlier measurement, or none. The estimate
columns are always today's binary's (`dupstream estimate`), so after `just calibrate` an
`--estimate-only` pass prices the same measurements with the new calibration.
`dupstream docs --write` renders the file in docs/timing.md. `just timing-check` runs this.

Both are measured around the `dupstream run` process, from its start to its exit: the wall
time is compared with the estimate at the run's threads, the CPU time (every thread, user and
system) with the one-thread estimate less the fixed parts (`fixed_secs`: wall time spent
starting and writing files), which does not grow with other work on the machine as the wall
time does. The experiment file rerun is the catalogue's; `dupstream docs --check` fails when it
differs from what its canonical run ran.
"""

import argparse
import csv
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

FIELDS = [
    "experiment",
    "run",
    "experiment_file",
    "scale",
    "threads",
    "estimated_secs",
    "estimated_cpu_secs",
    "estimate_revision",
    "measured_revision",
    "measured_unix",
    "load_at_start",
    "wall_secs",
    "cpu_secs",
    "note",
]


def git_revision():
    out = subprocess.run(
        ["git", "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True
    )
    rev = out.stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "crates"]).returncode
    return rev + ("-dirty" if dirty else "")


def manifest(run_dir):
    for name, opener in (("manifest.json", open), ("manifest.json.gz", gzip.open)):
        path = os.path.join(run_dir, name)
        if os.path.exists(path):
            with opener(path, "rt") as f:
                return json.load(f)
    sys.exit(f"error: {run_dir}: no manifest.json")


def estimate(binary, file, scale, threads):
    """(estimated seconds, of which fixed parts) at `threads`, or (None, None, why skipped)."""
    out = subprocess.run(
        [binary, "estimate", file, "--scale", str(scale), "--threads", str(threads), "--json"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        sys.exit(f"error: dupstream estimate {file}: {out.stderr.strip()}")
    e = json.loads(out.stdout)
    if e["skipped"] or not e["files"]:
        why = e["skipped"][0]["reason"] if e["skipped"] else "nothing estimated"
        return None, None, f"not rerun: its data is not on this machine ({why})"
    return e["files"][0]["secs"], e["files"][0]["fixed_secs"], None


def measure(binary, file, scale, threads):
    """(load at start, wall seconds, CPU seconds) of one `dupstream run`, start to exit."""
    with open("/proc/loadavg") as f:
        load = float(f.read().split()[0])
    with tempfile.TemporaryDirectory(prefix="dupstream-timing-check-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        # Its own process group, so that a stopped check stops it too (`finally` below).
        proc = subprocess.Popen(
            [binary, "run", file, "--scale", str(scale), "--threads", str(threads),
             "--out", os.path.join(tmp, "run"), "--quiet", "--json"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )
        try:
            _, err = proc.communicate()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"error: dupstream run {file}: {err.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return load, wall, cpu


def save(path, rows):
    """Writes `rows` (by experiment) to `path` through a temporary file renamed over it."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".timing-check-", suffix=".csv", dir=directory)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
            w.writeheader()
            w.writerows(rows[e] for e in sorted(rows))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def stop(signum, _frame):
    """SIGTERM as SIGINT: unwinds, so that the running `dupstream run` is stopped and the
    temporary directories removed; what was measured is already saved."""
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, stop)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default="target/release/dupstream")
    ap.add_argument("--max-secs", type=float, default=60.0,
                    help="rerun only runs estimated at most this long (default 60)")
    ap.add_argument("--only", default="", help="comma-separated experiments to rerun")
    ap.add_argument("--estimate-only", action="store_true", help="rerun nothing")
    ap.add_argument("--out", default="results/timing-check.csv")
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"error: {args.binary} not found: build it with `cargo build --release`")
    with open("results/canonical.toml", "rb") as f:
        runs = tomllib.load(f)["runs"]
    only = {e for e in args.only.split(",") if e}
    unknown = only - set(runs)
    if unknown:
        sys.exit(f"error: --only: not canonical runs: {', '.join(sorted(unknown))}")
    old = {}
    if os.path.exists(args.out):
        with open(args.out, newline="") as f:
            old = {r["experiment"]: r for r in csv.DictReader(f)}
    revision = git_revision()
    rows = {}
    chosen = []
    for experiment, run in sorted(runs.items()):
        m = manifest(os.path.join("results", experiment, run))
        file, scale, threads = m["experiment_file"], m["scale"], m["threads"]
        if not os.path.exists(file):
            # A run made from a file outside the catalogue (the QHT authors' code's runs).
            rows[experiment] = {k: "" for k in FIELDS} | dict(
                experiment=experiment, run=run, experiment_file=file, scale=scale,
                threads=threads, note="not rerun: its experiment file is not in the catalogue")
            continue
        est, _, skipped = estimate(args.binary, file, scale, threads)
        row = {k: "" for k in FIELDS}
        row.update(experiment=experiment, run=run, experiment_file=file, scale=scale,
                   threads=threads)
        prev = old.get(experiment)
        if prev and prev.get("run") == run:
            row.update({k: prev[k] for k in FIELDS if k in prev})
        if skipped:
            # Its data is absent here: an earlier measurement and its estimate are kept.
            if not row["wall_secs"]:
                row["note"] = skipped
            rows[experiment] = row
            continue
        est1, fixed1, _ = estimate(args.binary, file, scale, 1)
        row.update(
            estimated_secs=f"{est:.3f}", estimated_cpu_secs=f"{est1 - fixed1:.3f}",
            estimate_revision=revision,
        )
        rows[experiment] = row
        if not args.estimate_only and (experiment in only if only else est <= args.max_secs):
            chosen.append(experiment)
            if not row["wall_secs"]:
                row["note"] = "not rerun: the check stopped before it"
        elif args.estimate_only:
            pass
        elif only and not row["wall_secs"] and est <= args.max_secs:
            row["note"] = "not rerun: not among --only"
        elif not row["wall_secs"]:
            row["note"] = f"not rerun: estimated over the check's limit of {args.max_secs:g} s"
    save(args.out, rows)
    for experiment in chosen:
        row = rows[experiment]
        file, scale, threads = row["experiment_file"], row["scale"], row["threads"]
        est, est_cpu = float(row["estimated_secs"]), float(row["estimated_cpu_secs"])
        print(f"{experiment}: rerunning at scale {scale}, {threads} threads "
              f"(estimated {est:.1f} s)", file=sys.stderr, flush=True)
        load, wall, cpu = measure(args.binary, file, scale, threads)
        row.update(
            measured_revision=revision, measured_unix=int(time.time()),
            load_at_start=f"{load:.2f}", wall_secs=f"{wall:.3f}",
            cpu_secs="" if cpu is None else f"{cpu:.3f}", note="",
        )
        print(f"  wall {wall:.1f} s (x{wall / max(est, 1e-9):.2f} of the estimate)"
              + ("" if cpu is None else f", CPU {cpu:.1f} s (x{cpu / max(est_cpu, 1e-9):.2f})"),
              file=sys.stderr, flush=True)
        # Saved after every run: a stopped check keeps what it measured.
        save(args.out, rows)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
