"""HPCG result summaries as the benchmark writes them: a real public summary
(tests/fixtures/benchmarks/public/PROVENANCE.md) read back, and an INVALID result flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfmodel.readers import read

PUBLIC = Path(__file__).parent / "fixtures" / "benchmarks" / "public"


def test_a_summary_is_one_run_of_its_processes() -> None:
    (t,) = read(PUBLIC / "hpcg_3.1_np64.txt")
    assert (t.format, t.version, t.benchmark, t.pattern) == ("hpcg", "3.1", "HPCG", "application")
    assert len(t) == 1 and tuple(t.counts("processes")) == (64,)
    assert t.time[0] == pytest.approx(1871.23) and t.line == (90,)
    assert t.extra["flops"][0] == pytest.approx(3.09111e13)
    assert t.extra["flop_rate"][0] == pytest.approx(16.3978e9)      # the official rating
    assert t.extra["flop_rate_raw"][0] == pytest.approx(16.5191e9)  # = operations / time
    assert t.extra["flops"][0] / t.time[0] == pytest.approx(16.5191e9, rel=1e-4)
    assert t.extra["verified"][0] == 1.0


def test_an_invalid_result_is_kept_and_flagged(tmp_path: Path) -> None:
    path = tmp_path / "hpcg.txt"
    path.write_text((PUBLIC / "hpcg_3.1_np64.txt").read_text().replace(
        "HPCG result is VALID", "HPCG result is INVALID"))
    (t,) = read(path)
    assert t.extra["verified"][0] == 0.0
    assert any("INVALID (line 119)" in n for n in t.notes)
