"""Tables never cut a number (issue 27): below the width a table needs, it leaves out the
columns it lets go and says which, lifts out columns with one value in every row, or stacks
its rows; sizes in binary units, one number style per column, never ``-0.0 %``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from rich import box
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from perfmodel.cli import render, tables
from perfmodel.cli.app import app
from perfmodel.cli.tables import Tabular, table_width
from perfmodel.units import (
    format_amount,
    format_change,
    format_number,
    format_range,
    format_rate,
    format_share,
    format_size,
    format_time,
)
from tests.conftest import ROOT

CUT = re.compile(r"\S…")                       # what Rich leaves where it shortens a cell
EXPONENT = re.compile(r"\d[eE][+-]?\d")        # 8.38861e+06, 1.11e-06
NEGATIVE_ZERO = re.compile(r"-0(\.0+)? ?%")
SIZE = re.compile(r"^(—|\d[\d,]*(\.\d+)? ([KMGTP]i)?B( – \d+(\.\d+)? ([KMGTP]i)?B)?)$")

BEOWULF = "calibration/beowulf-1995.toml"
APPS = "data/seeds/beowulf-1995-apps.csv"
COMMANDS: dict[str, list[str]] = {
    "calibrate": ["calibrate", "data/mpi4py/pingpong_mpich.csv", "--name", "x", "--no-write"],
    "calibrate-fabric": ["calibrate", "data/seeds/beowulf-1995-ethernet.csv", "--spec",
                         "data/seeds/beowulf-1995-ethernet.spec.toml", "--name", "x",
                         "--no-write"],
    "network": ["network", "calibration/mpi4py-mpich.toml", "--sizes", "1B,8KiB,1MiB,8MiB"],
    "network-pairs": ["network", BEOWULF, "--sizes", "4B..8KiB", "--pairs", "1..8",
                      "--channels", "1,2"],
    "network-senders": ["network", "calibration/hyglac.toml", "--sizes", "8KiB",
                        "--senders", "1..15"],
    "network-exchange": ["network", "calibration/es80.toml", "--sizes", "1B..4MiB",
                         "--processes", "2,4"],
    "inspect": ["inspect", "tests/fixtures/benchmarks/imb_mpi1.txt",
                "tests/fixtures/benchmarks/netperf_tcp_rr_omni_O.txt",
                "tests/fixtures/benchmarks/stream.txt"],
    "predict": ["predict", "ppm", "--machine", BEOWULF, "--fit", APPS, "--where", "code=ppm",
                "--where", "use=fit", "--nodes", "1,8,16"],
    "predict-is": ["predict", "npb-is", "--machine", "calibration/es80.toml", "--nodes",
                   "1,2,4"],
    "predict-po": ["predict", "physical-optics", "--fit", "data/seeds/physical-optics.csv",
                   "--where", "machine=t3d", "--size", "4900", "--nodes", "1..4,8,16,32"],
    "scaling": ["scaling", "data/public/archer-benchmarks/gromacs-large-archer.csv"],
    "whatif": ["whatif", "nbody", "--machine", BEOWULF, "--candidates",
               "data/catalogues/beowulf-1995.toml", "--fit", APPS, "--where", "code=nbody",
               "--vary", "nodes=1..16", "--vary", "network=all", "--vary", "channels=1,2"],
    "plan": ["plan", "physical-optics", "--machine", "calibration/hyglac.toml",
             "--candidates", "data/catalogues/hyglac-1997.toml", "--fit",
             "data/seeds/physical-optics.csv", "--where", "machine=beowulf", "--where",
             "table=1", "--target-time", "45s"],
    "models": ["models"],
}
RENAMED = {"--sizes": "--size"}   # the flag's name before issue 27's renaming


def invoke(argv: list[str], columns: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(ROOT)
    runner = CliRunner(env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    result = runner.invoke(app, argv)
    if result.exit_code == 2 and "No such option" in result.output:
        result = runner.invoke(app, [RENAMED.get(a, a) for a in argv])
    assert result.exit_code == 0, result.output
    return result


class Spy:
    """Every table the CLI printed and what :func:`tables.fit` made of it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[Table, int, list[Any]]] = []
        real = tables.fit

        def spy(t: Table, out: Console, width: int) -> list[Any]:
            parts = real(t, out, width)
            self.calls.append((t, width, parts))
            return parts

        monkeypatch.setattr(tables, "fit", spy)


def _cells(col: Any) -> tuple[str, ...]:
    return tuple(tables._plain(c) for c in col.cells)


def _text(parts: list[Any]) -> str:
    return "\n".join(p for p in parts if isinstance(p, str))


def check_fitted(t: Table, width: int, parts: list[Any]) -> None:
    """Every column of ``t`` is shown whole, said to be the same in every row, or named in the
    note that says it was left out; and what is shown is no wider than ``width``."""
    shown = [p for p in parts if isinstance(p, Table)]
    assert shown
    said = _text(parts)
    if "one block per row" in said:
        return                                   # stacked: every column is in every block
    (table,) = shown
    out = Console(width=width)
    assert table_width(out, table, list(range(len(table.columns)))) <= width
    kept = {(tables._plain(c.header), _cells(c)) for c in table.columns}
    for i, col in enumerate(t.columns):
        cells = _cells(col)
        if (tables._plain(col.header), cells) in kept or tables._blank(col):
            continue
        if len(set(cells)) == 1 and "every row:" in said:
            assert cells[0] in said
            continue
        assert "left out at" in said and tables._label(t, i) in said, (tables._label(t, i), said)


def check_cells(t: Table) -> None:
    """One number style per column of figures (prose may quote what it likes): no exponent;
    no ``-0.0 %``; sizes in binary units."""
    for col in t.columns:
        header = tables._plain(col.header)
        for cell in _cells(col):
            assert col.no_wrap or not NEGATIVE_ZERO.search(cell), (header, cell)
            if not col.no_wrap:
                continue
            assert not EXPONENT.search(cell), (header, cell)
            assert not NEGATIVE_ZERO.search(cell), (header, cell)
            if header in ("size", "sizes") and cell:
                assert SIZE.match(cell) or re.fullmatch(r"[\d,]+", cell), (header, cell)


def check_output(text: str) -> None:
    assert not CUT.search(text), CUT.search(text)
    assert not NEGATIVE_ZERO.search(text)


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_command_cuts_a_number(name: str, columns: int,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    result = invoke(COMMANDS[name], columns, monkeypatch)
    check_output(result.output)
    assert spy.calls, "the command printed no table through tables.console()"
    for t, width, parts in spy.calls:
        assert width == columns
        check_cells(t)
        check_fitted(t, width, parts)


def test_predict_at_80_columns_leaves_out_columns_and_says_which(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    text = invoke(COMMANDS["predict"], 80, monkeypatch).output
    table, _, parts = spy.calls[0]
    headers = [tables._plain(c.header) for c in table.columns]
    assert headers[:4] == ["nodes", "size", "time", "95 % range"]
    note = _text(parts)
    assert "left out at 80 columns" in note and "--json" in note
    assert "Karp–Flatt" in note and "MFLOPS" in note
    assert "every row: size 16" in text           # one problem size: said once, not per row
    for row in ("9.6 s", "8.11–11.4 s", "5.89 ±0.39", "73.7 %", "26.3 ±4.9 %"):
        assert row in text


def test_predict_numbers_match_its_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table shows the domain's numbers in one style: the problem size of NPB IS (2^23
    keys) in full, the overhead shares as the JSON's fractions to 0.1 %."""
    doc = json.loads(invoke([*COMMANDS["predict-is"], "--json"], 200, monkeypatch).stdout)
    assert [r["size"] for r in doc["rows"]] == [2.0**23] * 3
    text = invoke(COMMANDS["predict-is"], 200, monkeypatch).output
    assert "8,388,608" in text and "e+06" not in text
    for row in doc["rows"]:
        assert format_share(row["efficiency"]) in text
        assert format_share(row["overhead_communication"]) in text


def test_network_sizes_are_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(invoke([*COMMANDS["network"], "--json"], 200, monkeypatch).stdout)
    sizes = [r["size"] for r in doc["rows"]]
    assert sizes == [1.0, 8192.0, 2.0**20, 2.0**23]
    text = invoke(COMMANDS["network"], 80, monkeypatch).output
    for s, shown in zip(sizes, ("1 B", "8 KiB", "1 MiB", "8 MiB"), strict=True):
        assert format_size(s) == shown
        assert re.search(rf"^\s*{shown}\s", text, re.M)


# --- the printer itself ------------------------------------------------------------------------

def _table(**kwargs: Any) -> Tabular:
    t = Tabular(**kwargs)
    t.column("nodes")
    t.column("time")
    t.column("comm.", drop=2)
    t.column("Karp–Flatt", drop=1)
    t.column("", drop=3, name="the extrapolated mark")
    for p in (1, 2, 4, 1024):
        t.add_row(format_number(p), format_time(1000 / p), format_share(1e-4 * p),
                  f"{0.001 * p:.3f}", "extrapolated" if p > 4 else "")
    return t


def _render(parts: list[Any], width: int) -> str:
    out = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for p in parts:
        out.print(p)
    out.file.close()
    return out.export_text()


@pytest.mark.parametrize("style", [
    {}, {"box": box.HEAVY_HEAD, "pad_edge": True}, {"box": None}, {"box": box.SIMPLE_HEAD,
                                                                     "show_edge": False}])
def test_table_width_is_what_rich_draws(style: dict[str, Any]) -> None:
    """The width :func:`table_width` computes is the width Rich gives the table when nothing
    constrains it: the test of the arithmetic that decides what to leave out."""
    t = _table(**style)
    out = Console(width=500)
    drawn = max(len(line.rstrip("\n")) for line in _render([t], 500).splitlines())
    assert table_width(out, t, list(range(len(t.columns)))) == drawn


def test_a_table_that_fits_is_printed_as_it_is() -> None:
    t = _table()
    wide = table_width(Console(width=500), t, list(range(5)))
    assert tables.fit(t, Console(width=wide), wide) == [t]


def test_columns_go_lowest_first_and_are_named() -> None:
    t = _table()
    full = table_width(Console(width=500), t, list(range(5)))
    parts = tables.fit(t, Console(width=full - 5), full - 5)
    (shown,) = [p for p in parts if isinstance(p, Table)]
    assert [tables._plain(c.header) for c in shown.columns] == ["nodes", "time", "comm.", ""]
    assert "left out at" in _text(parts) and "Karp–Flatt" in _text(parts)
    check_fitted(t, full - 5, parts)
    text = _render(parts, full - 5)
    assert not CUT.search(text) and "1,024" in text and "977 ms" in text


def test_a_narrow_column_left_out_early_comes_back_when_it_fits() -> None:
    t = Tabular()
    t.column("a")
    t.column("narrow", drop=1)
    t.column("wide", drop=2)
    t.add_row("1", "2", "x" * 30)
    width = table_width(Console(width=500), t, [0, 1])
    parts = tables.fit(t, Console(width=width), width)
    (shown,) = [p for p in parts if isinstance(p, Table)]
    assert [tables._plain(c.header) for c in shown.columns] == ["a", "narrow"]
    assert "wide" in _text(parts) and "narrow" not in _text(parts)


def test_one_value_in_every_row_is_said_once() -> None:
    t = Tabular()
    t.column("nodes")
    t.column("network")
    t.column("time")
    for p in (1, 2):
        t.add_row(str(p), "fast-ethernet-bay28115", f"{10 / p:g} s")
    width = table_width(Console(width=500), t, [0, 2])
    parts = tables.fit(t, Console(width=width), width)
    assert "every row: network fast-ethernet-bay28115" in _text(parts)
    assert "left out" not in _text(parts)


def test_too_narrow_for_any_table_stacks_the_rows() -> None:
    t = _table()
    parts = tables.fit(t, Console(width=12), 12)
    assert "one block per row" in _text(parts)
    text = _render(parts, 24)
    assert not CUT.search(text)
    for value in ("1,024", "977 ms", "10.2 %", "1.024", "extrapolated", "Karp–Flatt"):
        assert value in text


def test_prose_folds_and_is_never_cut() -> None:
    t = Tabular()
    t.column("name", justify="left")
    t.column("status", justify="left", prose=True)
    t.add_row("end_wait", "fixed: " + "a_very_long_source_reference_without_spaces " * 3)
    parts = tables.fit(t, Console(width=40), 40)
    assert not CUT.search(_render(parts, 40))


def test_the_console_fits_every_table_it_prints(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """tables.console() fits a plain Rich table too (one a view built without Tabular)."""
    monkeypatch.setenv("COLUMNS", "30")
    plain = Table("name", "about")
    plain.add_row("hockney", "latency + size / bandwidth, the simplest law of a message")
    plain.add_row("piecewise", "Hockney segments between protocol switches")
    tables.console().print(plain)
    out = capsys.readouterr().out
    assert not CUT.search(out) and "piecewise" in out and max(map(len, out.splitlines())) <= 30


def test_render_functions_fit_the_terminal(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The renderers called directly, on domain objects, at 60 columns: every table line fits,
    and the sizes and rates shown are the domain's, in binary and decimal units."""
    from perfmodel.machine.profile import load
    from perfmodel.network.fabric import grid
    from perfmodel.network.predict import predict

    monkeypatch.setenv("COLUMNS", "60")
    prof = load(ROOT / BEOWULF)
    pred = predict(prof.network, [4.0, 8192.0, 2.0**20], 0.95)
    render.prediction(prof, pred, BEOWULF)
    assert prof.fabric is not None
    rates = grid(prof.fabric, [8192.0], [1, 4], [1, 2], [1])
    render.rates(prof, rates, BEOWULF)
    out = capsys.readouterr().out
    check_output(out)
    rows = [line for line in out.splitlines() if line.startswith(" ")]
    assert rows and all(len(line) <= 60 for line in rows)
    assert [format_size(float(s)) for s in pred.size] == ["4 B", "8 KiB", "1 MiB"]
    for s in pred.size:
        assert re.search(rf"^\s*{format_size(float(s))}\s", out, re.M)
    for m, x in zip(rates.size, rates.message_rate, strict=True):
        assert format_rate(float(m * x)) in out     # the aggregate bandwidth, always shown


# --- the formatters ----------------------------------------------------------------------------

def test_numbers_for_tables() -> None:
    assert format_number(8388608) == "8,388,608"
    assert format_number(2482.3) == "2,482"
    assert format_number(10290.4) == "10,290"
    assert format_number(407.53) == "407.5"
    assert format_number(-0.0) == "0"
    assert format_amount(2.0**23, "B") == "8 MiB"
    assert format_amount(2.0**23, "keys") == "8,388,608"
    assert format_amount(1024, "B") == "1 KiB" and format_amount(512, "B") == "512 B"


def test_shares_never_negative_zero() -> None:
    assert format_share(-1e-9) == "0.0 %" and format_share(-0.0) == "0.0 %"
    assert format_share(-0.004, 0) == "0 %"
    assert format_change(-1e-9) == "0.0 %" and format_change(0.092) == "+9.2 %"
    assert format_change(-8.119) == "-811.9 %"


def test_ranges_keep_one_style() -> None:
    assert format_range(1.25e-6, 1.63e-6, "time") == "1.25–1.63 µs"
    assert format_range(1.11e-6, 8.87e7, "rate") == "0–88.7 MB/s"       # was 1.11e-06–88.7
    assert format_range(12.0, 8.87e7, "rate") == "12 B/s – 88.7 MB/s"
    assert format_range(2.51e-4 * 1e6, 2.32e8, "rate") == "0.000251–232 MB/s"
    for lo, hi in ((1e-9, 1.0), (3e-5, 9e7), (5.0, 5e9)):
        assert not EXPONENT.search(format_range(lo, hi, "rate"))


def test_a_table_longer_than_a_person_reads_is_cut_with_a_line() -> None:
    """10,000 rows print as the first MOST_ROWS and one line saying how many there are; the
    JSON of the same command holds every row."""
    args = ["network", str(ROOT / "calibration" / "beowulf-1995.toml"), "--pairs", "1..1000",
            "--sizes", "1KiB"]
    out = CliRunner(env={"COLUMNS": "120"}).invoke(app, args)
    assert out.exit_code == 0, out.output
    rows = [ln for ln in out.stdout.splitlines() if re.match(r"\s*1 KiB\s", ln)]
    assert len(rows) == tables.MOST_ROWS
    assert f"the first {tables.MOST_ROWS} of 1,000 rows; --json gives every one" in out.stdout
    doc = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert len(doc["rows"]) == 1000
