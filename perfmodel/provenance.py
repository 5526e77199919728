"""The stamp every file perfmodel writes carries: when (UTC, or ``SOURCE_DATE_EPOCH`` for
reproducible builds) and with which tool and library versions."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

from perfmodel import __version__
from perfmodel.errors import InputError


def versions() -> dict[str, str]:
    """perfmodel's, Python's and the numerical libraries' versions."""
    out = {"tool": f"perfmodel {__version__}", "python": platform.python_version()}
    for pkg in ("numpy", "scipy", "lmfit"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:  # pragma: no cover - installed with perfmodel
            out[pkg] = "unknown"
    return out


LAST_EPOCH = 253402300799
"""9999-12-31T23:59:59Z, the last second an ISO date of four-digit years can say."""


def source_date() -> datetime | None:
    """``SOURCE_DATE_EPOCH`` as a UTC time, or None when unset or empty.  It must be whole
    seconds since 1970, 0 to :data:`LAST_EPOCH` (as the reproducible-builds specification
    says: a malformed value is an error, not a guess)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return None
    if not (epoch.isascii() and epoch.isdigit()) or len(epoch) > 15 or int(epoch) > LAST_EPOCH:
        raise InputError(f"SOURCE_DATE_EPOCH is {epoch[:40]!r}, not whole seconds since 1970 "
                         f"(0 to {LAST_EPOCH})",
                         fix="set it to such a number (date +%s gives one), or unset it")
    return datetime.fromtimestamp(int(epoch), UTC)


def created() -> str:
    """UTC time now, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    when = source_date() or datetime.now(UTC)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def stamp(command: str = "") -> dict[str, str]:
    """``created``, the versions, and the command that wrote the file when given."""
    return {"created": created(), **versions(), **({"command": command} if command else {})}
