"""Outputs are written atomically and never over an existing file without ``--force``.

Every command that writes is tried on a file that is already there: without ``--force`` it is
refused with one line and the file keeps its bytes; with ``--force`` it is replaced.  A real
``perfmodel calibrate --force`` process is killed in the middle of writing its profile, and the
profile it was replacing is found whole.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app
from perfmodel.machine.profile import load

ROOT = Path(__file__).resolve().parent.parent
MPICH = str(ROOT / "data" / "mpi4py" / "pingpong_mpich.csv")
TOY = str(ROOT / "tests" / "fixtures" / "bad" / "models" / "ok_model.toml")
TIMINGS = str(ROOT / "tests" / "fixtures" / "bad" / "timings" / "ok_timings.csv")
HYGLAC = str(ROOT / "calibration" / "hyglac.toml")
runner = CliRunner()

# command -> its arguments, writing to "{}"
WRITERS: dict[str, list[str]] = {
    "calibrate": ["calibrate", MPICH, "--out", "{}", "--quiet"],
    "predict --save": ["predict", TOY, "--fit", TIMINGS, "--save", "{}"],
    "whatif --plot": ["whatif", TOY, "-m", HYGLAC, "--fit", TIMINGS, "--vary", "nodes=1..8",
                      "--plot", "{}"],
    "report": ["report", str(ROOT / "calibration" / "hyglac-mpi.toml"), "--out", "{}"],
}
SUFFIX = {"calibrate": ".toml", "predict --save": ".toml", "whatif --plot": ".svg",
          "report": ".md"}
PRECIOUS = "precious: written by hand, not to be lost\n"


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_an_existing_output_is_kept_without_force(command: str, tmp_path: Path) -> None:
    target = tmp_path / f"out{SUFFIX[command]}"
    target.write_text(PRECIOUS)
    args = [a.replace("{}", str(target)) for a in WRITERS[command]]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2, refused.output
    assert refused.stderr.strip() == (f"error: {target}: exists already — use --force to "
                                      "replace it, or another name")
    assert target.read_text() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name], "nothing else written"
    forced = runner.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    assert target.read_text() != PRECIOUS


def test_a_directory_is_never_an_output(tmp_path: Path) -> None:
    for command, args in WRITERS.items():
        target = tmp_path / f"dir{SUFFIX[command]}"
        target.mkdir(exist_ok=True)
        result = runner.invoke(app, [*[a.replace("{}", str(target)) for a in args], "--force"])
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.strip().startswith(f"error: {target}: is a directory"), command


# Runs perfmodel's CLI in a fresh interpreter whose fsync, the last step before the rename,
# kills the process: the new profile is then complete in its temporary file, and not yet in place.
_KILL_AT_FSYNC = textwrap.dedent("""
    import os, signal, sys
    def die(fd):
        os.write(2, b"killed while writing\\n")
        os.kill(os.getpid(), signal.SIGKILL)
    os.fsync = die
    from perfmodel.cli.app import main
    sys.argv = ["perfmodel", *sys.argv[1:]]
    main()
""")


def test_a_write_killed_midway_leaves_the_previous_file_intact(tmp_path: Path) -> None:
    target = tmp_path / "profile.toml"
    first = runner.invoke(app, ["calibrate", MPICH, "--out", str(target), "--quiet",
                                "--model", "hockney"])
    assert first.exit_code == 0, first.output
    before = target.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run([sys.executable, "-c", _KILL_AT_FSYNC, "calibrate", MPICH,
                             "--out", str(target), "--force", "--quiet", "--model",
                             "piecewise"], capture_output=True, text=True, env=env, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert "killed while writing" in killed.stderr
    assert target.read_bytes() == before          # the old profile, whole
    assert load(target).network.kind == "hockney"
    left = [p.name for p in tmp_path.iterdir() if p.name != target.name]
    assert len(left) == 1 and left[0].startswith(".profile.toml.") and left[0].endswith(".tmp")
    assert "piecewise" in (tmp_path / left[0]).read_text()   # the new one never replaced it


def test_a_filesystem_without_hard_links_still_gets_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where os.link is refused (EPERM on some network mounts) the write falls back to a
    rename after the check, and still never replaces an existing file without force."""
    from perfmodel.errors import OutputError
    from perfmodel.io import write_atomic

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refuse)
    p = write_atomic(tmp_path / "a.toml", "one\n")
    assert p.read_text() == "one\n"
    import perfmodel.io

    # the file appears after the first check (another process): the rename is still refused
    monkeypatch.setattr(perfmodel.io, "check_writable", lambda path, force=False: Path(path))
    with pytest.raises(OutputError, match="exists already"):
        write_atomic(p, "two\n")
    assert p.read_text() == "one\n"
    assert [q.name for q in tmp_path.iterdir()] == ["a.toml"]


@pytest.mark.parametrize("args", [[], ["--name", "given"]])
def test_calibrate_checks_its_default_profile_before_reading(args: list[str], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """calibration/NAME.toml (NAME from --name or the first input) is refused before any
    input is read: not after a fit that may take minutes."""
    import perfmodel.readers
    from tests.conftest import invoke_in

    name = args[1] if args else "pingpong_mpich"
    (tmp_path / "calibration").mkdir()
    (tmp_path / "calibration" / f"{name}.toml").write_text("keep me\n")

    def never(*_: object, **__: object) -> None:
        raise AssertionError("an input was read")

    monkeypatch.setattr(perfmodel.readers, "read", never)
    done = invoke_in(tmp_path, ["calibrate", MPICH, *args])
    assert done.exit_code == 2, done.output
    assert f"calibration/{name}.toml: exists already" in done.output
    assert (tmp_path / "calibration" / f"{name}.toml").read_text() == "keep me\n"


def test_force_keeps_the_permissions_of_what_it_replaces(tmp_path: Path) -> None:
    from tests.conftest import invoke_in

    for mode in (0o444, 0o640):
        target = tmp_path / f"m{mode:o}.toml"
        target.write_text("old\n")
        target.chmod(mode)
        done = invoke_in(tmp_path, ["calibrate", MPICH, "--out", target.name, "--force",
                                    "--quiet"])
        assert done.exit_code == 0, done.output
        assert load(target).name == "pingpong_mpich"
        assert target.stat().st_mode & 0o777 == mode
