"""The documentation cannot drift from the program.

- ``docs/reference/cli.md`` is what ``perfmodel.cli.reference.render`` makes of the CLI today
  (``make docs`` rewrites it).
- Every command the README and ``docs/`` show is run through the real app, page by page, in a
  scratch folder holding copies of ``calibration/`` and ``reports/specs/`` and links to
  ``data/``, ``docs/`` and ``tests/fixtures/`` (so a command that writes a profile or a report never
  touches the checkout). A ```` ```sh ```` block is commands only; in a ```` ```console ````
  block commands start with ``$ `` and the lines after them are their output, which must be
  found in what the command prints now (numbers within 1 % or the last digit shown; a line
  holding ``…`` is an abbreviation and is not compared).
- A command ends with exit code 0 unless its line says ``# exits N``. A ``perfmodel`` command
  that cannot run here says ``# not run: REASON``; other programs are run only by the tests
  named in ``SKIPPED``, and any other line is an error, so a typo cannot hide as prose.
"""

from __future__ import annotations

import math
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app
from perfmodel.cli.reference import render

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]

# Lines of shell blocks that this test does not run, by their first words, and why.
SKIPPED = {
    "perfmodel measure": "starts MPI jobs (tests/test_measure_mpi.py runs the patterns)",
    "mpiexec": "an MPI launcher with several ranks (tests/test_measure_mpi.py)",
    "srun": "Slurm, on a cluster only",
    "make": "the Makefile's targets: make test runs the suite, make docs is checked below",
    "pip": "installs perfmodel (tests/test_install.py checks pip install . outside the checkout)",
    "pipx": "installs perfmodel (tests/test_install.py checks pipx install . outside the checkout)",
    "python": "Python one-liners and scripts of bench/ (make bench), not part of the suite",
    "perfmodel --install-completion": "changes the user's shell start-up file",
    "perfmodel --show-completion": "prints a shell script that depends on the shell",
    "git": "fetches the repository",
    "cd": "changes folder",
}
NOT_RUN = re.compile(r"#\s*not run:\s*(\S.*)$")
EXITS = re.compile(r"#\s*exits\s+(\d+)\b")
FENCE = re.compile(r"^```(\w*)\s*$")
NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass
class Command:
    page: str
    line: int
    text: str
    exits: int = 0
    output: list[str] = field(default_factory=list)


def _skip_reason(text: str) -> str | None:
    for prefix, reason in SKIPPED.items():
        if text == prefix or text.startswith(prefix + " "):
            return reason
    return None


def extract(path: Path) -> tuple[list[Command], list[tuple[str, int, str]]]:
    """The commands of a page's ``sh`` and ``console`` blocks, and the lines that are skipped
    (with their reason)."""
    commands: list[Command] = []
    skipped: list[tuple[str, int, str]] = []
    kind: str | None = None
    current: Command | None = None
    name = str(path.relative_to(ROOT))
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        raw = lines[i]
        number = i + 1
        i += 1
        fence = FENCE.match(raw.strip())
        if fence:
            kind = None if kind is not None else (fence.group(1) or "text")
            current = None
            continue
        if kind not in ("sh", "console"):
            continue
        text = raw.strip()
        if kind == "console" and not text.startswith("$ "):
            if current is not None:
                current.output.append(raw)
            continue
        if kind == "console":
            text = text[2:].strip()
        while text.endswith("\\") and i < len(lines):     # continued lines
            text = text[:-1].rstrip() + " " + lines[i].strip().removeprefix("> ")
            i += 1
        current = None
        if not text or text.startswith("#"):
            continue
        not_run = NOT_RUN.search(text)
        reason = not_run.group(1) if not_run else _skip_reason(text)
        if reason is not None:
            skipped.append((name, number, reason))
            continue
        if not text.startswith("perfmodel "):
            raise AssertionError(
                f"{name}:{number}: {text!r} is neither a perfmodel command nor a line "
                f"SKIPPED names — run it here, or add its program to SKIPPED with the reason")
        exits = EXITS.search(text)
        current = Command(name, number, text, int(exits.group(1)) if exits else 0)
        commands.append(current)
    assert kind is None, f"{name}: a code block is not closed"
    return commands, skipped


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """What the docs' commands see: the repository's inputs, none of its outputs."""
    base = tmp_path
    (base / "data").symlink_to(ROOT / "data")
    (base / "docs").symlink_to(DOCS)             # docs/examples/: the files the pages use
    (base / "tests").mkdir()
    (base / "tests" / "fixtures").symlink_to(ROOT / "tests" / "fixtures")
    shutil.copytree(ROOT / "calibration", base / "calibration")
    shutil.copytree(ROOT / "reports" / "specs", base / "reports" / "specs")
    return base


def _numbers_close(shown: str, actual: str) -> bool:
    try:
        a, b = float(shown.replace(",", "")), float(actual.replace(",", ""))
    except ValueError:
        return shown == actual
    decimals = shown.split(".")[1] if "." in shown else ""
    decimals = re.split(r"[eE]", decimals)[0]
    exponent = float(f"1e{re.split(r'[eE]', shown)[1]}") if re.search("[eE]", shown) else 1.0
    last = 10.0 ** -len(decimals) * exponent
    return math.isclose(a, b, rel_tol=0.01) or abs(a - b) <= 1.5 * last


def _line_pattern(shown: str) -> tuple[re.Pattern[str], list[str]]:
    parts, numbers, last = [], [], 0
    for match in NUMBER.finditer(shown):
        parts.append(re.escape(shown[last:match.start()]))
        parts.append(f"({NUMBER.pattern})")
        numbers.append(match.group())
        last = match.end()
    parts.append(re.escape(shown[last:]))
    body = re.sub(r"(\\ )+|\s+", r"\\s+", "".join(parts).strip())
    return re.compile(body), numbers


def shown_but_not_printed(shown: list[str], printed: str) -> list[str]:
    """The output lines a page shows that the command does not print (numbers compared within
    a tolerance, runs of spaces as one; lines with an ellipsis are skipped)."""
    missing = []
    actual = [" ".join(line.split()) for line in printed.splitlines()]
    for line in shown:
        text = " ".join(line.split())
        if not text or "…" in text or "..." in text:
            continue
        pattern, numbers = _line_pattern(text)
        for candidate in actual:
            match = pattern.search(candidate)
            if match and all(_numbers_close(n, g) for n, g in zip(numbers, match.groups(),
                                                                   strict=True)):
                break
        else:
            missing.append(line)
    return missing


def run(command: Command, where: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = shlex.split(command.text, comments=True)[1:]
    target = None
    if ">" in argv:                          # perfmodel ... > FILE
        at = argv.index(">")
        argv, target = argv[:at], argv[at + 1]
    monkeypatch.chdir(where)
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "100", "NO_COLOR": "1"})
    said = f"{command.page}:{command.line}: {command.text}\n{result.output}"
    assert result.exit_code == command.exits, (
        f"exit code {result.exit_code}, the page expects {command.exits}\n{said}")
    if target is not None:
        (where / target).write_text(result.stdout, encoding="utf-8")
    missing = shown_but_not_printed(command.output, result.output)
    assert not missing, ("the page shows output the command no longer prints:\n"
                         + "\n".join(missing) + f"\n--- it prints now:\n{said}")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_a_page_shows_runs(page: Path, scratch: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for command in extract(page)[0]:
        run(command, scratch, monkeypatch)


def test_cli_reference_is_current() -> None:
    committed = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert committed == render(app), (
        "docs/reference/cli.md is not what the CLI says now: run `make docs` and commit it")


def test_the_reference_does_not_depend_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    narrow = render(app)
    monkeypatch.setenv("COLUMNS", "300")
    assert render(app) == narrow


def test_skipped_lines_are_few_and_say_why() -> None:
    skipped = [s for page in PAGES for s in extract(page)[1]]
    assert all(reason.strip() for _, _, reason in skipped)
    ran = sum(len(extract(page)[0]) for page in PAGES)
    assert ran >= 2 * len(skipped), f"only {ran} commands run, {len(skipped)} skipped"


def test_readme_is_short_and_points_to_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 160
    for needed in ("make demo", "make test", "docs/tutorial.md", "docs/index.md"):
        assert needed in readme


def test_every_page_is_reachable_from_the_index() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in sorted(DOCS.rglob("*.md")):
        if page.name != "index.md":
            assert str(page.relative_to(DOCS)) in index, f"docs/index.md does not link {page}"


def test_relative_links_resolve() -> None:
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    for page in PAGES:
        for target in link.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: {target}"
