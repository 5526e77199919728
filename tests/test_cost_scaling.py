"""perfmodel scaling at many process counts (issue 29): cost that grows with the counts, not
their square.  Known answers and equivalences, never timings: the cross-validation scores
every committed series exactly as the one that refitted every split did, picks the same form
as it on longer synthetic series, and fits a number of rows that grows as the counts do; the
per-count lookups give what a search per count gave."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfmodel.cli.scaling_view import measured
from perfmodel.empirical import fit as F
from perfmodel.empirical.forms import candidates
from perfmodel.empirical.series import Series, load_series
from perfmodel.errors import InputError
from tests.conftest import ROOT


def every_split_score(form: F.Form, p: np.ndarray, t: np.ndarray) -> float:
    """The score as it was before issue 29: a fit on the first 3, 4, …, m − 1 counts for every
    split, m of them over up to m runs each (its cost grows with m²)."""
    counts = np.unique(p)
    errors = []
    for s in range(3, len(counts)):
        train = p <= counts[s - 1]
        f = F.fit_form(form, p[train], t[train])
        pred = f.time(p[~train])
        with np.errstate(divide="ignore", invalid="ignore"):
            e = np.abs(np.log(pred / t[~train]))
        errors.append(float(np.mean(np.where(np.isfinite(e), e, 50.0))))
    return float(np.mean(errors)) if errors else math.nan


def committed() -> list[tuple[str, Series]]:
    """Every scaling series in data/, as bench/scaling_accuracy.py takes them."""
    out = []
    po = ROOT / "data" / "seeds" / "physical-optics.csv"
    for machine in ("beowulf", "t3d"):
        for table in ("1", "2"):
            for part in ("I", "II", "III"):
                out.append((f"PO {machine} T{table} {part}", load_series(
                    [po], {"machine": machine, "table": table, "part": part})))
    files = sorted((ROOT / "data" / "local").glob("*scaling*.csv"))
    files += sorted((ROOT / "data" / "public").glob("*/*.csv"))
    out += [(f.stem, load_series([f])) for f in files]
    return out


SERIES = committed()


def test_the_committed_series_are_there() -> None:
    assert len(SERIES) >= 30
    assert max(len(np.unique(s.processes)) for _, s in SERIES) <= F.SPLITS + 3


@pytest.mark.parametrize(("name", "series"), SERIES, ids=[n for n, _ in SERIES])
def test_committed_series_score_and_choose_as_every_split_did(
        name: str, series: Series, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to SPLITS + 3 counts every split is still scored: the same numbers, bit for bit, so
    the same form, family and notes, on the whole series and on its four smallest counts (what
    bench/scaling_accuracy.py fits)."""
    order = np.argsort(series.processes, kind="stable")
    p, t = series.processes[order], series.times[order]
    four = p <= np.unique(p)[3]
    for pp, tt in ((p, t), (p[four], t[four])):
        for family in ("strong", "weak"):
            for form in candidates(family):    # type: ignore[arg-type]
                assert F.cv_score(form, pp, tt) == every_split_score(form, pp, tt)
        new = F.fit_scaling(pp, tt)
        with monkeypatch.context() as m:
            m.setattr(F, "cv_score", every_split_score)
            old = F.fit_scaling(pp, tt)
        assert (new.family, new.chosen.fit.form, new.notes) == \
            (old.family, old.chosen.fit.form, old.notes)
        assert [c.fit.form for c in new.candidates] == [c.fit.form for c in old.candidates]


def test_splits_are_every_one_then_the_middles_of_equal_strata() -> None:
    assert F.splits(4).tolist() == [3]
    assert F.splits(F.SPLITS + 3).tolist() == list(range(3, F.SPLITS + 3))
    for m in (F.SPLITS + 4, 100, 1003, 10_000):
        s = F.splits(m)
        assert len(s) == F.SPLITS and np.all(np.diff(s) > 0)
        assert s[0] >= 3 and s[-1] <= m - 1
        # each stands for an equal share of the m − 3 splits: the middle of its stratum
        width = (m - 3) / F.SPLITS
        assert np.all(np.abs(s - (3 + (np.arange(F.SPLITS) + 0.5) * width)) <= 1)


def _synthetic(law: str, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(29)
    p = np.arange(1, m + 1, dtype=float)
    t = {"amdahl-log": 2.0 + 98.0 / p + 0.05 * np.log2(p), "halo": 100 / p + 8 * p ** -0.5,
         "weak-linear": 10 + 0.05 * (p - 1)}[law]
    return p, t * np.exp(rng.normal(0, 0.01, m))


@pytest.mark.parametrize("law", ["amdahl-log", "halo", "weak-linear"])
def test_sampled_splits_choose_what_every_split_chooses(law: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past SPLITS + 3 counts the splits are sampled: on 60 counts the choice is the one every
    split makes, and the chosen form's score within a fifth of it."""
    p, t = _synthetic(law, 60)
    new = F.fit_scaling(p, t)
    with monkeypatch.context() as m:
        m.setattr(F, "cv_score", every_split_score)
        old = F.fit_scaling(p, t)
    assert (new.family, new.chosen.fit.form.name) == (old.family, old.chosen.fit.form.name)
    assert new.chosen.score == pytest.approx(old.chosen.score, rel=0.2)


def test_rows_fitted_grow_with_the_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work of choosing a form, counted as rows given to the solver: ten times the counts,
    ten times the rows (the score that refitted every split took a hundred times)."""
    rows: list[int] = []
    solve = F._nnls

    def counted(a: np.ndarray) -> np.ndarray:
        rows.append(len(a))
        return solve(a)

    monkeypatch.setattr(F, "_nnls", counted)
    work = []
    for m in (500, 5000):
        rows.clear()
        F.fit_scaling(*_synthetic("amdahl-log", m), "strong")
        work.append(sum(rows))
    assert 9.0 < work[1] / work[0] < 11.0


def test_the_family_is_scored_once_when_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no sizes, the family is detected from the strong and the weak forms' scores, and
    the ranking of the one chosen is reused, not scored again."""
    calls: list[str] = []
    ranked = F._ranked

    def counted(family: F.Family, p: np.ndarray, t: np.ndarray) -> tuple[F.Candidate, ...]:
        calls.append(family)
        return ranked(family, p, t)

    monkeypatch.setattr(F, "_ranked", counted)
    fit = F.fit_scaling(*_synthetic("amdahl-log", 20))
    assert sorted(calls) == ["strong", "weak"] and fit.family == "strong"


def test_measured_runs_per_count_are_a_search_per_count() -> None:
    """Runs and median time at each count, from one sort: what a search of the runs at each
    count gives, repetitions (odd and even numbers of them) and unmeasured counts included."""
    jacobi = load_series([ROOT / "data" / "local" / "jacobi2d-scaling.csv"])
    rng = np.random.default_rng(3)
    uneven = Series(np.array([4.0, 1, 4, 2, 4, 4, 1]), rng.uniform(1, 9, 7), None, (),
                    "processes", ())
    for series in (jacobi, uneven):
        q = np.concatenate([np.unique(series.processes), [3.0, 1e6]])
        runs, med = measured(series, q)
        for i, x in enumerate(q):
            at = series.times[series.processes == x]
            assert runs[i] == len(at)
            if len(at):
                assert med[i] == np.median(at)
            else:
                assert math.isnan(med[i])


def test_several_sizes_at_one_count_name_the_smallest_such_count(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("processes,time_s,size\n1,10,100\n2,6,100\n2,7,200\n4,3,100\n4,3,300\n"
                    "4,3,400\n8,2,100\n")
    with pytest.raises(InputError, match=r"the runs at 2 processes have 2 problem sizes "
                                         r"\(100, 200\)"):
        load_series([path])
