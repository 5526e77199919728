"""Bad input: one line naming the file, the place and the fix; exit code 2; nothing written.

The corpus is ``tests/fixtures/bad``: measurement files at its top (given to ``calibrate``), and
one folder per other kind of input, each given to the command that reads it (:data:`KINDS`).
In a folder, every bad file is its ``ok_*`` file with one thing broken (the file's name says
what), and the ``ok_*`` file itself must be accepted: so each refusal is the edit's doing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app
from tests.conftest import invoke_in

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
    "duplicated_size_only.csv": (2, "3 point(s) at 1 distinct size(s)"),
    "size_in_seconds.csv": (1, "unknown size unit 's'"),
    "time_in_bytes.csv": (1, "unknown time unit 'KiB'"),
    "nan_time.csv": (3, "one_way_us is nan"),
    "inf_time.csv": (3, "one_way_us is inf"),
    "single_point.csv": (2, "1 point(s) at 1 distinct size(s)"),
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
    "hpcg_damaged_raw_total.txt": (108, "its operations and total time give 16.52 GFLOP/s, "
                                        "but its Raw Total says 165.2"),
    "hpcg_no_final_summary.txt": (None, "HPCG summary has no Final Summary result line"),
    "hpcg_time_not_a_number.txt": (90, "no number for 'Benchmark Time Summary::Total' (it "
                                       "says 'n/a')"),
    "hpl_truncated_row.txt": (57, "HPL result row has 3 of its 6 values"),
    "hpl_damaged_gflops.txt": (57, "the row's N and time give 91.11 Gflop/s, but its Gflops "
                                   "says 911.1"),
    "hpl_all_failed.txt": (47, "every HPL run's residual check FAILED (8 runs)"),
    "hpl_no_results.txt": (45, "HPL output with no result rows"),
    "perftest_truncated_row.txt": (39, "perftest ib_write_bw row has 3 of its 4 values"),
    "perftest_damaged_msgrate.txt": (35, "the row's MsgRate gives 1.465e+11 B/s, but its BW "
                                         "average says 1.466e+10 B/s"),
    "perftest_no_rows.txt": (23, "perftest output with no data rows"),
    "perftest_no_typical.txt": (22, "perftest ib_read_lat: no t_typical column"),
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
    "mixed_osu_netperf.txt": (13, "holds the output of 2 tools (osu from line 2, netperf from "
                                  "line 13)"),
    "unknown_format.txt": (1, "format not recognised (tried osu, imb, mpi4py-bench, "
                              "mpibenchmarks-jl, netperf, perftest, netgauge, mpptest, stream, "
                              "npb, hpcc, hpl, hpcg, reframe, reframe4, sacct, extrap, netpipe, "
                              "csv)"),
}


ROOT = Path(__file__).resolve().parent.parent
MPICH = str(ROOT / "data" / "mpi4py" / "pingpong_mpich.csv")
TOY = str(BAD / "models" / "ok_model.toml")
HYGLAC = str(ROOT / "calibration" / "hyglac.toml")

# folder -> the command its files are given to ("{}" is the file); timings go to two commands
KINDS: dict[str, list[str]] = {
    "profiles": ["network", "{}"],
    "specs": ["calibrate", MPICH, "--spec", "{}", "--no-write"],
    "models": ["predict", "{}", "--set", "work=10", "--set", "hop=0.01"],
    "timings": ["predict", TOY, "--fit", "{}"],
    "timings@scaling": ["scaling", "{}"],
    "saved": ["predict", TOY, "--from", "{}", "--save", "fit.toml"],
    "catalogues": ["whatif", TOY, "-m", HYGLAC, "--set", "work=10", "--set", "hop=0.01",
                   "--candidates", "{}", "--vary", "network=all", "--vary", "nodes=1,2,4",
                   "--plot", "sweep.svg"],
    "reports": ["report", "{}", "--out", "out/r.md"],
}

_TIMINGS: dict[str, tuple[int | None, str]] = {
    "fractional_nodes.csv": (4, "nodes is 2.5"),
    "header_only.csv": (None, "a header but no timing rows"),
    "huge_nodes.csv": (4, "nodes is 1e12"),
    "inf_time.csv": (4, "time_s is inf"),
    "missing_cell.csv": (4, "2 cells where the header has 3"),
    "nan_time.csv": (4, "time_s is nan"),
    "negative_time.csv": (4, "time_s is -5.2"),
    "no_count_column.csv": (2, "the header needs a process count and a time"),
    "no_time_column.csv": (2, "the header needs a process count and a time"),
    "non_numeric.csv": (4, "nodes or time_s is not a number"),
    "semicolons.csv": (2, "columns are separated by ;, not commas"),
    "two_count_columns.csv": (2, "columns processes and ranks both name the process count"),
    "two_time_columns.csv": (2, "columns time_s and time both name a run's time"),
    "zero_nodes.csv": (3, "nodes is 0"),
}

# folder -> file -> (line the message must name, or None; a fragment of it)
KIND_CASES: dict[str, dict[str, tuple[int | None, str]]] = {
    "profiles": {
        "bad_covariance.toml": (27, "network.covariance: is not a valid 2×2 covariance"),
        "duplicate_key.toml": (23, "not valid TOML (Cannot overwrite a value)"),
        "empty.toml": (1, "is not a perfmodel machine profile"),
        "executable_value.toml": (35, "network.params.beta.value: is \"__import__('os')"),
        "inf_size_min.toml": (24, "network.size_min: is inf"),
        "missing_network.toml": (None, "network: missing or not a table"),
        "missing_param.toml": (33, "network.params: has beta; model hockney needs alpha, beta"),
        "nan_latency.toml": (34, "network.params.alpha.value: is nan"),
        "negative_bandwidth.toml": (35, "beta is a bandwidth and must be at least 1 B/s"),
        "newer_schema.toml": (3, "schema_version 2 is newer than this perfmodel reads (1)"),
        "no_schema.toml": (None, "schema_version is None"),
        "pickle.toml": (None, "is binary, not text"),
        "syntax_error.toml": (4, "not valid TOML"),
        "text_value.toml": (35, "network.params.beta.value: is 'fast', not a number"),
        "unknown_key.toml": (5, "colour: unknown key"),
        "unknown_model.toml": (21, "network.model: unknown model 'magic'"),
        "unknown_param_key.toml": (35, "network.params.beta.colour: unknown key"),
        "wrong_kind.toml": (2, "this is a perfmodel network spec, not a machine profile"),
    },
    "specs": {
        "ambiguous_unit.toml": (6, "params.beta: unknown rate unit 'Mb'"),
        "missing_unit.toml": (6, "params.beta: '11.8' has no unit"),
        "model_is_a_list.toml": (4, "model is ['hockney']"),   # found by test_fuzz_toml
        "newer_schema.toml": (3, "schema_version 3 is newer than this perfmodel reads"),
        "no_source.toml": (6, "params.beta needs value and source"),
        "syntax_error.toml": (6, "not valid TOML"),
        "time_for_rate.toml": (6, "params.beta: unknown rate unit 'us'"),
        "unknown_key.toml": (5, "warp: unknown key"),
        "unknown_param.toml": (6, "model hockney has no parameter 'gamma'"),
        "unknown_unit.toml": (6, "unknown rate unit 'furlongs/fortnight'"),
        "wrong_kind.toml": (2, "this is a perfmodel machine profile, not a network spec"),
        "zero_rate.toml": (6, "beta is a bandwidth and must be at least 1 B/s"),
    },
    "models": {
        "deep_nesting.toml": (17, "parts.main.communication: nesting deeper than 60"),
        "flops_unknown_name.toml": (6, "flops: unknown name 'speed'"),
        "formula_not_text.toml": (16, "parts.main.compute is not text"),
        "huge_number.toml": (16, "the number 1e999 is too large"),
        "name_not_text.toml": (4, "name is 3"),
        "newer_schema.toml": (3, "schema_version 2 is newer than this perfmodel reads"),
        "no_parts.toml": (None, "the model has no [parts.NAME] tables"),
        "not_a_model.toml": (2, "this is a perfmodel network spec, not an application model"),
        "param_bad_key.toml": (14, "params.hop has an unknown key 'colour'"),
        "param_value_not_number.toml": (14, "params.hop.value is 'fast'"),
        "param_without_description.toml": (15, "params.spare needs a description"),
        "power_tower.toml": (17, "the exponent 3.8742e+08 is too large"),
        "runs_dunder.toml": (17, "'.' is not allowed at column 2"),
        "runs_eval.toml": (17, "text is not part of the language"),
        "runs_import.toml": (17, "text is not part of the language"),
        "runs_lambda.toml": (17, "':' is not allowed at column 10"),
        "runs_string.toml": (17, "text is not part of the language"),
        "runs_subscript.toml": (17, "indexing is not part of the language"),
        "syntax_error.toml": (15, "not valid TOML"),
        "unbalanced.toml": (17, "missing ')' at column 13"),
        "undeclared_name.toml": (17, "unknown name 'latency'"),
        "unknown_function.toml": (17, "unknown function 'system'"),
        "unknown_key.toml": (5, "import: unknown key"),
        "unknown_term.toml": (17, "parts.main has an unknown key 'exec'"),
        "unused_param.toml": (15, "parameter 'spare' is used by no term"),
    },
    "timings": {**_TIMINGS,
                "empty.csv": (None, "no timing rows"),
                "unknown_part.csv": (4, "part 'warp': model toy has no such part")},
    "timings@scaling": {**_TIMINGS,
                        "empty.csv": (None, "is empty"),
                        "unknown_part.csv": (None, "the runs hold 2 values of part")},
    "saved": {
        "bad_span.toml": (13, "fit.processes: is [8.0, 1.0]"),
        "bad_sizes.toml": (14, "fit.sizes: is [16.0, 'big']"),
        "missing_constant.toml": (15, "params: has work; the model's constants are work, hop"),
        "nan_value.toml": (16, "params.work.value: is nan"),
        "newer_schema.toml": (3, "schema_version 2 is newer than this perfmodel reads"),
        "other_model.toml": (4, "model: is 'nbody', not 'toy'"),
        "syntax_error.toml": (11, "not valid TOML"),
        "unknown_key.toml": (5, "payload: unknown key"),
    },
    "catalogues": {
        "bad_link_speed.toml": (24, "link_speed: unknown rate unit 'parsecs'"),
        "latency_over_an_hour.toml": (25, "latency '5000s' is over an hour"),
        "link_speed_beyond_any_link.toml": (24, "is not a line rate from 1 B/s"),
        "negative_price.toml": (19, "price is -3125"),
        "newer_schema.toml": (4, "schema_version 2 is newer than this perfmodel reads"),
        "no_networks.toml": (None, "no [networks.NAME] tables"),
        "syntax_error.toml": (7, "not valid TOML"),
        "unknown_key.toml": (8, "unknown key 'discount'"),
        "unknown_reference.toml": (9, "reference is 'pentium-iii'"),
        "zero_ports.toml": (26, "ports is 0"),
    },
    "reports": {
        "bad_figures.toml": (5, "figures is 'gif'"),
        "bad_sizes.toml": (11, "profile section: sizes: unknown size unit 'KiB and up'"),
        "missing_profile.toml": (10, "no-such-machine.toml is missing"),
        "newer_schema.toml": (3, "schema_version 2 is newer than this perfmodel reads"),
        "profile_is_directory.toml": (10, "calibration is a directory"),
        "section_kind_is_a_list.toml": (8, "section kind is ['profile']"),  # test_fuzz_toml
        "syntax_error.toml": (4, "not valid TOML"),
        "unknown_key.toml": (6, "html: unknown key"),
        "unknown_section.toml": (8, "section kind is 'slideshow'"),
    },
}


def _run(args: list[str], cwd: Path) -> tuple[int, str, str, list[str]]:
    result = invoke_in(cwd, args)
    written = sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*"))
    return result.exit_code, result.stdout, result.stderr, written


def _refused(args: list[str], path: Path, line: int | None, fragment: str,
             tmp_path: Path) -> None:
    """One line on stderr naming ``path`` (and ``line``) with a fix; exit 2; nothing written."""
    code, out, err, written = _run(args, tmp_path)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    msg = lines[0]
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert msg.startswith(f"error: {where}"), msg   # and no line where none is expected
    assert fragment in msg, msg
    assert " — " in msg, "every message says how to fix it"
    assert "Traceback" not in out + err
    assert written == [], "nothing may be written"


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file(name: str, tmp_path: Path) -> None:
    line, fragment = CASES[name]
    _refused(["calibrate", str(BAD / name)], BAD / name, line, fragment, tmp_path)


def test_every_bad_file_is_in_the_table() -> None:
    files = {p.name for p in BAD.iterdir() if p.suffix in (".csv", ".txt")}
    assert {f for f in files if not f.startswith("ok_")} == set(CASES)


@pytest.mark.parametrize("name", ["ok_crlf.csv", "ok_bom.csv", "ok_three_sizes.csv"])
def test_awkward_but_valid(name: str, tmp_path: Path) -> None:
    code, _, err, written = _run(["calibrate", str(BAD / name),
                                    "--no-write", "--json"], tmp_path)
    assert code == 0, err
    assert written == []


def _folder(kind: str) -> Path:
    return BAD if kind == "measurements" else BAD / kind.partition("@")[0]


def _args(kind: str, path: Path) -> list[str]:
    command = ["calibrate", "{}"] if kind == "measurements" else KINDS[kind]
    return [a.replace("{}", str(path)) for a in command]


@pytest.mark.parametrize(("kind", "name"), [(k, n) for k in sorted(KIND_CASES)
                                            for n in sorted(KIND_CASES[k])])
def test_bad_file_of_every_kind(kind: str, name: str, tmp_path: Path) -> None:
    line, fragment = KIND_CASES[kind][name]
    path = _folder(kind) / name
    _refused(_args(kind, path), path, line, fragment, tmp_path)


@pytest.mark.parametrize("kind", sorted(KIND_CASES))
def test_every_file_of_a_kind_is_in_its_table_beside_a_good_one(kind: str,
                                                                tmp_path: Path) -> None:
    """The ``ok_*`` file each bad one is an edit of is accepted by the same command."""
    files = {p.name for p in _folder(kind).iterdir()}
    (ok,) = (f for f in files if f.startswith("ok_"))
    assert files - {ok} == set(KIND_CASES[kind])
    code, out, err, _ = _run(_args(kind, _folder(kind) / ok), tmp_path)
    assert code == 0, (out, err)


def test_the_corpus_holds_at_least_40_bad_files() -> None:
    files = set(CASES) | {f"{_folder(k).name}/{n}" for k, v in KIND_CASES.items() for n in v}
    assert len(files) >= 40


@pytest.mark.parametrize("kind", ["measurements", *sorted(KINDS)])
@pytest.mark.parametrize("problem", ["missing", "directory", "unreadable"])
def test_missing_directory_and_unreadable_files_of_every_kind(
        kind: str, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    path = tmp_path / "input.toml"
    if problem == "directory":
        path.mkdir()
    elif problem == "unreadable":
        ok = next(p for p in sorted(_folder(kind).iterdir()) if p.name.startswith("ok_"))
        path.write_bytes(ok.read_bytes())
        real = os.open

        def deny(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if Path(file) == path:   # root may read anything: simulate a refusal
                raise PermissionError(13, "Permission denied")
            return real(file, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", deny)   # every file is opened by perfmodel.io.read_file
    said = {"missing": "no such file — check the path",
            "directory": "is a directory, not a file — give ",
            "unreadable": "cannot be read (permission denied)"}[problem]
    if problem == "directory" and kind == "measurements":   # a folder is walked: this one is empty
        said = "is a folder with no files — give the folder the benchmark outputs are in"
    _refused(_args(kind, path), path, None, said, work)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--set", "beta=fast"], "--set 'beta=fast'"),
    (["--set", "zeta=1us"], "no network model has that parameter"),
    (["--set", "beta"], "is not NAME=VALUE"),
    (["--model", "magic"], "unknown network model 'magic'"),
    (["--name", "../escape"], "not a usable file name"),
    (["--set", "beta=0B/s"], "bandwidth and must be at least 1 B/s"),
    (["--set", "beta=1e-300B/s"], "bandwidth and must be at least 1 B/s"),
    (["--model", "packet", "--set", "mtu=0"], "mtu is a size and must be at least 1 byte"),
    (["--set", "alpha=-1us"], "alpha is a time and cannot be negative"),
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
