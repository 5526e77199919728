"""The stamp every file perfmodel writes carries: when (UTC, or ``SOURCE_DATE_EPOCH`` for
reproducible builds) and with which tool and library versions."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

from perfmodel import __version__


def versions() -> dict[str, str]:
    """perfmodel's, Python's and the numerical libraries' versions."""
    out = {"tool": f"perfmodel {__version__}", "python": platform.python_version()}
    for pkg in ("numpy", "scipy", "lmfit"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:  # pragma: no cover - installed with perfmodel
            out[pkg] = "unknown"
    return out


def created() -> str:
    """UTC time now, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def stamp(command: str = "") -> dict[str, str]:
    """``created``, the versions, and the command that wrote the file when given."""
    return {"created": created(), **versions(), **({"command": command} if command else {})}
