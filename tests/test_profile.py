"""Profiles are plain TOML with a schema version and provenance, and load back exactly."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from perfmodel import SCHEMA_VERSION
from perfmodel.calibrate import calibrate
from perfmodel.errors import InputError, OutputError
from perfmodel.files import write as tomlw
from perfmodel.io import write_atomic
from perfmodel.machine.profile import dumps, load
from perfmodel.network.spec import load_spec
from tests.conftest import DATA, MPICH


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_round_trip_is_exact(tmp_path: Path) -> None:
    cal = calibrate([MPICH], name="rt")
    path = write_atomic(tmp_path / "rt.toml", dumps(cal.profile))
    back = load(path)
    a, b = cal.profile.network, back.network
    assert a.kind == b.kind and a.dof == b.dof and a.size_range == b.size_range
    assert [(p.name, p.unit, p.status) for p in a.params] == [(p.name, p.unit, p.status)
                                                              for p in b.params]
    assert all(_same(p.value, q.value) and _same(p.stderr, q.stderr)
               for p, q in zip(a.params, b.params, strict=True))
    assert np.array_equal(a.covariance, b.covariance)
    sizes = np.geomspace(1, 2**24, 50)
    assert a.measured is not None and a.measured == b.measured
    assert np.array_equal(a.time(sizes), b.time(sizes))


def test_provenance_is_recorded(tmp_path: Path) -> None:
    cal = calibrate([MPICH], name="p", command="perfmodel calibrate x")
    doc = tomllib.loads(dumps(cal.profile))
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == "perfmodel machine profile"
    prov = doc["provenance"]
    assert prov["tool"].startswith("perfmodel ") and prov["command"] == "perfmodel calibrate x"
    assert {"numpy", "scipy", "lmfit", "python", "created"} <= set(prov)
    (inp,) = doc["inputs"]
    import hashlib

    assert inp["sha256"] == hashlib.sha256(MPICH.read_bytes()).hexdigest()
    assert inp["rows"] == 24 and any("mpi4py" in c for c in inp["comments"])


def test_source_date_epoch_makes_output_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    a = dumps(calibrate([MPICH], name="x").profile)
    b = dumps(calibrate([MPICH], name="x").profile)
    assert a == b and 'created = "1970-01-01T00:00:00Z"' in a


def _edit(tmp_path: Path, old: str, new: str) -> Path:
    text = dumps(calibrate([MPICH], name="e").profile)
    assert old in text
    p = tmp_path / "edited.toml"
    p.write_text(text.replace(old, new, 1))
    return p


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("schema_version = 1", "schema_version = 99", "newer than this perfmodel reads"),
    ('model = "piecewise"', 'model = "magic"', "unknown model 'magic'"),
    ("dof = ", "surprise = 1\ndof = ", "network.surprise: unknown key"),
    ('kind = "perfmodel machine profile"', 'kind = "something else"', "not a perfmodel machine"),
    ("alpha_1 = { value = ", "alpha_1 = { value = -", "cannot be negative"),
    ("[network.params]", "[network.params", "not valid TOML"),
    ('fitted = ["alpha_1", "beta_1"', 'fitted = ["beta_1", "alpha_1"', "network.fitted: is"),
    ("dof = ", "dof = 1e300\nx_dof = ", "network.x_dof: unknown key"),
    ("noise_rel = ", "noise_rel = -1.0\nold_noise = ", "unknown key"),
    ("breakpoint_1 = { value = ", "breakpoint_1 = { value = 1e12 + ", "not valid TOML"),
    ('status = "fitted"', 'status = "guessed"', "status: is 'guessed'"),
    ('beta_1 = { value = ', 'beta_1 = { value = 0.0, old = ', "unknown key"),
    ("rows_used = ", "colour = 1\nrows_used = ", "inputs[0].colour: unknown key"),
    ("rows_used = 24", "rows_used = -3", "inputs[0].rows_used: is -3, not a count"),
    ('pattern = "pingpong"', "pattern = 7", "inputs[0].pattern: is 7, not text"),
    ("measured = { sizes = [", "measured = { sizes = [-5.0, ", "network.measured: is not "
                                                                "rising sizes from 0"),
    ("log_ratio = [", 'log_ratio = ["x", ', "network.measured.log_ratio: is not a list"),
    ("spread = [", "spread = [-1.0, ", "network.measured.spread: is not one scatter"),
    ("log_ratio = [", "log_ratio = [1" + "0" * 400 + ", ", "network.measured.log_ratio: is not "
                                                            "a list of finite numbers"),
    ("measured = { sizes", "measured = { colour = 1, sizes", "network.measured.colour: "
                                                              "unknown key"),
])
def test_bad_profiles_are_refused(tmp_path: Path, old: str, new: str, fragment: str) -> None:
    with pytest.raises(InputError) as info:
        load(_edit(tmp_path, old, new))
    assert fragment in info.value.one_line()


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("dof", "1e300", "network.dof: is 1e+300"),
    ("dof", "-5", "network.dof: is -5"),
    ("noise_rel", "-1.0", "network.noise_rel: is -1 "),
    ("noise_rel", "inf", "network.noise_rel: is inf"),
    ("size_min", "1" + "0" * 400, "network.size_min: is too large"),
    ("size_max", "2.0", "network.measured.sizes: run from"),
])
def test_bad_numbers_in_profiles(tmp_path: Path, key: str, value: str, fragment: str) -> None:
    import re

    text = dumps(calibrate([MPICH], name="e").profile)
    p = tmp_path / "bad.toml"
    p.write_text(re.sub(rf"^{key} = .*$", f"{key} = {value}", text, count=1, flags=re.M))
    with pytest.raises(InputError) as info:
        load(p)
    assert fragment in info.value.one_line()


def test_breakpoints_must_increase(tmp_path: Path) -> None:
    import re

    text = dumps(calibrate([MPICH], name="e").profile)
    text = re.sub(r"(breakpoint_2 = \{ value = )[0-9.e+]+", r"\g<1>1.0", text)
    p = tmp_path / "bp.toml"
    p.write_text(text)
    with pytest.raises(InputError, match="breakpoints do not increase"):
        load(p)


def test_no_clobber_even_if_the_file_appears_while_writing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "race.toml"
    real_exists = Path.exists

    def late(self: Path) -> bool:  # the check passes, then someone writes the file
        if self == p and not real_exists(self):
            self.write_text("theirs\n")
            return False
        return real_exists(self)

    monkeypatch.setattr(Path, "exists", late)
    with pytest.raises(OutputError, match="exists already"):
        write_atomic(p, "ours\n")
    assert p.read_text() == "theirs\n"
    assert [q.name for q in tmp_path.iterdir()] == ["race.toml"]
def test_atomic_write_refuses_overwrite_and_keeps_old_file(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "x.toml"
    write_atomic(p, "old\n")
    with pytest.raises(OutputError, match="exists already"):
        write_atomic(p, "new\n")
    import os

    def crash(src: str, dst: str) -> None:
        raise KeyboardInterrupt  # interrupted between writing and renaming

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(p, "new\n", force=True)
    assert p.read_text() == "old\n"
    assert [q.name for q in tmp_path.iterdir()] == ["x.toml"]  # no temporary left behind


def test_toml_writer_round_trips() -> None:
    doc = {"a": 1, "b": [1.5, float("inf")], "c": {"d": "é \"q\"", "e": {"f": float("nan")}},
           "g": [{"h": 1}, {"h": 2}], "m": [[1.0, 2.0], [3.0, 4.0]], "weird key": True}
    back = tomllib.loads(tomlw.dumps(doc))
    assert back["a"] == 1 and back["b"][1] == math.inf and math.isnan(back["c"]["e"]["f"])
    assert back["c"]["d"] == 'é "q"' and back["g"] == [{"h": 1}, {"h": 2}]
    assert back["m"] == [[1.0, 2.0], [3.0, 4.0]] and back["weird key"] is True


def test_spec_files_parse_units_and_keep_sources() -> None:
    spec = load_spec(DATA / "seeds" / "sci-cluster.spec.toml")
    assert spec.model == "hockney"
    assert spec.fixed == {"alpha": pytest.approx(2e-6), "beta": pytest.approx(528e6)}
    assert "as low as 2" in spec.sources["alpha"]
    assert spec.fabric is not None and spec.fabric.fixed["line_rate"] == pytest.approx(5.33e9 / 8)
    es80 = load_spec(DATA / "seeds" / "es80.spec.toml")
    assert es80.fabric is not None and es80.fabric.box == 2
    assert es80.fabric.fixed["intra_latency"] == pytest.approx(2.5e-6)
    assert set(es80.assumed) == {"alpha", "beta"}
    assert set(es80.fabric.assumed) == set(es80.fabric.fixed)  # every Marvel value assumed


@pytest.mark.parametrize(("body", "fragment"), [
    ('model = "hockney"\n[params.alpha]\nvalue = "2 parsecs"\nsource = "x"\n', "unknown time unit"),
    ('model = "hockney"\n[params.zeta]\nvalue = "2us"\nsource = "x"\n', "no parameter 'zeta'"),
    ('model = "hockney"\n[params.alpha]\nvalue = "2us"\n', "needs value and source"),
    ('model = "piecewise"\n', "model is 'piecewise'"),
    ('model = "hockney"\nrun = "import os"\n', "run: unknown key"),
])
def test_bad_specs(tmp_path: Path, body: str, fragment: str) -> None:
    p = tmp_path / "s.spec.toml"
    p.write_text('kind = "perfmodel network spec"\nschema_version = 1\n' + body)
    with pytest.raises(InputError) as info:
        load_spec(p)
    assert fragment in info.value.one_line()


def test_profiles_written_before_patterns_still_load(tmp_path: Path) -> None:
    """Profiles from before the readers issue have no inputs.pattern: it means a ping-pong."""
    p = _edit(tmp_path, 'pattern = "pingpong"\n', "")
    assert "pattern" not in p.read_text()
    assert load(p).inputs[0].pattern == "pingpong"


def test_atomic_write_makes_files_as_open_would(tmp_path: Path) -> None:
    """Not mkstemp's private 0600: the mode a plain open() gives under the umask."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        p = write_atomic(tmp_path / "figure.svg", b"<svg/>")
        q = write_atomic(tmp_path / "profile.toml", "a = 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o644 == stat.S_IMODE(q.stat().st_mode)
    assert p.read_bytes() == b"<svg/>"
