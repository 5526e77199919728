"""A profile calibrated from network outputs alone (no HPL, STREAM or HPCG) still predicts a
code whose model costs its work on the node (issue 31): ``predict --fit`` takes the node's
speed from the code's own one-process runs, says so, and refuses when it cannot.

The profile is alaska-edr (OSU outputs only); the timings are the 1995 Beowulf's PPM rows
(seed 000 §4.3: 4.5 Mflop/s on one processor), used here only as timings of some code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, invoke_in

PROFILE = str(ROOT / "calibration" / "alaska-edr.toml")
TIMINGS = ROOT / "data" / "seeds" / "beowulf-1995-apps.csv"
ARGS = ["predict", "ppm", "--machine", PROFILE, "--fit", str(TIMINGS), "--where", "code=ppm",
        "--where", "use=fit", "--nodes", "1,2,4"]


def test_the_node_speed_comes_from_the_codes_one_process_run() -> None:
    got = invoke_in(ROOT, [*ARGS, "--json"])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.output)
    rows = doc["rows"] if "rows" in doc else doc["prediction"]["rows"]
    one = next(r for r in rows if r["nodes"] == 1 or r.get("processes") == 1)
    assert one["mflops"] == pytest.approx(4.5, rel=1e-6)   # the run it was fitted to
    text = invoke_in(ROOT, ARGS).output
    assert "node: no HPL, STREAM or HPCG in the profile; ppm runs at 4.5 Mflop/s" in text


def test_no_one_process_run_is_refused_in_one_line(tmp_path: Path) -> None:
    lines = [ln for ln in TIMINGS.read_text().splitlines()
             if not ln.startswith("ppm,fixed,1,")]
    path = tmp_path / "no-one.csv"
    path.write_text("\n".join(lines) + "\n")
    got = invoke_in(tmp_path, ["predict", "ppm", "--machine", PROFILE, "--fit", str(path),
                               "--where", "code=ppm", "--where", "use=fit", "--nodes", "1,2"])
    assert got.exit_code == 2
    out = got.output.strip().splitlines()
    assert len(out) == 1 and "no timing row is a whole run on one process" in out[0]


def test_a_profile_with_a_node_keeps_it() -> None:
    beowulf = str(ROOT / "calibration" / "beowulf-1995.toml")
    got = invoke_in(ROOT, ["predict", "ppm", "--machine", beowulf, "--fit", str(TIMINGS),
                           "--where", "code=ppm", "--where", "use=fit", "--nodes", "1,2"])
    assert got.exit_code == 0, got.output
    assert "node: no HPL" not in got.output
