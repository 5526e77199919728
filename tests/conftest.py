"""Shared fixtures: paths to the project's data and small helpers for synthetic data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from perfmodel.measurements import Measurements
from perfmodel.network import models as registry

if TYPE_CHECKING:
    from typer.testing import Result

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
CALIBRATION = ROOT / "calibration"
MPICH = DATA / "mpi4py" / "pingpong_mpich.csv"
OMPI = DATA / "mpi4py" / "pingpong_ompi.csv"


def log_grid() -> np.ndarray:
    """1 B to 4 MiB at half powers of two: how ping-pong benchmarks space their sizes."""
    return np.unique(np.round(2.0 ** (np.arange(45) / 2)))


def packet_grid() -> np.ndarray:
    """The log grid plus every 64 bytes up to 16 KiB, so packet steps are visible."""
    return np.unique(np.concatenate([log_grid(), 64.0 * np.arange(1, 257)]))


def synthetic(kind: str, truth: dict[str, float], seed: int, sizes: np.ndarray | None = None,
              reps: int = 4, noise: float = 0.05) -> Measurements:
    """Times from ``kind`` at ``truth`` with multiplicative Gaussian noise of ``noise``."""
    rng = np.random.default_rng(seed)
    m = np.repeat(log_grid() if sizes is None else sizes, reps)
    t = registry.evaluate(kind, m, truth) * (1 + noise * rng.standard_normal(m.size))
    return Measurements(f"synthetic-{kind}-{seed}", m, t, tuple(range(2, m.size + 2)))


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty temporary folder (calibrate writes calibration/ relative to it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke_in(cwd: Path, args: list[str], env: dict[str, str] | None = None) -> Result:
    """The command line ``perfmodel ARGS`` through the real app, run from ``cwd`` (so relative
    outputs land there), the working directory restored after."""
    import os

    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, args, env=env)
    finally:
        os.chdir(old)


def beowulf_fit(code: str) -> Any:
    """The seed code ``code`` (ppm: its fixed-size runs) fitted to the 1995 Beowulf's timings,
    on its calibrated profile: what the what-if tests sweep."""
    from perfmodel.apps.fit import fit_app, timing_inputs
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.apps.timings import read_timings
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load

    model = load_model(code)
    rows = read_timings(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv").select(code=code)
    if code == "ppm":
        rows = rows.select(use="fit")
    times, sizes = timing_inputs(model, rows, {})
    machine = Machine(load(ROOT / "calibration" / "beowulf-1995.toml"))
    return fit_app(model, rows.processes, times, rows.parts, {}, machine=machine, sizes=sizes)


@pytest.fixture(scope="module")
def ppm() -> Any:
    """ppm fitted on the 1995 Beowulf (a module may define its own)."""
    return beowulf_fit("ppm")


@pytest.fixture(scope="module")
def nbody() -> Any:
    """The N-body code fitted on the 1995 Beowulf (a module may define its own)."""
    return beowulf_fit("nbody")
