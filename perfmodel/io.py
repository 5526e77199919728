"""Files on disk: the one way perfmodel reads a file, and the one way it writes one.

Reading (:func:`read_file`) takes regular files only, checked with ``stat`` before opening (a
FIFO would block, ``/dev/zero`` never ends), and reads at most a stated cap.  Writing
(:func:`write_atomic`) goes through a temporary file and a rename, so readers see the old file
or the new one, never half; it never replaces an existing file unless asked to, never writes
to a device, FIFO or folder, never over one of the command's own inputs
(:func:`check_writable`), and turns the operating system's refusals (a full disk, a read-only
file system, a denied permission) into one line, leaving no temporary file behind.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from perfmodel.errors import InputError, OutputError
from perfmodel.kinds import binary_kind

MiB = 1024 * 1024
MEASUREMENT_CAP = 256 * MiB
"""The largest measurement or timings file read (a benchmark's text output, a CSV)."""
TOML_CAP = 4 * MiB
"""The largest TOML file of perfmodel's own kinds read (profiles, specs, models, catalogues,
report specifications, saved fits); the largest shipped one is a few KiB."""

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n % MiB == 0 else f"{n} bytes"


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refusal(exc: OSError, writing: bool) -> tuple[str, str]:
    """What an ``OSError`` from the operating system means for the file, and the fix."""
    code = exc.errno
    verb = "written" if writing else "read"
    if code == errno.ELOOP:
        return "is a symlink loop", "point the link at a real file"
    if code == errno.ENAMETOOLONG:
        return ("has a name longer than the system allows (255 bytes a part)",
                "use a shorter name")
    if code == errno.ENOTDIR:
        return "has a part of its path that is a file, not a folder", "check the path"
    if code in (errno.EACCES, errno.EPERM):
        return (f"cannot be {verb} (permission denied)",
                "check the permissions of the file and of the folders above it")
    if code == errno.ENOSPC:
        return f"cannot be {verb}: the disk is full", "free some space, or write elsewhere"
    if code == getattr(errno, "EDQUOT", -1):
        return f"cannot be {verb}: over the disk quota", "free some space, or write elsewhere"
    if code == errno.EROFS:
        return f"cannot be {verb}: the file system is read-only", "choose a writable place"
    return (f"cannot be {verb} ({exc.strerror or exc})",
            "choose a writable place" if writing else "check the file")


# --------------------------------------------------------------------------------- reading

def read_file(path: str | Path, what: str = "a file", cap: int = MEASUREMENT_CAP) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them; one clear
    :class:`~perfmodel.errors.InputError` otherwise (missing, a folder, a FIFO or device, a
    symlink loop, a name too long, no permission, too large).  ``what`` the file should be
    ("a machine profile") goes in the fixes."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if os.path.islink(p):
            raise InputError("is a symlink to a missing file", file=p,
                             fix="point the link at a real file") from None
        raise InputError("no such file", file=p, fix="check the path") from None
    except OSError as exc:
        said, fix = _refusal(exc, writing=False)
        raise InputError(said, file=p, fix=fix) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, not a file", file=p, fix=f"give {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"is {_kind(st.st_mode)}, not a regular file", file=p,
                         fix=f"give {what}, saved as a file")
    too_big = InputError(f"is larger than {_size(cap)}, the most {what} may be", file=p,
                         fix="give the right file, or split it")
    if st.st_size > cap:
        raise too_big
    try:   # O_NONBLOCK: should a FIFO take the file's place since the stat, open still returns
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        said, fix = _refusal(exc, writing=False)
        raise InputError(said, file=p, fix=fix) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError("is not a regular file", file=p, fix=f"give {what}")
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 16 * MiB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        said, fix = _refusal(exc, writing=False)
        raise InputError(said, file=p, fix=fix) from None
    finally:
        os.close(fd)
    if left <= 0:   # it grew past the cap since the stat
        raise too_big
    return b"".join(chunks)


# --------------------------------------------------------------------------------- writing

def _exists(p: Path) -> OutputError:
    return OutputError("exists already", file=p, fix="use --force to replace it, or another name")


def _cannot(p: Path, exc: OSError) -> OutputError:
    said, fix = _refusal(exc, writing=True)
    return OutputError(said, file=p, fix=fix)


def check_writable(path: str | Path, *, force: bool = False,
                   inputs: Iterable[str | Path | None] = ()) -> Path:
    """Refuse, before any work is done, an output that :func:`write_atomic` would refuse or
    must not write: a directory, a device, FIFO or socket, one of the command's ``inputs``
    (the same file, by device and inode), an existing file without ``force``, or a place
    where no file can be made."""
    p = Path(path)
    try:
        st: os.stat_result | None = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _cannot(p, exc) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError("is a directory", file=p, fix="give a file name for the output")
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"is {_kind(st.st_mode)}, not a regular file", file=p,
                              fix="perfmodel writes only regular files: give a file name")
        for given in inputs:
            if given is None:
                continue
            try:
                other = os.stat(given)
            except (OSError, ValueError):
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                raise OutputError("is one of this command's inputs", file=p,
                                  fix="write the output to another file")
    try:
        if p.exists() and not force:
            raise _exists(p)
        place = p.absolute().parent
        while not place.exists() and place != place.parent:   # the folder write_atomic makes
            place = place.parent
        with tempfile.TemporaryFile(dir=place):   # a nameless file made there: the one test
            pass                                  # every filesystem answers truly
    except OSError as exc:
        raise _cannot(p, exc) from None
    return p


def stage(path: str | Path, data: str | bytes) -> Path:
    """``data`` written in full (and synced) to a new temporary file beside ``path``, to be put
    in place by :func:`commit`; the temporary file's name.  An OSError (a full disk, a
    read-only file system) is an OutputError naming ``path``, and leaves nothing behind."""
    p = Path(path)
    stem = os.fsdecode(os.fsencode(p.name)[:96])   # room for the random part in 255 bytes
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise _cannot(p, exc) from None
    try:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(p))
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot(p, exc) from None
        raise
    return Path(tmp)


def _mode_for(path: Path) -> int:
    """The permissions of the file ``path`` replaces (a read-only profile stays read-only
    under ``--force``), else those open() gives a new file, not mkstemp's 0600."""
    try:
        st = path.stat()
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~_umask()


def commit(tmp: Path, path: str | Path, *, force: bool = False) -> Path:
    """Put the staged file ``tmp`` in place at ``path``: by rename with ``force``, else by a
    hard link that fails if the name appeared since it was checked.  ``tmp`` is gone after,
    whatever happens."""
    p = Path(path)
    try:
        if force:
            os.replace(tmp, p)
        else:
            try:
                os.link(tmp, p)
            except FileExistsError:
                raise _exists(p) from None
            except OSError:   # no hard links here (some network and FUSE mounts): check, rename
                if p.exists():
                    raise _exists(p) from None
                os.replace(tmp, p)
    except OSError as exc:
        raise _cannot(p, exc) from None
    finally:
        tmp.unlink(missing_ok=True)
    return p


def write_atomic(path: str | Path, text: str | bytes, *, force: bool = False) -> Path:
    """Write ``text`` (or bytes) to ``path`` so that readers see the old file or the new one,
    never half.

    Refuses to replace an existing file unless ``force``; creates missing parent folders.
    """
    p = check_writable(path, force=force)
    return commit(stage(p, text), p, force=force)


def read_text(path: str | Path, what: str = "a measurement file", cap: int = MEASUREMENT_CAP
              ) -> tuple[str, bytes]:
    """The file's text (UTF-8, BOM removed) and its raw bytes; one clear error otherwise.
    ``what`` the file should be ("a machine profile") goes in the fixes; at most ``cap`` bytes
    are read (:func:`read_file` refuses FIFOs, devices and folders first)."""
    p = Path(path)
    raw = read_file(p, what, cap)
    if b"\x00" in raw[:65536] or binary_kind(raw):
        looks = binary_kind(raw)
        raise InputError(f"is binary, not text{f' ({looks})' if looks else ''}", file=p,
                         fix="give the benchmark's text output or a CSV"
                         if what == "a measurement file" else f"give {what} (plain text)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("is not UTF-8 text", file=p, line=line,
                         fix="save it as UTF-8 (or give the benchmark's original output)") from None
    return text, raw
