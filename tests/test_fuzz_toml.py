"""Property-based fuzzing of the TOML inputs: profiles, network specs, application models,
saved fits, hardware catalogues and report specifications, each a good file cut, shuffled or
edited at random.  Whatever the edit, the loader either accepts the file or raises one of
perfmodel's own errors with a one-line message naming the file; nothing else escapes, and no
text is ever run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfmodel.apps.model_file import load as load_model
from perfmodel.apps.saved import load as load_saved
from perfmodel.errors import PerfModelError
from perfmodel.machine.profile import load as load_profile
from perfmodel.network.spec import load_spec
from perfmodel.report.spec import load as load_report
from perfmodel.whatif.catalogue import load as load_catalogue

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "fixtures" / "bad"
TOY = load_model(BAD / "models" / "ok_model.toml")

LOADERS: dict[str, tuple[Path, Callable[[Path], Any]]] = {
    "profile": (ROOT / "calibration" / "beowulf-1995.toml", load_profile),
    "spec": (ROOT / "data" / "seeds" / "hyglac-sockets.spec.toml", load_spec),
    "model": (ROOT / "perfmodel" / "apps" / "models" / "physical-optics.toml", load_model),
    "saved": (BAD / "saved" / "ok_saved.toml", lambda p: load_saved(p, TOY)),
    "catalogue": (ROOT / "data" / "catalogues" / "hyglac-1997.toml", load_catalogue),
}
TEXTS = {k: path.read_text() for k, (path, _) in LOADERS.items()}
VALUES = ["-1", "0", "nan", "inf", "-inf", "1e308", "1e-320", '""', '"x"', "true", "[]", "{}",
          "[1, 2]", '"1 furlong"', '"1e999s"', '"-5us"', '"__import__(\'os\')"', "9" * 30,
          '"p ^ 9 ^ 9"', '"(((((((((p)))))))))"', '"log2(0)"', '"1 / 0"', "2", '"a = b"']
EDITS = st.sampled_from(["drop", "duplicate", "value", "truncate", "swap", "blank", "key"])
FUZZ = settings(max_examples=400, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _edit(text: str, edits: list[tuple[str, int, int]]) -> str:
    lines = text.splitlines()
    for kind, at, pick in edits:
        if not lines:
            break
        i = at % len(lines)
        if kind == "drop":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "truncate":
            lines = lines[:i]
        elif kind == "swap":
            j = pick % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "blank":
            lines[i] = ""
        elif kind == "key" and "=" in lines[i]:
            lines[i] = "odd_key" + lines[i][lines[i].index("=") - 1:]
        elif "=" in lines[i]:
            lines[i] = lines[i][: lines[i].index("=") + 1] + " " + VALUES[pick % len(VALUES)]
    return "\n".join(lines) + "\n"


@FUZZ
@given(st.sampled_from(sorted(LOADERS)),
       st.lists(st.tuples(EDITS, st.integers(0, 10_000), st.integers(0, 10_000)),
                max_size=4))
def test_edited_toml_files_load_or_fail_in_one_line(kind: str,
                                                     edits: list[tuple[str, int, int]]) -> None:
    path, loader = LOADERS[kind]
    with tempfile.TemporaryDirectory() as d:
        target = Path(d) / path.name
        target.write_text(_edit(TEXTS[kind], edits))
        try:
            loader(target)
        except PerfModelError as exc:
            assert edits, f"the unedited copy of {path.name} must load: {exc}"
            line = exc.one_line()
            assert "\n" not in line and str(target) in line, line
            assert exc.fix, line


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.lists(st.tuples(EDITS, st.integers(0, 10_000),
                                                  st.integers(0, 10_000)), max_size=3))
def test_edited_report_specifications_load_or_fail_in_one_line(
        which: int, edits: list[tuple[str, int, int]]) -> None:
    """Report specifications name files relative to their folder (../../calibration, ../../data):
    the edited copy sits two folders down in a scratch tree that links to the real ones."""
    specs = sorted((ROOT / "reports" / "specs").glob("*.toml"))
    spec = specs[which % len(specs)]
    with tempfile.TemporaryDirectory() as d:
        for name in ("calibration", "data"):
            (Path(d) / name).symlink_to(ROOT / name)
        target = Path(d) / "reports" / "specs" / spec.name
        target.parent.mkdir(parents=True)
        target.write_text(_edit(spec.read_text(), edits))
        try:
            load_report(target)
        except PerfModelError as exc:
            assert edits, f"the unedited copy of {spec.name} must load: {exc}"
            assert "\n" not in exc.one_line() and exc.fix
            assert str(target) in exc.one_line(), exc.one_line()   # the spec is at fault
