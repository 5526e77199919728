"""Application models: model files, fitting constants to timings, and the physical-optics
tables of seed 004."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from perfmodel.apps.fit import AppFit, fit_app, predict_app, timing_inputs
from perfmodel.apps.model import AppModel
from perfmodel.apps.model_file import builtin_names, load, loads
from perfmodel.apps.timings import read_timings
from perfmodel.errors import FitError, InputError
from tests.conftest import ROOT

HEAD = 'kind = "perfmodel application model"\nschema_version = 1\nname = "toy"\n'
TOY = HEAD + """
[params.serial]
unit = "s"
description = "done once"

[params.work]
unit = "s"
description = "shared work on one process"

[params.tree]
unit = "s"
description = "per tree level"

[parts.run]
serial = "serial"
compute = "work / p"
communication = "tree * log2(p)"
"""
TRUTH = {"serial": 20.0, "work": 1000.0, "tree": 1.5}


def test_builtin_models_load() -> None:
    assert "physical-optics" in builtin_names()
    model = load("physical-optics")
    assert [p.name for p in model.parts] == ["I", "II", "III"]
    assert set(model.parts[0].terms) == {"serial", "compute", "communication"}
    assert "seed 004" in model.source


def test_evaluation_matches_the_formula() -> None:
    model = loads(TOY)
    p = np.array([1.0, 2.0, 16.0, 1024.0])
    got = model.part_times(p, TRUTH)["run"]
    np.testing.assert_allclose(got, 20.0 + 1000.0 / p + 1.5 * np.log2(p))
    terms = model.evaluate(p, TRUTH)
    np.testing.assert_allclose(terms[("run", "serial")], 20.0)


def test_fit_recovers_known_constants() -> None:
    """Timings at 1..64 processes with 2 % noise, 20 seeds: every fitted constant within 4
    standard errors of the truth and 85 % of them within 2 (a constant held on its bound
    biases the others a little), and the 95 % interval at 1024 processes (16x beyond the
    data, flagged as extrapolated) covering the true time in at least 17 of 20 seeds.  (The
    serial and tree terms trade off over 1..64, so the point prediction alone can be 10 %
    off: the interval says so.)"""
    model = loads(TOY)
    p = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    true_far = model.part_times(np.array([1024.0]), TRUTH)["run"][0]
    covered = inside = total = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        t = model.part_times(p, TRUTH)["run"] * np.exp(rng.normal(0, 0.02, p.size))
        fit = fit_app(model, p, t)
        assert fit.dof == p.size - len(fit.fitted_names)
        for name in fit.fitted_names:
            est = fit.estimate(name)
            z = abs(est.value - TRUTH[name]) / est.stderr
            assert z < 4, (seed, name, est)
            inside += z < 2
            total += 1
        pred = predict_app(fit, [1024.0])
        assert bool(pred.extrapolated[0]) and pred.total_lo[0] < pred.total[0] < pred.total_hi[0]
        covered += bool(pred.total_lo[0] <= true_far <= pred.total_hi[0])
    assert covered >= 17 and inside >= 0.85 * total


def test_exactly_determined_fit_claims_no_uncertainty() -> None:
    model = loads(TOY)
    p = np.array([1.0, 2.0, 4.0])
    fit = fit_app(model, p, model.part_times(p, TRUTH)["run"])
    assert fit.dof == 0 and any("exactly determined" in n for n in fit.notes)
    pred = predict_app(fit, [8.0])
    assert math.isnan(pred.total_lo[0])
    assert pred.total[0] == pytest.approx(model.part_times(np.array([8.0]), TRUTH)["run"][0],
                                          rel=1e-6)
    with pytest.raises(FitError, match="3 constants to fit from 2"):
        fit_app(model, p[:2], model.part_times(p[:2], TRUTH)["run"])


@pytest.mark.parametrize(("edit", "fragment"), [
    (lambda s: s.replace('kind = "perfmodel application model"', 'kind = "x"'),
     "not an application model"),
    (lambda s: s + 'run = "import os"\n', "unknown key 'run'"),
    (lambda s: s.replace('compute = "work / p"', 'compute = "work / q"'), "unknown name 'q'"),
    (lambda s: s.replace('compute = "work / p"', 'compute = "__import__(1)"'), "not allowed"),
    (lambda s: s.replace('compute = "work / p"', 'compute = 3'), "is not text"),
    (lambda s: s.replace('compute = "work / p"', 'compute = "serial"'),
     "parameter 'work' is used by no term"),
    (lambda s: s.replace('[parts.run]', '[parts.run]\nrun = "x"'), "unknown key 'run'"),
    (lambda s: s.replace('[params.tree]', '[params.p]'), "'p' is not allowed"),
    (lambda s: s.replace('[params.tree]', '[params.log]'), "is a function's name"),
    (lambda s: s.replace('[params.tree]', '[params.allreduce]'), "is a function's name"),
    (lambda s: s.replace('description = "done once"', 'description = "done once"\nvalue = -1'),
     "below its lower bound"),
    (lambda s: s.replace('schema_version = 1', 'schema_version = 9'), "schema_version"),
    (lambda s: s + "[parts.x\n", "not valid TOML"),
])
def test_bad_model_files_are_one_line(edit, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as exc:
        loads(edit(TOY), "toy.toml")
    assert fragment in str(exc.value) and str(exc.value).startswith("toy.toml")


def test_formula_errors_name_the_line() -> None:
    text = TOY.replace('compute = "work / p"', 'compute = "work / (p"')
    with pytest.raises(InputError) as exc:
        loads(text, "toy.toml")
    line = next(i for i, ln in enumerate(text.splitlines(), 1)
                if ln.startswith("compute = ") and i > text.splitlines().index("[parts.run]"))
    assert exc.value.line == line and "missing ')'" in str(exc.value)


def test_unknown_builtin_and_part() -> None:
    with pytest.raises(InputError, match="no built-in application model 'ppx'"):
        load("ppx")
    with pytest.raises(InputError, match="no part 'IV'"):
        fit_app(loads(TOY), [1.0, 2.0, 4.0], [1.0, 1.0, 1.0], ["IV", "", ""])


@pytest.mark.parametrize(("body", "fragment"), [
    ("", "no timing rows"),
    ("nodes,when\n1,2\n", "process count and a time (or Mflop/s) column"),
    ("nodes,time_s\n1,x\n", "not a number"),
    ("nodes,time_s\n0,1\n", "nodes is 0"),
    ("nodes,time_s\n1.5,1\n", "nodes is 1.5"),
    ("nodes,time_s\n1,-3\n", "time_s is -3"),
    ("nodes,time_s\n1\n", "1 cells where the header has 2"),
    ("nodes,time_s\n", "no timing rows"),
])
def test_bad_timings_are_one_line(tmp_path: Path, body: str, fragment: str) -> None:
    f = tmp_path / "t.csv"
    f.write_text(body)
    with pytest.raises(InputError) as exc:
        read_timings(f)
    assert fragment in str(exc.value)


# --- seed 004: the physical-optics Tables 1 and 2 ------------------------------------------

PO = read_timings(ROOT / "data" / "seeds" / "physical-optics.csv")


@cache
def _fit_on_small(machine: str) -> AppFit:
    return _fit_small(machine, load("physical-optics"))


def _fit_small(machine: str, model: AppModel) -> AppFit:
    """One fit per machine to both tables' 1-, 2- and 4-node rows (the tables share the main
    reflector; each row's size is its table's N)."""
    rows = PO.select(machine=machine)
    small = rows.processes <= 4
    times, sizes = timing_inputs(model, rows, {})
    assert sizes is not None
    return fit_app(model, rows.processes[small], times[small],
                   [x for x, k in zip(rows.parts, small, strict=True) if k],
                   sizes=np.asarray(sizes)[small])


def _holdout(table: str, machine: str) -> dict[str, np.ndarray]:
    """Relative error of the 8- and 16-node predictions per part, for one table."""
    rows = PO.select(table=table, machine=machine)
    n = {"1": 400.0, "2": 4900.0}[table]
    pred = predict_app(_fit_on_small(machine), [8.0, 16.0], n=[n, n])
    out = {}
    for part in ("I", "II", "III"):
        measured = np.array([rows.times[i] for i in range(len(rows))
                             if rows.processes[i] > 4 and rows.parts[i] == part])
        out[part] = pred.parts[part] / measured - 1
    return out


def test_physical_optics_data_are_the_seed_tables() -> None:
    assert len(PO) == 60
    t1 = PO.select(table="1", machine="beowulf")
    assert t1.times[0] == 5.10 and t1.parts[0] == "I"
    t2 = PO.select(table="2", machine="t3d")
    assert t2.times[-1] == pytest.approx(0.135 * 60)   # minutes in the paper
    assert set(PO.labels["size"]) == {"400", "4900"}   # 'N = 400', 'N = 4900'


@pytest.mark.parametrize(("table", "machine"), [("1", "beowulf"), ("1", "t3d"),
                                                 ("2", "beowulf"), ("2", "t3d")])
def test_physical_optics_predicts_8_and_16_nodes(table: str, machine: str) -> None:
    """Issue 5's target: fitted on 1, 2 and 4 nodes, 8 and 16 within 10 % for every part.

    Measured (8, 16 nodes): Beowulf Table 1 I +2.5/+0.1, II +1.3/+1.7, III +5.4/+8.6 %;
    Table 2 I +2.7/+4.2, II -0.8/-0.2, III +4.9/+6.4 %; T3D Table 1 I +3.0/-1.0,
    II -1.1/-0.2, III +0.8/+0.6 %; Table 2 I +2.4/+3.4, II +2.5/+4.9, III +3.0/0.0 %."""
    err = _holdout(table, machine)
    for part in ("I", "II", "III"):
        assert np.all(np.abs(err[part]) <= 0.10), (part, err[part])


def test_physical_optics_part_iii_tree_form_misses_the_beowulf() -> None:
    """Why part III has parallel_III: with a log2(p) term in its place the fit sets that term
    to 0 and puts the 1 -> 2 step in a serial part, which over-predicts the Beowulf's 16-node
    part III by more than 10 % (measured 15-17 %)."""
    text = (ROOT / "perfmodel" / "apps" / "models" / "physical-optics.toml").read_text()
    text = text.replace('compute = "work_III / p + parallel_III * min(1, p - 1) / p"',
                        'compute = "work_III / p"\ncommunication = "parallel_III * log2(p)"')
    fit = _fit_small("beowulf", loads(text))
    t1 = PO.select(machine="beowulf", table="1")
    measured = [t1.times[i] for i in range(len(t1)) if t1.processes[i] == 16 and
                t1.parts[i] == "III"]
    got = predict_app(fit, [16.0], n=[400.0]).parts["III"][0]
    assert got / measured[0] - 1 > 0.10
    assert fit.values["parallel_III"] == 0 and fit.values["serial_III"] > 1.0


def test_a_constant_named_like_the_machine_or_numpy_works() -> None:
    text = TOY.replace("[params.tree]", "[params.M]").replace("tree * log2", "M * log2")
    text = text.replace("[params.serial]", "[params.pi]").replace('serial = "serial"',
                                                                  'serial = "pi"')
    model = loads(text)
    got = model.part_times(np.array([4.0]), {"pi": 1.0, "work": 8.0, "M": 0.5})["run"]
    assert got[0] == pytest.approx(1.0 + 2.0 + 1.0)


def test_timings_at_one_node_count_cannot_be_fitted() -> None:
    with pytest.raises(FitError, match="one node count"):
        fit_app(loads(TOY), [4.0, 4.0, 4.0, 4.0], [1.0, 1.1, 0.9, 1.0])


def test_a_local_file_without_suffix_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    (tmp_path / "toy").write_text(TOY)
    monkeypatch.chdir(tmp_path)
    assert load("toy").name == "toy"


def test_pallas_exchange_model_is_the_fabric_exchange_law() -> None:
    """The built-in pallas-exchange model, through the application path, gives the same
    iteration times as `network --processes` (seed 003's Exchange, issue 4's law)."""
    from perfmodel.apps.fit import AppFit
    from perfmodel.apps.metrics import scaling
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load as load_profile
    from perfmodel.network.fabric import exchange

    model = load("pallas-exchange")
    sizes = [1.0, 4096.0, 1 << 20]
    for name in ("es80", "sci-cluster", "myrinet-cluster"):
        prof = load_profile(ROOT / "calibration" / f"{name}.toml")
        assert prof.fabric is not None
        on = Machine(prof)
        fit = AppFit(model, (), machine=on)
        for m in sizes:
            got = scaling(fit, [2.0, 4.0], size=m).time
            want = exchange(prof.fabric, m, np.array([2.0, 4.0])).time
            np.testing.assert_allclose(got, want, rtol=1e-12)


# --- definitions -------------------------------------------------------------------------------

DEFINED = HEAD + """
[params.work]
unit = "s"
description = "shared work on one process"

[params.tree]
unit = "s"
description = "per tree level"

[define]
levels = "log2(p)"
share = "work / p"
climb = "tree * levels"

[parts.run]
compute = "share"
communication = "climb + 0 * levels"
"""


def test_definitions_are_the_formulas_written_out() -> None:
    """A [define] name is its formula substituted where it is used: the model evaluates to the
    same numbers as the one written in full, and lists its definitions."""
    p = np.array([1.0, 2.0, 16.0, 1024.0])
    got = loads(DEFINED).part_times(p, TRUTH)["run"]
    np.testing.assert_allclose(got, 1000.0 / p + 1.5 * np.log2(p))
    assert [k for k, _ in loads(DEFINED).defines] == ["levels", "share", "climb"]


@pytest.mark.parametrize("edit, fragment", [
    (lambda t: t.replace('climb = "tree * levels"', 'climb = "tree * later"\nlater = "2"'),
     "later"),
    (lambda t: t.replace('levels = "log2(p)"', 'work = "log2(p)"'), "define.work"),
    (lambda t: t.replace('levels = "log2(p)"', 'p = "2"'), "define.p"),
    (lambda t: t.replace('share = "work / p"', 'share = "work / p"\nidle = "3"'), "idle"),
    (lambda t: t.replace('share = "work / p"', 'share = "__import__(1)"'), "define.share"),
])
def test_bad_definitions_are_one_line(edit, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as err:
        loads(edit(DEFINED))
    assert fragment in str(err.value)


def test_definitions_that_square_each_other_are_refused_fast() -> None:
    """d1 = n*n, d2 = d1*d1 … 40 levels would be 2^40 operations written out: refused by
    counting, without building or walking them."""
    chain = "\n".join(f'd{i} = "d{i - 1} * d{i - 1}"' for i in range(1, 41))
    text = HEAD + f'[define]\nd0 = "n"\n{chain}\n[size]\nvalue = 1\nunit = ""\n' \
        'description = "x"\n[parts.run]\ncompute = "d40"\n'
    with pytest.raises(InputError, match="operations once its definitions"):
        loads(text)


def test_definitions_keep_the_model_name_and_refuse_towers_and_chains() -> None:
    """The model keeps its name; a constant built through definitions (3 ^ (10 ^ 15)) is
    refused like one written out, and so is a chain of definitions too deep to walk."""
    assert load("npb-cg").name == "npb-cg" and load("npb-lu").name == "npb-lu"
    tower = HEAD + '[define]\na = "10 ^ 15"\nb = "3 ^ a"\n[parts.run]\ncompute = "p + 0 * b"\n'
    with pytest.raises(InputError, match="too large"):
        loads(tower)
    chain = "\n".join(f'd{i} = "2 * (d{i - 1} + 1)"' for i in range(1, 300))
    deep = HEAD + f'[define]\nd0 = "p"\n{chain}\n[parts.run]\ncompute = "d299"\n'
    with pytest.raises(InputError, match="nests deeper"):
        loads(deep)


def test_the_written_out_size_is_counted_over_the_whole_model() -> None:
    """A definition of 2^14 - 1 operations fits in one term, not in two: the limit is the
    model's, so repeating a large definition in many parts cannot multiply the work."""
    chain = "\n".join(f'd{i} = "d{i - 1} + d{i - 1}"' for i in range(1, 14))
    text = HEAD + f'[define]\nd0 = "p"\n{chain}\n[parts.a]\ncompute = "d13"\n'
    assert loads(text).parts[0].name == "a"
    with pytest.raises(InputError, match="operations once its definitions"):
        loads(text + '[parts.b]\ncompute = "d13"\n')


def test_flops_cannot_call_the_machine_through_a_definition() -> None:
    text = HEAD + '[define]\nt = "msg(8)"\n[parts.run]\ncommunication = "t"\n' \
        'compute = "0"\n'
    assert loads(text).uses_machine
    with pytest.raises(InputError, match="flops uses a definition"):
        loads(text.replace('[define]', 'flops = "t"\n[define]'))


# --- boxes: which rounds stay inside -----------------------------------------------------------

def test_rounds_inside_a_box_take_the_intra_box_link() -> None:
    """On the ES80 (boxes of two): two processes share a box, so a one-double allreduce is one
    intra-box message (2.5 us + 8 B / 2 GB/s); four take the intra-box round (partner XOR 1)
    then one across the boxes (21.7 us + 8 B / 2 GB/s).  A message to the next rank stays in
    the box, one to any rank may cross; the SCI cluster (one process a node) never has a box."""
    from perfmodel.machine import Machine
    from perfmodel.machine import collectives as C
    from perfmodel.machine.profile import load as load_profile

    es80 = Machine(load_profile(ROOT / "calibration" / "es80.toml"))
    intra, inter = 2.5e-6 + 8 / 2e9, 21.7e-6 + 8 / 2e9
    got = C.allreduce(es80, 8.0, np.array([1.0, 2.0, 4.0]))
    np.testing.assert_allclose(got, [0.0, intra, intra + inter], rtol=1e-9)
    one = C.call("msg", es80, (8.0, 1.0), np.array([2.0, 4.0]), {})
    anywhere = C.call("msg", es80, (8.0,), np.array([2.0, 4.0]), {})
    np.testing.assert_allclose(one, [intra, intra], rtol=1e-9)
    np.testing.assert_allclose(anywhere, [intra, inter], rtol=1e-9)
    spread = Machine(es80.profile, placement="spread")
    assert C.allreduce(spread, 8.0, np.array([2.0]))[0] == pytest.approx(inter)
    # a round in which both ranks of a box send out shares its port: two of 1 MB at 2 GB/s
    # hold it 1 ms, longer than one message alone (21.7 us + 0.5 ms), which is what a shift
    # (one rank of a box sending out) costs; inside, one intra-box message
    assert es80.round(1e6, 4.0, False, 2.0) == pytest.approx(2 * 1e6 / 2e9)
    assert es80.round(1e6, 4.0, False) == pytest.approx(21.7e-6 + 1e6 / 2e9)
    assert es80.round(1e6, 4.0, True) == pytest.approx(2.5e-6 + 1e6 / 2e9)
    # rank + d partners cross at a box's edge: both dissemination rounds of a 4-rank barrier
    assert C.barrier(es80, np.array([4.0]))[0] == pytest.approx(2 * 21.7e-6)
    # p = 3: ranks 0 and 1 pair inside, renumbered 1 and 2 meet across, the result comes back
    assert C.allreduce(es80, 8.0, np.array([3.0]))[0] == pytest.approx(2 * intra + inter)
    sci = Machine(load_profile(ROOT / "calibration" / "sci-cluster.toml"))
    assert not sci.inside(np.array([2.0]), 1.0).any()
