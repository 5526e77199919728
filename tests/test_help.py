"""The help a newcomer acts on: every command shows two or three examples, and each one runs
from the repository's root as it is written (only ``--out`` moved into a temporary folder);
no Python type names (``<bool>``, ``<list[str]>``); no sentence broken by the source's line
breaks; one meaning per short option; a bad value of a shared option refused the same way in
every command; shell completion."""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from perfmodel.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and (BIN / "mpiexec").is_file()
runner = CliRunner(env={"COLUMNS": "200"})
narrow = CliRunner(env={"COLUMNS": "80"})    # examples must read (and paste) on 80 columns
TYPE_NAMES = ("<bool>", "<str>", "<path>", "<list[", "<int", "<float", "<file>", "<dir>")


def _commands() -> dict[str, Any]:
    group = typer.main.get_command(app)
    return {name: group.get_command(None, name) for name in group.list_commands(None)}  # type: ignore[attr-defined, arg-type]


def _examples(name: str) -> list[str]:
    """The example command lines under 'Examples:' in ``perfmodel NAME --help`` on an
    80-column terminal, each continued line (`` \\``) joined to its command; no line of them
    wraps there (a wrapped example pastes as two broken commands)."""
    text = narrow.invoke(app, [name, "--help"]).stdout
    _, found, tail = text.partition("Examples:")
    assert found, f"perfmodel {name} --help shows no examples"
    commands: list[str] = []
    joining = False
    for line in (raw.strip() for raw in tail.splitlines()):
        if not line:
            continue
        if joining:
            commands[-1] += " " + line.removesuffix("\\").strip()
        elif line.startswith(("perfmodel ", "mpiexec ")):
            commands.append(line.removesuffix("\\").strip())
        else:
            raise AssertionError(f"perfmodel {name} --help: {line!r} is no example nor the "
                                 "continuation of one (wrapped by the terminal?)")
        joining = line.endswith("\\")
    return commands


def _all_examples() -> list[tuple[str, str]]:
    return [(name, line) for name in _commands() for line in _examples(name)]


EXAMPLES = _all_examples()


def _moved(args: list[str], into: Path) -> list[str]:
    """``args`` with the file after ``--out`` moved into ``into``."""
    return [str(into / Path(a).name) if i > 0 and args[i - 1] in ("--out", "-o") else a
            for i, a in enumerate(args)]


def test_every_command_shows_two_or_three_examples() -> None:
    for name in _commands():
        examples = _examples(name)
        assert 2 <= len(examples) <= 3, (name, examples)
        assert all(f"perfmodel {name}" in line for line in examples), (name, examples)


@pytest.mark.parametrize(("name", "line"), [e for e in EXAMPLES if e[0] != "measure"],
                         ids=[e[1][:60] for e in EXAMPLES if e[0] != "measure"])
def test_each_example_runs(name: str, line: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = shlex.split(line)
    assert args[0] == "perfmodel"
    result = runner.invoke(app, _moved(args[1:], tmp_path))
    assert result.exit_code == 0, (line, result.stderr)


@pytest.mark.skipif(not HAVE_MPI, reason="mpi4py and MPICH's mpiexec not installed (the mpi "
                                         "extra)")
@pytest.mark.parametrize("line", [e[1] for e in EXAMPLES if e[0] == "measure"])
def test_each_measure_example_runs(line: str, tmp_path: Path) -> None:
    """measure starts MPI processes, so its examples run as processes: ``perfmodel`` alone
    (it starts mpiexec), or under the job's ``mpiexec``."""
    args = _moved(shlex.split(line), tmp_path)
    plain = {k: v for k, v in os.environ.items()
             if not k.startswith(("PMI_", "PMIX_", "OMPI_", "PERFMODEL_MEASURE", "SLURM_"))}
    at = args.index("perfmodel")
    cmd = [*args[:at], *([str(BIN / "perfmodel")] if at == 0 else [sys.executable, "-m",
                                                                   "perfmodel"]), *args[at + 1:]]
    if at > 0:
        cmd[0] = str(BIN / cmd[0])
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300, env=plain)
    assert done.returncode == 0, (line, done.stderr)
    assert (tmp_path / Path(args[args.index("--out") + 1]).name).is_file()


@pytest.mark.parametrize("args", [[], *([name] for name in _commands())])
def test_help_shows_no_python_type_names(args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0
    for name in TYPE_NAMES:
        assert name not in result.stdout, (args, name)


def test_help_texts_have_no_line_breaks_inside_a_paragraph() -> None:
    """The terminal wraps help, so a line break in the text breaks a sentence mid-line: only
    paragraph breaks, and the examples' lines, may be there."""
    group = typer.main.get_command(app)
    for name, command in _commands().items():
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (name, paragraph)
        heading, *lines = (command.epilog or "").split("\n")
        assert heading == "Examples:" and lines, name
        for param in command.params:
            assert "\n" not in (getattr(param, "help", None) or ""), (name, param.name)
    for paragraph in (group.help or "").split("\n\n"):
        assert "\n" not in paragraph


def test_the_command_list_breaks_no_sentence() -> None:
    """In ``perfmodel --help`` a description that goes on to a second line does so only where
    the terminal is full."""
    out = runner.invoke(app, ["--help"]).stdout
    rows = [line.strip("│ ") for line in out.splitlines() if line.startswith("│")]
    for row, after in itertools.pairwise(rows):
        if after[:1].islower() and not re.match(r"^[a-z]+\s{2,}", after):
            assert len(row) > 150, (row, after)


def test_each_short_option_has_one_meaning() -> None:
    """A short form names the same long option in every command, and a long option has the
    same short form (or none) in every command."""
    long_of: dict[str, set[str]] = {}
    short_of: dict[str, set[str]] = {}
    for command in _commands().values():
        for param in command.params:
            if param.param_type_name != "option":
                continue
            longs = [o for o in param.opts if o.startswith("--")]
            shorts = [o for o in param.opts if not o.startswith("--")]
            for short in shorts:
                long_of.setdefault(short, set()).update(longs)
            for long in longs:
                short_of.setdefault(long, set()).add(shorts[0] if shorts else "")
    assert {s: len(names) for s, names in long_of.items()} == dict.fromkeys(long_of, 1), long_of
    assert {n: s for n, s in short_of.items() if len(s) > 1} == {}
    assert long_of == {"-m": {"--machine"}, "-n": {"--nodes"}, "-s": {"--sizes"},
                       "-p": {"--processes"}, "-o": {"--out"}, "-c": {"--channels"},
                       "-l": {"--link-speed"}, "-k": {"--pairs"}, "-b": {"--benchmark"},
                       "-q": {"--quiet"}}


@pytest.mark.parametrize(("args", "suggested"), [
    (["network", "calibration/hyglac.toml", "--size", "8KiB"], "--sizes"),
    (["scaling", "data/local/jacobi2d-scaling.csv", "--predict", "32"], ""),
    (["calibrate", "-m", "hockney"], ""),
    (["inspect", "data/mpi4py/pingpong_mpich.csv", "-n", "2"], ""),
])
def test_old_names_are_gone(args: list[str], suggested: str,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, args)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "No such option" in lines[0], lines
    old = next(a for a in args if a.startswith("-"))
    assert f"No such option: {old}" in lines[0], lines
    if suggested:
        assert f"Possible options: {suggested}" in lines[0] or f"({suggested}" in lines[0], lines


@pytest.mark.parametrize("value", ["0Mbps", "-5Mbps", "1e999Mbps", "nan", "inf", "0", "1e-300bps",
                                   "1bps"])
@pytest.mark.parametrize("command", [
    ["network", "calibration/beowulf-1995.toml", "--pairs", "1,2"],
    ["predict", "ppm", "--machine", "calibration/beowulf-1995.toml", "--set", "end_wait=0.05"],
    ["scaling", "data/local/jacobi2d-scaling.csv", "--machine", "calibration/beowulf-1995.toml",
     "--message-size", "8KiB"],
])
def test_a_link_speed_that_is_no_rate_is_refused_in_every_command(
        command: list[str], value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, [*command, "--link-speed", value])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and result.stdout == "", (command, value, result.stdout)
    assert len(lines) == 1 and lines[0].startswith(f"error: --link-speed '{value}'"), lines
    assert " — " in lines[0]


@pytest.mark.parametrize(("option", "value", "commands"), [
    ("--level", "nan", ["network", "predict", "scaling", "whatif", "plan"]),
    ("--level", "1", ["network", "predict", "scaling", "whatif", "plan"]),
    ("--channels", "65", ["network", "predict", "scaling"]),
    ("--channels", "0", ["network", "predict", "scaling"]),
    ("--nodes", "0", ["predict", "scaling", "plan"]),
    ("--size", "nan", ["predict", "whatif", "plan"]),
    ("--size", "-1", ["predict", "whatif", "plan"]),
    ("--sizes", "-1", ["network", "measure"]),
    ("--sizes", "1 parsec", ["network", "measure"]),
    ("--scaling", "sideways", ["predict", "whatif", "plan", "scaling"]),
])
def test_a_shared_option_is_checked_alike_everywhere(option: str, value: str,
                                                     commands: list[str]) -> None:
    """Refused while the options are read, before any file is opened: the same line in every
    command but for the command's own name."""
    said = set()
    for name in commands:
        args = [name] if name == "measure" else [name, "nonesuch"]
        result = runner.invoke(app, [*args, option, value])
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, (name, lines)
        assert lines[0].startswith(f"error: {option} {value!r}"), (name, lines)
        said.add(lines[0])
    # scaling's --scaling has auto too; network's --channels takes several, the others one
    assert len(said) == 1 or option in ("--scaling", "--channels"), said
    assert option != "--channels" or all("1 to 64" in line for line in said), said


def test_show_completion_prints_a_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    result = CliRunner().invoke(app, ["--show-completion", "bash"], prog_name="perfmodel")
    assert result.exit_code == 0, result.output
    assert "_PERFMODEL_COMPLETE" in result.stdout and "complete " in result.stdout


def test_completion_offers_choices_and_commands() -> None:
    env = {"_PERFMODEL_COMPLETE": "complete_bash", "COMP_WORDS": "perfmodel net",
           "COMP_CWORD": "1"}
    result = CliRunner().invoke(app, [], env=env, prog_name="perfmodel")
    assert "network" in result.stdout
    env = {"_PERFMODEL_COMPLETE": "complete_bash",
           "COMP_WORDS": "perfmodel predict ppm --scaling ", "COMP_CWORD": "4"}
    result = CliRunner().invoke(app, [], env=env, prog_name="perfmodel")
    assert set(result.stdout.split()) == {"strong", "weak"}, result.stdout
