"""Property-based fuzzing of the command-line options: whatever text an option is given, the
command answers (exit 0, or 1 when a plan finds nothing) or refuses with one line and exit 2;
never a traceback, never a file written.

Each example runs the real entry point, :func:`perfmodel.cli.app.main`, in this process (usage
errors included), with one option of a working command line replaced by fuzzed text.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfmodel.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "fixtures" / "bad"
MPICH = str(ROOT / "data" / "mpi4py" / "pingpong_mpich.csv")
HYGLAC = str(ROOT / "calibration" / "hyglac.toml")          # has a switched fabric
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")   # a shared fabric, two channels
TOY = str(BAD / "models" / "ok_model.toml")
RUNS = str(BAD / "timings" / "ok_timings.csv")
PO = str(ROOT / "data" / "seeds" / "physical-optics.csv")
CATALOGUE = str(ROOT / "data" / "catalogues" / "hyglac-1997.toml")
GIVEN = ["--set", "work=10", "--set", "hop=0.01"]

# working command lines; "X" is where the fuzzed text goes
TEMPLATES: list[list[str]] = [
    ["network", HYGLAC, "--sizes", "X"],
    ["network", BEOWULF, "--pairs", "X"],
    ["network", BEOWULF, "--channels", "X"],
    ["network", HYGLAC, "--senders", "X"],
    ["network", BEOWULF, "--link-speed", "X", "--pairs", "1,2"],
    ["network", BEOWULF, "--processes", "X", "--sizes", "8KiB"],
    ["network", BEOWULF, "--processes", "2,4", "--placement", "X"],
    ["network", HYGLAC, "--level", "X"],
    ["calibrate", MPICH, "--set", "X", "--no-write", "--quiet"],
    ["calibrate", MPICH, "--model", "X", "--no-write", "--quiet"],
    ["calibrate", MPICH, "--benchmark", "X", "--no-write", "--quiet"],
    ["calibrate", MPICH, "--name", "X", "--no-write", "--quiet"],
    ["calibrate", MPICH, "--topology", "X", "--no-write", "--quiet"],
    ["inspect", MPICH, "--rows", "X"],
    ["predict", TOY, *GIVEN, "--nodes", "X"],
    ["predict", TOY, "--set", "X", "--set", "hop=0.01"],
    ["predict", TOY, *GIVEN, "--size", "X", "--nodes", "2"],
    ["predict", TOY, *GIVEN, "--machine", HYGLAC, "--link-speed", "X"],
    ["predict", TOY, *GIVEN, "--scaling", "X"],
    ["scaling", PO, "--where", "X", "--where", "machine=beowulf", "--where", "part=I"],
    ["scaling", RUNS, "--nodes", "X"],
    ["scaling", RUNS, "--scaling", "X"],
    ["whatif", TOY, "-m", HYGLAC, *GIVEN, "--vary", "X"],
    ["whatif", TOY, "-m", HYGLAC, *GIVEN, "--vary", "nodes=1..4", "--worth", "X"],
    ["plan", TOY, "-m", HYGLAC, *GIVEN, "--candidates", CATALOGUE, "--target-time", "X"],
    ["plan", TOY, "-m", HYGLAC, *GIVEN, "--candidates", CATALOGUE, "--nodes", "X",
     "--budget", "20000"],
    # an --out that exists: measure refuses before it would start any MPI job
    ["measure", "--sizes", "X", "--out", "taken.csv"],
    ["measure", "--pattern", "X", "--out", "taken.csv"],
    ["measure", "--counts", "X", "--pattern", "pairs", "--np", "4", "--out", "taken.csv"],
]
ODD = ["", " ", "-", "--", "-1", "0", "1", "nan", "inf", "-inf", "1e999", "1e-999", "..", "1..",
       "..8", "8..1", "1..1e9", "1..100000000", "1,,2", ",", "=", "a=", "=1", "beta=", "x=y=z",
       "nodes=", "nodes=0..4", "channels=-1", "link-speed=0Mbps", "latency=-1us",
       "beta=1e400B/s", "1KiB..1TiB", "0B", "1PiB", "9" * 400, "١٢", "²", "1_000", "0x10",
       "1.5", "2.5..3", "NaN..4", "1\x00", "\n", "hockney\n", "'; rm -rf /", "${HOME}",
       "../../etc/passwd", "1Mbps", "1 furlong", "10Mb", "60s", "-60s", "1e308s"]
FUZZ = settings(max_examples=600, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _invoke(args: list[str], cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old_argv, old_cwd = sys.argv, Path.cwd()
    sys.argv = ["perfmodel", *args]
    os.chdir(cwd)
    code: int | str | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    return (code if isinstance(code, int) else 0 if code is None else 2), out.getvalue(), \
        err.getvalue()


@FUZZ
@given(st.sampled_from(range(len(TEMPLATES))),
       st.one_of(st.sampled_from(ODD), st.text(max_size=24)))
def test_any_option_text_answers_or_refuses_in_one_line(which: int, value: str) -> None:
    args = [value if a == "X" else a for a in TEMPLATES[which]]
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        (work / "taken.csv").write_text("mine\n")
        code, _, err = _invoke(args, work)
        assert code in (0, 1, 2), (args, code, err)
        assert "Traceback" not in err, (args, err)
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
            assert " — " in lines[0], (args, err)
        assert sorted(p.name for p in work.iterdir()) == ["taken.csv"], args
        assert (work / "taken.csv").read_text() == "mine\n"


def test_every_template_works_with_a_good_value() -> None:
    """The templates are working command lines, so a refusal is the fuzzed value's doing."""
    good = {"--size": "8KiB", "--pairs": "1,2", "--channels": "1,2", "--senders": "1..3",
            "--link-speed": "100Mbps", "--processes": "2,4", "--placement": "cyclic",
            "--level": "0.9", "--model": "hockney",
            "--benchmark": "pingpong", "--name": "x", "--topology": "shared", "--rows": "2",
            "--nodes": "1,2,4", "--set": "work=10", "--where": "table=1", "--predict": "32,64",
            "--scaling": "strong", "--vary": "nodes=1..4", "--worth": "0.1",
            "--target-time": "60s", "--sizes": "8B", "--pattern": "pairs", "--counts": "1,2"}
    for template in TEMPLATES:
        at = template.index("X")
        value = "16" if template[at + 1:at + 2] == ["--nodes"] else good[template[at - 1]]
        if template[0] == "calibrate" and template[at - 1] == "--set":   # a network parameter
            value = "beta=1GB/s"
        args = [value if a == "X" else a for a in template]
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "taken.csv").write_text("mine\n")
            code, _, err = _invoke(args, Path(d))
        if template[0] == "measure":   # refused only for the existing --out
            assert code == 2 and "taken.csv: exists already" in err, (args, err)
        else:
            assert code in (0, 1), (args, err)
