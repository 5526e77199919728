"""Cost that grows with the work, not its square (issue 29): ``calibrate --model auto`` on 10⁵
distinct message sizes, as a user runs it, stays far under 1 GiB.

The exact piecewise search held (distinct sizes + 1)² matrices: 2.5 GB at 4·10³ sizes and a
MemoryError at 2·10⁴.  Peak resident memory is measured (not an address-space limit, which
counts what BLAS threads reserve and so depends on the machine's cores), in a fresh
interpreter whose only child is the command, so that no other test's process counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

EXE = str(Path(sys.executable).with_name("perfmodel"))
SIZES = 100_000
LIMIT = 2**30
"""Bytes of peak resident memory allowed; the command takes about 200 MiB."""

_PEAK = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": done.returncode, "out": done.stdout, "err": done.stderr,
                  "peak": peak * (1 if sys.platform == "darwin" else 1024)}))
"""


def _pingpong(path: Path, count: int) -> Path:
    """``count`` distinct sizes 40 B apart, two Hockney segments meeting at 8 KiB, 1 %
    log-normal noise, seeded (the input of bench/cost.py)."""
    rng = np.random.default_rng(29)
    m = 40.0 * np.arange(1, count + 1)
    t = np.where(m < 8192, 1.5e-6 + m / 5e9, 4e-6 + m / 10e9) * np.exp(rng.normal(0, 0.01, count))
    rows = "\n".join(f"{int(a)},{b * 1e6:.6f}" for a, b in zip(m, t, strict=True))
    path.write_text(f"# derived: seeded synthetic ping-pong\nsize_bytes,one_way_us\n{rows}\n")
    return path


def test_calibrate_auto_on_1e5_sizes_stays_under_1_gib(tmp_path: Path) -> None:
    data = _pingpong(tmp_path / "fine.csv", SIZES)
    done = subprocess.run([sys.executable, "-c", _PEAK, EXE, "calibrate", str(data), "--model",
                           "auto", "--no-write", "--quiet"], capture_output=True, text=True,
                          check=True, cwd=tmp_path)
    got = json.loads(done.stdout)
    assert got["code"] == 0, got["err"]
    assert "Traceback" not in got["err"]
    assert "piecewise, median |rel. error|" in got["out"] and f"over {SIZES} points" in got["out"]
    assert got["peak"] < LIMIT, f"peak resident memory {got['peak'] / 2**20:.0f} MiB"
