"""Check this folder against the flux-usernetes mirror.  Run: /work/main/.venv/bin/python verify.py

1. every time_s is printed verbatim in its raw file at the row's commit (as "Loop time of
   <time_s> on <processes> procs"), and every part of the note is a line of that file;
2. every CSV loads with perfmodel.empirical.series.load_series;
3. every OSU copy's `git hash-object` equals its sidecar's blob hash and the blob at the snapshot;
4. `perfmodel calibrate` reads one osu_latency file per environment.
"""
import csv
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, "/work/main")
from perfmodel.empirical.series import load_series  # noqa: E402

HERE = Path(__file__).resolve().parent
GIT = "/work/.mirror/converged-computing+flux-usernetes/repo"
SNAP = "8310306154ed4bbf1b37b7c057c372bba15ac5c8"
ENVS = ["bare-metal", "bare-metal-with-usernetes", "container", "container-with-usernetes",
        "usernetes"]
failures = []


def git(*args):
    return subprocess.run(["git", "--git-dir", GIT, *args], check=True, capture_output=True,
                          text=True).stdout


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


# 1 and 2: the LAMMPS CSVs
for env in ENVS:
    path = HERE / "apps" / env / "lammps-reaxff.csv"
    lines = path.read_text().splitlines()
    rows = list(csv.DictReader(ln for ln in lines if not ln.startswith("#")))
    counts = Counter(int(r["nodes"]) for r in rows)
    for r in rows:
        raw = git("show", f"{r['commit']}:{r['file']}")
        if raw != git("show", f"{SNAP}:{r['file']}"):
            fail(f"{r['file']} differs between {r['commit']} and the snapshot")
        if f"Loop time of {r['time_s']} on {r['processes']} procs" not in raw:
            fail(f"{path.name} {env}: time_s {r['time_s']} not in {r['file']}")
        if git("log", "-1", "--format=%H", SNAP, "--", r["file"]).strip() != r["commit"]:
            fail(f"{r['file']}: commit {r['commit']} is not the last one touching it")
        for part in r["note"].split("; "):
            if part not in raw.splitlines():
                fail(f"{r['file']}: note part {part!r} is not a line of the file")
        m = re.search(r"lammps-(\d+)-(\d+)-\d+\.out$", r["file"])
        if (m.group(1), m.group(2)) != (r["nodes"], r["processes"]):
            fail(f"{r['file']}: nodes/processes differ from the file name")
    s = load_series([str(path)])
    print(f"{env}: {len(rows)} rows, runs per node count {dict(sorted(counts.items()))}; "
          f"load_series: {len(s)} runs, count={s.count}, "
          f"processes {sorted(set(s.processes.astype(int).tolist()))}")

# 3: the OSU copies
n = 0
for side in sorted((HERE / "osu").rglob("*.provenance.md")):
    copy = side.with_name(side.name[: -len(".provenance.md")])
    text = side.read_text()
    blob = re.search(r"equals `git hash-object` of the copy\) \| ([0-9a-f]{40}) \|", text).group(1)
    repo_path = re.search(r"\| path in the repository \| `([^`]+)` \|", text).group(1)
    got = subprocess.run(["git", "hash-object", str(copy)], check=True, capture_output=True,
                         text=True).stdout.strip()
    if not (got == blob == git("rev-parse", f"{SNAP}:{repo_path}").strip()):
        fail(f"{copy}: hash-object {got}, sidecar {blob}")
    n += 1
copies = [p for p in (HERE / "osu").rglob("*.out")]
print(f"OSU: {n} sidecars checked, {len(copies)} copies present")
if n != len(copies):
    fail("a copy without a sidecar, or the reverse")

# 4: perfmodel reads the latency files
for env in ENVS:
    first = sorted((HERE / "osu" / env).glob("osu*latency*-1.out"))[0]
    out = subprocess.run(["/work/main/.venv/bin/perfmodel", "calibrate", str(first), "--out",
                          "/tmp/x.toml", "--force", "-q"], capture_output=True, text=True)
    print(f"calibrate {env}/{first.name}: rc={out.returncode} "
          f"{(out.stdout + out.stderr).strip()}")
    if out.returncode:
        fail(f"calibrate {first}")

print("OK" if not failures else f"{len(failures)} FAILURES")
sys.exit(1 if failures else 0)
