"""Readers of measurement files, chosen by content, never by extension.

Each reader module has ``NAME``, ``DESCRIPTION``, ``sniff(text) -> bool`` and
``read(source, text) -> tuple[Measurements, ...]``.  :data:`REGISTRY` lists them in the order
they are tried; the canonical CSV comes last because it is the most permissive.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers import canonical

REGISTRY: dict[str, ModuleType] = {canonical.NAME: canonical}

MAX_BYTES = 256 * 1024 * 1024


def read_text(path: str | Path) -> tuple[str, bytes]:
    """The file's text (UTF-8, BOM removed) and its raw bytes; one clear error otherwise."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", file=p, fix="check the path")
    if p.is_dir():
        raise InputError("is a directory, not a file", file=p, fix="give a measurement file")
    try:
        raw = p.read_bytes()
    except PermissionError:
        raise InputError("cannot be read (permission denied)", file=p,
                         fix="check the file's permissions") from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror})", file=p, fix="check the file") from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"is {len(raw)} bytes, more than a measurement file can be", file=p,
                         fix="split it or give the right file")
    if b"\x00" in raw[:65536]:
        raise InputError("is binary, not text", file=p,
                         fix="give the benchmark's text output or a CSV")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("is not UTF-8 text", file=p, line=line,
                         fix="save it as UTF-8 (or give the benchmark's original output)") from None
    return text, raw


def read_toml(path: str | Path) -> tuple[dict[str, Any], str]:
    """A TOML file's document and text; a syntax error names its line."""
    import tomllib

    text, _ = read_text(path)
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise InputError(f"not valid TOML ({str(exc).split(' (at')[0]})", file=path,
                         line=int(at[1]) if at else None, fix="fix the syntax") from None


def sniff(text: str) -> ModuleType | None:
    """The first reader in the registry that recognises ``text``, or None."""
    for reader in REGISTRY.values():
        if reader.sniff(text):
            return reader
    return None


def read(path: str | Path) -> tuple[Measurements, ...]:
    """Every table of measurements in ``path``, with the file's sha256 attached."""
    text, raw = read_text(path)
    if not text.strip():
        raise InputError("is empty", file=path, fix="give a file with a header and data rows")
    reader = sniff(text)
    if reader is None:
        names = ", ".join(REGISTRY)
        raise InputError("format not recognised", file=path, line=1,
                         fix=f"perfmodel reads: {names}; see README 'Measurement CSV'")
    digest = hashlib.sha256(raw).hexdigest()
    tables: tuple[Measurements, ...] = reader.read(str(path), text)
    return tuple(replace(t, sha256=digest) for t in tables)
