"""perfmodel installed outside the repository, as docs/install.md tells a user to: the wheel
carries everything the commands need (the built-in model files among them), and the installed
command works from a directory that is not the checkout.

Both build from a copy of what the package is made of (``pyproject.toml``, ``README.md``,
``perfmodel/``), so nothing else of the checkout can be leaned on and no build folder is left
in it. ``pip install .`` is checked on the wheel pip builds (offline: the test environment's
setuptools, from the ``test`` extra), installed into a folder of its own with the test
environment's dependencies; ``pipx install .`` is checked in full (a fresh virtual environment
with every dependency from the package index), where pipx is installed (the ``test`` extra
installs it)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CALIBRATION, MPICH, ROOT

# what a new user runs first: every one must work outside the checkout
COMMANDS = [
    ["--version"],
    ["models"],
    ["calibrate", str(MPICH), "--name", "here", "--out", "here.toml"],
    ["network", "here.toml", "--sizes", "1B,1MiB", "--json"],
    ["predict", "npb-ep", "--machine", str(CALIBRATION / "es80.toml"), "--nodes", "1,2,4"],
]


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(argv)}:\n{done.stdout}\n{done.stderr}"
    return done


def _source(tmp_path: Path) -> Path:
    """A copy of the files the package is built from."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "perfmodel", src / "perfmodel",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    return src


def _outside(env: dict[str, str]) -> dict[str, str]:
    """The environment less anything that would find the checkout's own package."""
    env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["COLUMNS"] = "120"
    return env


def test_pip_install_dot_works_outside_the_repository(tmp_path: Path) -> None:
    wheels, site, work = tmp_path / "wheels", tmp_path / "site", tmp_path / "work"
    work.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels),
          str(_source(tmp_path))], cwd=tmp_path)
    (wheel,) = wheels.glob("perfmodel-*.whl")
    _run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], cwd=tmp_path)
    env = _outside(dict(os.environ))
    env["PYTHONPATH"] = str(site)         # before site-packages, so before the editable install
    where = _run([sys.executable, "-P", "-c", "import perfmodel; print(perfmodel.__file__)"],
                 cwd=work, env=env).stdout.strip()
    assert Path(where).is_relative_to(site), f"imported {where}, not the installed wheel"
    main = "import sys; from perfmodel.cli.app import main; sys.argv[0] = 'perfmodel'; main()"
    for argv in COMMANDS:
        _run([sys.executable, "-P", "-c", main, *argv], cwd=work, env=env)
    assert (work / "here.toml").is_file()


@pytest.mark.skipif(importlib.util.find_spec("pipx") is None,
                    reason="pipx is not installed (make test installs it with the test extra)")
def test_pipx_install_dot_works_outside_the_repository(tmp_path: Path) -> None:
    """A fresh virtual environment, every dependency from the index: about 40 s."""
    home, bin_dir, work = tmp_path / "pipx", tmp_path / "bin", tmp_path / "work"
    work.mkdir()
    env = _outside(dict(os.environ))
    env.update(PIPX_HOME=str(home), PIPX_BIN_DIR=str(bin_dir), PIPX_MAN_DIR=str(tmp_path / "man"))
    _run([sys.executable, "-m", "pipx", "install", str(_source(tmp_path))], cwd=work, env=env)
    exe = bin_dir / "perfmodel"
    assert exe.exists()
    for argv in COMMANDS:
        _run([str(exe), *argv], cwd=work, env=env)
    assert (work / "here.toml").is_file()
