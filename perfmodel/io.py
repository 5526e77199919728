"""Writing outputs safely: atomically (temporary file, then rename) and never over an existing
file unless asked to."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from perfmodel.errors import OutputError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _exists(p: Path) -> OutputError:
    return OutputError("exists already", file=p, fix="use --force to replace it, or another name")


def check_writable(path: str | Path, *, force: bool = False) -> Path:
    """Refuse, before any work is done, an output that :func:`write_atomic` would refuse:
    a directory, an existing file without ``force``, or a place where no file can be made."""
    p = Path(path)
    if p.is_dir():
        raise OutputError("is a directory", file=p, fix="give a file name for the output")
    if p.exists() and not force:
        raise _exists(p)
    place = p.absolute().parent
    while not place.exists() and place != place.parent:   # the folder write_atomic will make
        place = place.parent
    try:   # a nameless file made there: the one test every filesystem answers truly
        with tempfile.TemporaryFile(dir=place):
            pass
    except OSError as exc:
        raise OutputError(f"cannot be written ({exc.strerror or exc})", file=p,
                          fix="choose a writable place") from None
    return p


def write_atomic(path: str | Path, text: str | bytes, *, force: bool = False) -> Path:
    """Write ``text`` (or bytes) to ``path`` so that readers see the old file or the new one,
    never half.

    Refuses to replace an existing file unless ``force``; creates missing parent folders.
    """
    p = check_writable(path, force=force)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise OutputError(f"cannot be written ({exc.strerror})", file=p,
                          fix="choose a writable place") from None
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # as open() would make it, not mkstemp's 0600
        if force:
            os.replace(tmp, p)
        else:  # link, unlike rename, fails if the name appeared since the check above
            try:
                os.link(tmp, p)
            except FileExistsError:
                raise _exists(p) from None
            except OSError:   # no hard links here (some network and FUSE mounts): check, rename
                if p.exists():
                    raise _exists(p) from None
                os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    Path(tmp).unlink(missing_ok=True)
    return p
