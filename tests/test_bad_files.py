"""Files on disk of any kind and shape (issue 28): what perfmodel reads and what it writes.

Reading: every file of every kind goes through :func:`perfmodel.io.read_file`, which refuses a
FIFO (without blocking), a device, a folder, a symlink loop, a name too long, a file without
permission, and a file over the cap, each in one line.  Writing: an output that is a device, a
FIFO, a folder or one of the command's inputs is refused before any work; a full disk, a
read-only file system or a refused permission is one line, the old file intact and no temporary
file left; everything written loads back; ``report --force`` removes only figures perfmodel
recorded writing, and a report killed mid-switch never shows old markdown beside new figures.

Tests run as root, which reads and writes through any permission bits: where a test needs
EACCES it also injects the refusal (monkeypatching ``os.stat``/``os.open`` or ``tempfile``),
and says so.  The full disk and the read-only file system are real where a small tmpfs can
be mounted, and injected otherwise (and always, through ``os.fsync``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfmodel import io
from perfmodel.errors import InputError
from perfmodel.files import write as tomlw
from perfmodel.machine.profile import load
from perfmodel.report import build as builder
from tests.conftest import invoke_in

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "fixtures" / "bad"
FILES = BAD / "files"
MPICH = str(ROOT / "data" / "mpi4py" / "pingpong_mpich.csv")
TOY = str(BAD / "models" / "ok_model.toml")
TIMINGS = str(BAD / "timings" / "ok_timings.csv")
SAVED = str(BAD / "saved" / "ok_saved.toml")
CATALOGUE = str(BAD / "catalogues" / "ok_catalogue.toml")
SPEC = str(ROOT / "data" / "seeds" / "hyglac-sockets.spec.toml")
HYGLAC = str(ROOT / "calibration" / "hyglac.toml")
HYGLAC_MPI = str(ROOT / "calibration" / "hyglac-mpi.toml")

# every kind of input file -> a command reading it ("{}" is the file)
READERS: dict[str, list[str]] = {
    "measurements": ["calibrate", "{}", "--no-write"],
    "spec": ["calibrate", MPICH, "--spec", "{}", "--no-write"],
    "profile": ["network", "{}"],
    "model": ["predict", "{}", "--set", "work=10", "--set", "hop=0.01"],
    "timings": ["predict", TOY, "--fit", "{}"],
    "timings@scaling": ["scaling", "{}"],
    "saved": ["predict", TOY, "--from", "{}"],
    "catalogue": ["whatif", TOY, "-m", HYGLAC, "--set", "work=10", "--set", "hop=0.01",
                  "--candidates", "{}", "--vary", "network=all"],
    "report": ["report", "{}", "--out", "r.md"],
    "machine": ["predict", TOY, "-m", "{}", "--set", "work=10", "--set", "hop=0.01"],
}

# every command that writes a file -> its arguments, writing to "{}"
WRITERS: dict[str, list[str]] = {
    "calibrate --out": ["calibrate", MPICH, "--out", "{}", "--quiet", "--model", "hockney"],
    "predict --save": ["predict", TOY, "--fit", TIMINGS, "--save", "{}"],
    "whatif --plot": ["whatif", TOY, "-m", HYGLAC, "--fit", TIMINGS, "--vary", "nodes=1..4",
                      "--plot", "{}"],
    "report --out": ["report", HYGLAC_MPI, "--out", "{}"],
    "measure --out": ["measure", "--out", "{}"],
}
SUFFIX = {"calibrate --out": ".toml", "predict --save": ".toml", "whatif --plot": ".svg",
          "report --out": ".md", "measure --out": ".csv"}


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    """A read that blocks (a FIFO opened for reading) fails the test instead of hanging it."""
    def hung(signum: int, frame: Any) -> None:
        raise TimeoutError("blocked for 60 s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None
         ) -> tuple[int, str, str]:
    result = invoke_in(cwd, args, env)
    return result.exit_code, result.stdout, result.stderr


def _one_line(code: int, out: str, err: str, *fragments: str) -> str:
    """Exit 2, one line on stderr holding every fragment and a fix, no traceback."""
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and " — " in lines[0], lines[0]
    assert "Traceback" not in out + err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def _args(command: list[str], path: str | Path) -> list[str]:
    return [a.replace("{}", str(path)) for a in command]


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ------------------------------------------------------------------------------ reading

@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_fifo_of_every_kind_is_refused_without_blocking(kind: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    work = tmp_path / "work"
    work.mkdir()
    said = _one_line(*_run(_args(READERS[kind], fifo), work), "is a FIFO (named pipe), not a "
                                                              "regular file")
    assert said.startswith(f"error: {fifo}: ")
    assert _listing(work) == []


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_device_of_every_kind_is_refused(kind: str, device: str, tmp_path: Path) -> None:
    _one_line(*_run(_args(READERS[kind], device), tmp_path),
              f"{device}: is a character device, not a regular file")


def test_a_fifo_does_not_block_a_real_process(tmp_path: Path) -> None:
    """The same through a fresh interpreter: no reader ever opens the FIFO (which would wait
    for a writer that never comes)."""
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "perfmodel", "calibrate", str(fifo)],
                          capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: {fifo}: is a FIFO (named pipe), not a regular "
                                   "file — give a measurement file, saved as a file")


@pytest.mark.parametrize(("kind", "cap"), [("measurements", "256 MiB"), ("profile", "4 MiB"),
                                           ("model", "4 MiB"), ("report", "4 MiB"),
                                           ("timings", "256 MiB")])
def test_a_file_over_the_cap_is_refused_before_it_is_read(kind: str, cap: str,
                                                          tmp_path: Path) -> None:
    """A sparse file one byte over the cap: refused by its size, not read (a 10 GB one the
    same, in no time and no memory)."""
    big = tmp_path / "big.toml"
    with big.open("wb") as fh:
        fh.truncate((io.MEASUREMENT_CAP if "256" in cap else io.TOML_CAP) + 1)
    work = tmp_path / "work"
    work.mkdir()
    _one_line(*_run(_args(READERS[kind], big), work), f"{big}: is larger than {cap}")


def test_a_file_that_says_it_is_small_is_still_read_only_up_to_the_cap() -> None:
    """/proc files say they hold 0 bytes: the cap is on what is read, not only on the size."""
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(InputError, match="is larger than 10 bytes"):
        io.read_file("/proc/self/status", "a status", cap=10)
    assert len(io.read_file("/proc/self/status", "a status", cap=1 << 20)) > 10


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_symlink_loop_is_called_one(kind: str, tmp_path: Path) -> None:
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop.name)
    _one_line(*_run(_args(READERS[kind], loop), tmp_path), f"{loop}: is a symlink loop")


def test_a_dangling_symlink_says_where_it_points(tmp_path: Path) -> None:
    link = tmp_path / "link.csv"
    link.symlink_to("gone.csv")
    _one_line(*_run(["calibrate", str(link)], tmp_path), "is a symlink to a missing file")


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_name_longer_than_the_system_allows(kind: str, tmp_path: Path) -> None:
    long = tmp_path / ("x" * 300 + ".toml")
    _one_line(*_run(_args(READERS[kind], long), tmp_path),
              "has a name longer than the system allows (255 bytes a part)")


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_folder_without_search_permission(kind: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 on the folder; as root that does not stop a read, so the refusal the
    system gives everyone else (EACCES from stat) is also injected."""
    locked = tmp_path / "locked"
    locked.mkdir()
    inside = locked / "input.toml"
    inside.write_text("x = 1\n")
    locked.chmod(0)
    real = os.stat

    def deny(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if str(path).startswith(str(locked) + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", deny)
    try:
        _one_line(*_run(_args(READERS[kind], inside), tmp_path),
                  f"{inside}: cannot be read (permission denied)")
    finally:
        locked.chmod(0o755)


def test_an_unreadable_file_is_refused_when_opened(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 on the file itself, and (as root reads it anyway) EACCES from open."""
    path = tmp_path / "p.csv"
    shutil.copy(MPICH, path)
    path.chmod(0)
    real = os.open

    def deny(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(file) == path:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    _one_line(*_run(["calibrate", str(path)], tmp_path), "cannot be read (permission denied)")


def test_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    """A name with the byte 0xe9 (Latin-1 é): missing, one line; present, calibrated, and
    the profile naming it loads back (the byte written as \\xe9)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    name = os.fsencode(tmp_path) + b"/caf\xe9.csv"
    missing = subprocess.run([sys.executable, "-m", "perfmodel", "calibrate", name],
                             capture_output=True, timeout=60, env=env, cwd=tmp_path)
    assert missing.returncode == 2
    err = missing.stderr.decode("utf-8")
    assert err.count("\n") == 1 and "no such file" in err and "Traceback" not in err
    shutil.copy(MPICH, os.fsdecode(name))
    made = subprocess.run([sys.executable, "-m", "perfmodel", "calibrate", name, "--out",
                           "p.toml", "--quiet"], capture_output=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    prof = load(tmp_path / "p.toml")
    assert prof.inputs[0].path.endswith("caf\\xe9.csv")


def test_the_corpus_file_with_control_characters_round_trips(tmp_path: Path) -> None:
    path = FILES / "control_chars_in_comment.csv"
    code, _, err = _run(["calibrate", str(path), "--out", "p.toml", "--quiet"], tmp_path)
    assert code == 0, err
    text = (tmp_path / "p.toml").read_text(encoding="utf-8")
    assert "\x7f" not in text and "\x90" not in text
    assert load(tmp_path / "p.toml").name == "control_chars_in_comment"


# ------------------------------------------------------------------------------ TOML out

def test_every_code_point_a_string_can_hold_loads_back() -> None:
    """Every character of the Basic Multilingual Plane and a sample beyond, in a value and in
    a key: C0 and C1 controls, DEL, U+2028/U+2029, the BOM, all read back unchanged."""
    chars = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    chars += [chr(c) for c in range(0x10000, 0x110000, 4099)]
    text = "".join(chars)
    doc = {"s": text, "k": {text[:200]: 1}, "list": [text[:50], "\x7f"]}
    back = tomllib.loads(tomlw.dumps(doc))
    assert back["s"] == text and back["k"] == {text[:200]: 1}
    assert back["list"] == [text[:50], "\x7f"]


def test_lone_surrogates_are_written_as_text() -> None:
    back = tomllib.loads(tomlw.dumps({"path": "caf\udce9.csv", "odd": "a\ud800b"}))
    assert back == {"path": "caf\\xe9.csv", "odd": "a\ufffdb"}


def test_a_profile_named_with_control_characters_loads_back(tmp_path: Path) -> None:
    """The profile's name (from the file's) goes in its header comment too."""
    odd = tmp_path / "a\x7fb\nc].csv"
    shutil.copy(MPICH, odd)
    code, _, err = _run(["calibrate", str(odd), "--out", "p.toml", "--quiet"], tmp_path)
    assert code == 0, err
    assert load(tmp_path / "p.toml").name == "a\x7fb\nc]"


# ------------------------------------------------------------------------------ outputs

@pytest.mark.parametrize("command", sorted(WRITERS))
def test_no_output_is_a_device_or_a_fifo(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / f"pipe{SUFFIX[command]}"
    os.mkfifo(fifo)
    null = tmp_path / f"null{SUFFIX[command]}"   # a name the command takes, for a device
    null.symlink_to("/dev/null")
    targets = [(null, "is a character device"), (fifo, "is a FIFO (named pipe)")]
    if command not in ("report --out", "whatif --plot"):   # named .md, .svg or .png
        targets.append((Path("/dev/null"), "is a character device"))
    for target, what in targets:
        said = _one_line(*_run([*_args(WRITERS[command], target), "--force"], tmp_path),
                         f"{target}: {what}, not a regular file")
        assert "exists already" not in said
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is still the device"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and null.is_symlink()
    assert _listing(tmp_path) == sorted([fifo.name, null.name])


@pytest.mark.parametrize(("args", "given"), [
    (["calibrate", "{in}", "--out", "{in}", "--force", "--quiet"], MPICH),
    (["calibrate", MPICH, "--spec", "{in}", "--out", "{in}", "--force"], SPEC),
    (["predict", TOY, "--fit", "{in}", "--save", "{in}", "--force"], TIMINGS),
    (["predict", TOY, "--from", "{in}", "--save", "{in}", "--force"], SAVED),
    (["predict", "{in}", "--set", "work=10", "--set", "hop=0.01", "--save", "{in}",
      "--force"], TOY),
    (["predict", TOY, "-m", "{in}", "--set", "work=10", "--set", "hop=0.01", "--save",
      "{in}", "--force"], HYGLAC),
    (["report", "{in}", "--out", "{in}", "--force"], HYGLAC_MPI),
])
@pytest.mark.parametrize("how", ["same path", "hard link"])
def test_an_output_is_never_one_of_the_inputs(args: list[str], given: str, how: str,
                                              tmp_path: Path) -> None:
    src = tmp_path / ("in.md" if args[0] == "report" else Path(given).name)
    shutil.copy(given, src)
    before = src.read_bytes()
    out = src
    if how == "hard link":
        out = tmp_path / ("linked.md" if args[0] == "report" else "linked" + src.suffix)
        os.link(src, out)
    argv = [a.replace("{in}", str(src)) for a in args]
    argv[argv.index(str(src), argv.index(str(src)) + 1)] = str(out)   # the output's place
    _one_line(*_run(argv, tmp_path), f"{out}: is one of this command's inputs")
    assert src.read_bytes() == before


def test_whatif_plot_over_its_catalogue_is_refused(tmp_path: Path) -> None:
    cat = tmp_path / "cat.svg"
    shutil.copy(CATALOGUE, cat)
    _one_line(*_run(["whatif", TOY, "-m", HYGLAC, "--set", "work=10", "--set", "hop=0.01",
                     "--candidates", str(cat), "--vary", "network=all", "--plot", str(cat),
                     "--force"], tmp_path), "is one of this command's inputs")


@pytest.mark.parametrize("command", ["calibrate --out", "predict --save"])
def test_the_output_is_checked_before_any_work(command: str, tmp_path: Path) -> None:
    """An existing output without --force is named first, before the input is even read
    (here the input is missing: the message is about the output)."""
    target = tmp_path / f"out{SUFFIX[command]}"
    target.write_text("mine\n")
    args = _args(WRITERS[command], target)
    args = [str(tmp_path / "missing.csv") if a in (MPICH, TIMINGS) else a for a in args]
    _one_line(*_run(args, tmp_path), f"{target}: exists already")
    assert target.read_text() == "mine\n"


def _refusing(monkeypatch: pytest.MonkeyPatch, code: int, where: str) -> None:
    """The operating system refusing a write with ``code`` at ``where``: the data's sync (a
    full disk shows there or at the write), or making the file (a read-only or forbidden
    place)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, os.strerror(code))

    if where == "fsync":
        monkeypatch.setattr(os, "fsync", refuse)
    else:
        monkeypatch.setattr(tempfile, "mkstemp", refuse)
        monkeypatch.setattr(tempfile, "TemporaryFile", refuse)


@pytest.mark.parametrize(("code", "where", "said"), [
    (errno.ENOSPC, "fsync", "cannot be written: the disk is full — free some space"),
    (errno.EDQUOT, "fsync", "over the disk quota"),
    (errno.EROFS, "create", "cannot be written: the file system is read-only"),
    (errno.EACCES, "create", "cannot be written (permission denied)"),
])
@pytest.mark.parametrize("command", ["calibrate --out", "predict --save", "whatif --plot",
                                     "report --out"])
def test_the_systems_refusals_leave_the_old_file_whole(
        command: str, code: int, where: str, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / f"out{SUFFIX[command]}"
    target.write_text("old\n")
    _refusing(monkeypatch, code, where)
    _one_line(*_run([*_args(WRITERS[command], target), "--force"], tmp_path),
              f"error: {tmp_path / 'out'}", said)   # the report's markdown, or a figure
    assert target.read_text() == "old\n"
    left = [p for p in _listing(tmp_path) if p != target.name]
    assert not [p for p in left if p.endswith(".tmp")], left
    assert left == [], left


def test_measure_out_is_checked_before_mpi(tmp_path: Path) -> None:
    target = tmp_path / "m.csv"
    target.write_text("old\n")
    _one_line(*_run(["measure", "--out", str(target)], tmp_path), "exists already")


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, when this machine lets the tests mount one (root in most CI)."""
    place = tmp_path / "tiny"
    place.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(place)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: the injected ENOSPC test covers it")
    try:
        yield place
    finally:
        subprocess.run(["umount", str(place)], check=False)


def test_a_really_full_disk(tiny_fs: Path, tmp_path: Path) -> None:
    target = tiny_fs / "p.toml"
    shutil.copy(HYGLAC_MPI, target)
    before = target.read_bytes()
    fill = os.open(tiny_fs / "fill", os.O_WRONLY | os.O_CREAT)
    try:   # to the last block
        while os.write(fill, b"\0" * 4096):
            pass
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fill)
    _one_line(*_run(["calibrate", MPICH, "--out", str(target), "--force", "--quiet"],
                    tmp_path), f"{target}: cannot be written: the disk is full")
    assert target.read_bytes() == before
    assert sorted(p.name for p in tiny_fs.iterdir()) == ["fill", "p.toml"]


def test_a_really_read_only_file_system(tiny_fs: Path, tmp_path: Path) -> None:
    target = tiny_fs / "p.toml"
    shutil.copy(HYGLAC_MPI, target)
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_fs)], check=True)
    _one_line(*_run(["calibrate", MPICH, "--out", str(target), "--force", "--quiet"],
                    tmp_path), f"{target}: cannot be written: the file system is read-only")
    assert target.read_text() == Path(HYGLAC_MPI).read_text()


@pytest.mark.parametrize("value", ["abc", "1e9", "-5", "1.5", "99999999999999", "9" * 5000,
                                   "٣"])
def test_a_bad_source_date_epoch_is_one_line(value: str, tmp_path: Path) -> None:
    code, out, err = _run(["calibrate", MPICH, "--out", "p.toml", "--quiet"], tmp_path,
                          env={"SOURCE_DATE_EPOCH": value})
    _one_line(code, out, err, "SOURCE_DATE_EPOCH is ", "not whole seconds since 1970")
    assert _listing(tmp_path) == []


@pytest.mark.parametrize(("value", "created"), [("", None), ("0", "1970-01-01T00:00:00Z"),
                                                ("253402300799", "9999-12-31T23:59:59Z")])
def test_an_empty_or_good_source_date_epoch(value: str, created: str | None,
                                            tmp_path: Path) -> None:
    code, _, err = _run(["calibrate", MPICH, "--out", "p.toml", "--quiet"], tmp_path,
                        env={"SOURCE_DATE_EPOCH": value})
    assert code == 0, err
    if created is not None:
        assert load(tmp_path / "p.toml").provenance["created"] == created


# ------------------------------------------------------------------------------ reports

def test_force_never_removes_a_users_own_figures(tmp_path: Path) -> None:
    """No report was written there before: nothing in the folder is perfmodel's."""
    folder = tmp_path / "rep1" / "mine"
    folder.mkdir(parents=True)
    (folder / "my_diagram.svg").write_text("<svg>mine</svg>")
    (folder / "photo.png").write_bytes(b"\x89PNG mine")
    code, _, err = _run(["report", HYGLAC_MPI, "--out", "rep1/mine.md", "--force"], tmp_path)
    assert code == 0, err
    assert (folder / "my_diagram.svg").read_text() == "<svg>mine</svg>"
    assert (folder / "photo.png").read_bytes() == b"\x89PNG mine"
    # and again, now that a report is there: still only perfmodel's own are replaced
    code, _, err = _run(["report", HYGLAC_MPI, "--out", "rep1/mine.md", "--force"], tmp_path)
    assert code == 0, err
    assert (folder / "my_diagram.svg").read_text() == "<svg>mine</svg>"
    assert (folder / "photo.png").exists()


def test_a_tampered_manifest_removes_nothing_outside_the_folder(tmp_path: Path) -> None:
    code, _, err = _run(["report", HYGLAC_MPI, "--out", "r.md"], tmp_path)
    assert code == 0, err
    outside = tmp_path / "precious.svg"
    outside.write_text("mine")
    (tmp_path / "r" / "mine.svg").write_text("mine")
    manifest = tmp_path / "r" / builder.MANIFEST
    doc = tomllib.loads(manifest.read_text())
    mine = hashlib.sha256(b"mine").hexdigest()
    listed = sorted(doc["figures"])
    doc["figures"].update({name: mine for name in ("../precious.svg", "/etc/hostname", "..",
                                                   ".", "sub/x.svg")})
    doc["figures"]["mine.svg"] = "0" * 64            # a user's file, listed by hand
    doc["figures"]["gone-by-now.svg"] = "1" * 64     # a figure no longer made, edited since
    (tmp_path / "r" / "gone-by-now.svg").write_text("edited by hand")
    manifest.write_text(tomlw.dumps(doc))
    code, _, err = _run(["report", HYGLAC_MPI, "--out", "r.md", "--force"], tmp_path)
    assert code == 0, err
    assert outside.read_text() == "mine" and (tmp_path / "r" / "mine.svg").exists()
    assert (tmp_path / "r" / "gone-by-now.svg").read_text() == "edited by hand"
    assert Path("/etc/hostname").exists()
    assert sorted(tomllib.loads(manifest.read_text())["figures"]) == listed


@pytest.mark.parametrize(("name", "said"), [("..md", "is not a usable report name"),
                                            (".hidden.md", "is not a usable report name"),
                                            (".md", "is not a markdown file")])
def test_a_report_name_that_would_make_its_folder_another_is_refused(name: str, said: str,
                                                                     tmp_path: Path) -> None:
    folder = tmp_path / "DIR"
    folder.mkdir()
    (folder / "keep.svg").write_text("mine")
    _one_line(*_run(["report", HYGLAC_MPI, "--out", str(folder / name), "--force"], tmp_path),
              said)
    assert _listing(folder) == ["keep.svg"]


def test_a_file_where_the_figure_folder_goes_is_refused_before_work(tmp_path: Path) -> None:
    (tmp_path / "r").write_text("mine")
    _one_line(*_run(["report", HYGLAC_MPI, "--out", "r.md"], tmp_path),
              "is a file, where the report's figures go")
    assert (tmp_path / "r").read_text() == "mine"


def _state(tmp_path: Path) -> tuple[str, dict[str, bytes]]:
    md = (tmp_path / "r.md").read_text()
    figs = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir()
            if p.suffix in (".svg", ".png")}
    return md, figs


def test_a_report_interrupted_between_figures_and_markdown_is_never_mixed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The old report (one profile), then a new one (two profiles) interrupted just before its
    markdown is put in place: the old markdown is never beside new figures (its own are gone
    until the next run, which puts the whole new set in place)."""
    assert _run(["report", HYGLAC_MPI, "--out", "r.md"], tmp_path)[0] == 0
    old_md, old_figs = _state(tmp_path)
    real = io.commit

    def interrupted(tmp: Path, path: Any, *, force: bool = False) -> Path:
        if Path(path).name == "r.md":
            raise KeyboardInterrupt   # killed between the switch's steps
        return real(tmp, path, force=force)

    monkeypatch.setattr(io, "commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        builder.write(builder.build(builder.from_profiles([Path(HYGLAC_MPI), Path(HYGLAC)]),
                                    tmp_path / "r.md"), tmp_path / "r.md", force=True)
    md, figs = _state(tmp_path)
    assert md == old_md
    assert all(old_figs.get(name) == data for name, data in figs.items()), "no new figure"
    assert not [p for p in _listing(tmp_path) if p.endswith(".tmp")]
    monkeypatch.setattr(io, "commit", real)
    assert _run(["report", HYGLAC_MPI, HYGLAC, "--out", "r.md", "--force"], tmp_path)[0] == 0
    md, figs = _state(tmp_path)
    assert md != old_md and all(f"](r/{name})" in md for name in figs)
    assert len(figs) > len(old_figs)


_KILL_AT_MARKDOWN = textwrap.dedent("""
    import os, signal, sys
    real = os.replace
    def replace(src, dst, *a, **k):
        if str(dst).endswith("r.md"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *a, **k)
    os.replace = replace
    from perfmodel.cli.app import main
    sys.argv = ["perfmodel", *sys.argv[1:]]
    main()
""")


def test_a_report_killed_before_its_markdown_is_put_in_place(tmp_path: Path) -> None:
    """A real SIGKILL at the markdown's rename: old markdown, none of its figures and none of
    the new in view; the next run cleans the temporary files and writes the whole set."""
    assert _run(["report", HYGLAC_MPI, "--out", "r.md"], tmp_path)[0] == 0
    old_md, old_figs = _state(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run([sys.executable, "-c", _KILL_AT_MARKDOWN, "report", HYGLAC_MPI,
                             HYGLAC, "--out", "r.md", "--force"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    md, figs = _state(tmp_path)
    assert md == old_md and all(old_figs.get(n) == d for n, d in figs.items())
    recorded = tomllib.loads((tmp_path / "r" / builder.MANIFEST).read_text())["figures"]
    assert set(old_figs) <= set(recorded), "every file perfmodel made is recorded"
    assert [p for p in _listing(tmp_path) if p.endswith(".tmp")], "the kill left temporaries"
    assert _run(["report", HYGLAC_MPI, HYGLAC, "--out", "r.md", "--force"], tmp_path)[0] == 0
    assert not [p for p in _listing(tmp_path) if p.endswith(".tmp")], "cleaned by the next run"
    md, figs = _state(tmp_path)
    assert all(f"](r/{name})" in md for name in figs) and len(figs) > len(old_figs)
