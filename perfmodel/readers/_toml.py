"""Reading perfmodel's own TOML files (profiles, specs, models, catalogues, report specs,
saved fits): parse, check the header, and find the line of a key for error messages.

``tomllib`` gives a document without positions, so :func:`key_line` finds where a dotted key
(``network.params.beta.value``, ``inputs[0].rows``, ``parts.main.compute``) is written by
scanning the text: table headers, ``key =`` lines, inline tables, and skipping multi-line
strings and arrays.  It is only ever used to point at a line in an error message; when it
cannot find a key it gives the line of the nearest enclosing table, or None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from perfmodel import SCHEMA_VERSION as SCHEMA
from perfmodel.errors import InputError

_HEADER = re.compile(r"\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')"
                  r"(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")
_PART = re.compile(r"[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'")
_INLINE = re.compile(r"[{,]\s*([A-Za-z0-9_-]+)\s*=")


def _dotted(raw: str) -> list[str]:
    return [p.strip("\"'") for p in _PART.findall(raw)]


def _depth(value: str) -> tuple[int, str | None]:
    """Brackets left open by a value's text, and a multi-line string it leaves open."""
    depth, i, n = 0, 0, len(value)
    while i < n:
        c = value[i]
        if value.startswith(('"""', "'''"), i):
            q = value[i:i + 3]
            end = value.find(q, i + 3)
            if end < 0:
                return depth, q
            i = end + 3
            continue
        if c in "\"'":
            end = value.find(c, i + 1)
            while c == '"' and end > 0 and value[end - 1] == "\\":
                end = value.find(c, end + 1)
            i = n if end < 0 else end + 1
            continue
        if c == "#":
            break
        depth += (c in "[{") - (c in "]}")
        i += 1
    return depth, None


def key_lines(text: str) -> dict[str, int]:
    """Every table and key of TOML ``text`` with the line it is written on (the first time)."""
    lines: dict[str, int] = {}
    table = ""
    seen: dict[str, int] = {}
    depth, string = 0, None
    for i, ln in enumerate(text.splitlines(), start=1):
        if string is not None:                       # inside a multi-line string
            if ln.count(string) % 2:
                string = None
            continue
        if depth > 0:                                # inside a multi-line array
            more, string = _depth(ln)
            depth = max(depth + more, 0)
            continue
        head = _HEADER.match(ln)
        if head:
            name = ".".join(_dotted(head[2]))
            if head[1] == "[[":
                seen[name] = seen.get(name, -1) + 1
                lines.setdefault(name, i)
                table = f"{name}[{seen[name]}]"
            else:
                table = name
            lines.setdefault(table, i)
            continue
        key = _KEY.match(ln)
        if key:
            full = ".".join([table, *_dotted(key[1])] if table else _dotted(key[1]))
            lines.setdefault(full, i)
            rest = ln[key.end():]
            if rest.lstrip().startswith("{"):
                for sub in _INLINE.findall(rest):
                    lines.setdefault(f"{full}.{sub}", i)
            depth, string = _depth(rest)
            depth = max(depth, 0)
    return lines


def key_line(text: str, key: str) -> int | None:
    """The line where ``key`` (dotted, ``name[k]`` for the k-th of an array of tables) is
    written, else that of the nearest enclosing table that is, else None."""
    found = key_lines(text)
    parts = key.strip(".").split(".")
    while parts:
        line = found.get(".".join(parts))
        if line is not None:
            return line
        parts.pop()
    return None


def parse_toml(text: str, path: str | Path) -> dict[str, Any]:
    """TOML text's document; a syntax error is one line naming ``path`` and the line."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise InputError(f"not valid TOML ({str(exc).split(' (at')[0]})", file=path,
                         line=int(at[1]) if at else None, fix="fix the syntax") from None


def check_version(version: Any, path: str | Path, text: str, noun: str) -> int:
    """``schema_version``, which must be :data:`SCHEMA`; a newer one asks for a newer
    perfmodel, anything else names the line."""
    line = key_line(text, "schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA:
        raise InputError(f"schema_version {version} is newer than this perfmodel reads "
                         f"({SCHEMA})", file=path, line=line,
                         fix=f"upgrade perfmodel to read this {noun}, or write it in "
                             f"schema_version = {SCHEMA}")
    if version != SCHEMA or isinstance(version, bool):
        raise InputError(f"schema_version is {version!r}", file=path, line=line,
                         fix=f"this perfmodel reads {noun}s of schema_version = {SCHEMA}")
    return SCHEMA


def check_header(doc: Mapping[str, Any], path: str | Path, kind: str, noun: str,
                 text: str = "", fix: str = "") -> None:
    """Refuse a TOML document that is not a ``noun`` of schema 1: its ``kind`` line names
    what it is, its ``schema_version`` which layout it has.  ``fix`` replaces the advice for
    a wrong kind (for files perfmodel writes: which command writes one)."""
    if doc.get("kind") != kind:
        raise InputError(f"is not {'an' if noun[0] in 'aeiou' else 'a'} {noun}", file=path,
                         line=key_line(text, "kind") or 1,
                         fix=fix or f'start it with kind = "{kind}"')
    check_version(doc.get("schema_version"), path, text, noun)


def unknown_key(doc: Mapping[str, Any], allowed: set[str], path: str | Path, text: str,
                prefix: str = "") -> None:
    """Refuse the first key of ``doc`` (a table at ``prefix``) that is not ``allowed``."""
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise InputError(f"{prefix}{unknown[0]}: unknown key", file=path,
                         line=key_line(text, prefix + unknown[0]),
                         fix=f"remove it; known keys: {', '.join(sorted(allowed))}")
