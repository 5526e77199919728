"""Bad input: one line naming the file, the line and the fix; exit code 2; nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app

BAD = Path(__file__).parent / "fixtures" / "bad"
runner = CliRunner()

# file -> (line the message must name, or None when the problem has no line; a fragment)
CASES: dict[str, tuple[int | None, str]] = {
    "empty.csv": (None, "is empty"),
    "header_only.csv": (1, "has a header but no data rows"),
    "comments_only.csv": (1, "format not recognised"),
    "missing_time_column.csv": (1, "no time or bandwidth column"),
    "missing_size_column.csv": (1, "no size column"),
    "non_numeric.csv": (3, "one_way_us is 'fast', not a number"),
    "negative_size.csv": (3, "size is negative"),
    "zero_time.csv": (3, "one_way_us is 0; it must be positive"),
    "negative_time.csv": (3, "it must be positive"),
    "zero_size_bandwidth.csv": (2, "zero-byte message has no bandwidth"),
    "nan_time.csv": (3, "one_way_us is nan"),
    "inf_time.csv": (3, "one_way_us is inf"),
    "single_point.csv": (None, "1 point(s) at 1 distinct size(s)"),
    "unknown_unit.csv": (1, "unknown time unit 'furlongs'"),
    "unknown_column.csv": (1, "unknown column 'colour'"),
    "semicolons.csv": (1, "separated by ;, not commas"),
    "missing_cell.csv": (3, "1 cells, the header has 2"),
    "extra_cell.csv": (3, "3 cells, the header has 2"),
    "binary.csv": (None, "is binary"),
    "not_utf8.csv": (2, "is not UTF-8"),
    "two_time_columns_same_role.csv": (1, "both give the one_way"),
    "bad_statistic.csv": (2, "statistic 'mode'"),
    "fractional_pairs.csv": (2, "pairs is 1.5"),
    "no_single_stream.csv": (None, "no single-stream rows"),
    "not_a_csv.txt": (1, "format not recognised (tried osu, imb"),
    "one_column.csv": (1, "no time or bandwidth column"),
    "spaces.csv": (1, "separated by spaces, not commas"),
    "size_overflow.csv": (2, "size_PiB is 1e300, inf bytes"),
    "bandwidth_overflow.csv": (2, "gives a one-way time of 0 s"),
    "tiny_times.csv": (2, "gives a one-way time of 9.99989e-321 s"),
    "huge_times.csv": (2, "gives a one-way time of 1e+300 s"),
    "underscore_number.csv": (2, "one_way_us is '1_000', not a number"),
    "fractional_size.csv": (2, "size_bytes is 1.5"),
    # benchmark outputs, cut short or of the wrong kind
    "truncated_osu.txt": (22, "OSU latency row has 1 of its 2 values (a truncated file?)"),
    "truncated_imb.txt": (None, "IMB 2021.11 output with no benchmark rows"),
    "osu_title_only.txt": (1, "has a title but no column header"),
    "netperf_banner_only.txt": (1, "netperf banner with no results"),
    "multi_pairs_only.txt": (None, "Multi-PingPong has no single-stream rows "
                                   "(pairs = 2)"),
    "npb_result.txt": (None, "holds MG (4 processes): one whole run of an application"),
    "two_benchmarks.txt": (None, "choose one with --benchmark: Uniband, Biband"),
    "unknown_format.txt": (1, "format not recognised (tried osu, imb, mpi4py-bench, netperf, "
                              "stream, npb, netpipe, csv)"),
}


def _run(args: list[str], cwd: Path) -> tuple[int, str, str, list[str]]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(app, args)
    finally:
        os.chdir(old)
    written = sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*"))
    return result.exit_code, result.stdout, result.stderr, written


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file(name: str, tmp_path: Path) -> None:
    line, fragment = CASES[name]
    path = BAD / name
    code, out, err, written = _run(["calibrate", str(path)], tmp_path)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    msg = lines[0]
    where = f"{path}:{line}:" if line is not None else f"{path}:"
    assert msg.startswith(f"error: {where}"), msg
    assert fragment in msg, msg
    assert " — " in msg, "every message says how to fix it"
    assert "Traceback" not in out + err
    assert written == [], "nothing may be written"


def test_every_bad_file_is_in_the_table() -> None:
    files = {p.name for p in BAD.iterdir() if p.suffix in (".csv", ".txt")}
    assert {f for f in files if not f.startswith("ok_")} == set(CASES)


@pytest.mark.parametrize("name", ["ok_crlf.csv", "ok_bom.csv", "ok_three_sizes.csv"])
def test_awkward_but_valid(name: str, tmp_path: Path) -> None:
    code, _, err, written = _run(["calibrate", str(BAD / name),
                                    "--no-write", "--json"], tmp_path)
    assert code == 0, err
    assert written == []


def test_directory_instead_of_file(tmp_path: Path) -> None:
    code, _, err, written = _run(["calibrate", str(BAD)], tmp_path)
    assert code == 2
    assert err.strip() == f"error: {BAD}: is a directory, not a file — give a measurement file"
    assert written == []


def test_missing_file(tmp_path: Path) -> None:
    code, _, err, _ = _run(["calibrate", "nope.csv"], tmp_path)
    assert code == 2 and err.strip() == "error: nope.csv: no such file — check the path"


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "secret.csv"
    p.write_text("size_bytes,one_way_us\n1,1\n")

    def deny(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", deny)  # root may read anything: simulate a refusal
    code, _, err, _ = _run(["calibrate", str(p)], tmp_path)
    assert code == 2
    assert err.strip() == (f"error: {p}: cannot be read (permission denied) — "
                           "check the file's permissions")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--fix", "beta=fast"], "--fix 'beta=fast'"),
    (["--fix", "zeta=1us"], "no model has that parameter"),
    (["--fix", "beta"], "is not NAME=VALUE"),
    (["--model", "magic"], "unknown network model 'magic'"),
    (["--name", "../escape"], "not a usable file name"),
    (["--fix", "beta=0B/s"], "bandwidth and must be at least 1 B/s"),
    (["--fix", "beta=1e-300B/s"], "bandwidth and must be at least 1 B/s"),
    (["--model", "packet", "--fix", "mtu=0"], "mtu is a size and must be at least 1 byte"),
    (["--fix", "alpha=-1us"], "alpha is a time and cannot be negative"),
])
def test_bad_options(args: list[str], fragment: str, tmp_path: Path) -> None:
    mpich = Path(__file__).resolve().parent.parent / "data" / "mpi4py" / "pingpong_mpich.csv"
    code, _, err, written = _run(["calibrate", str(mpich), *args], tmp_path)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and fragment in err
    assert written == []


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--debug", "calibrate", str(BAD / "empty.csv")])
    assert result.exit_code != 0 and result.exception is not None
