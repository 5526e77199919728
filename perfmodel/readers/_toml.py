"""Reading perfmodel's own TOML files (profiles, specs, models, catalogues, report specs,
saved fits): parse, check the header, and find the line of a key for error messages.

``tomllib`` gives a document without positions, so :func:`key_line` finds where a dotted key
(``network.params.beta.value``, ``inputs[0].rows``, ``parts.main.compute``) is written by
scanning the text: table headers, ``key =`` lines, inline tables, and skipping multi-line
strings and arrays.  It is only ever used to point at a line in an error message; when it
cannot find a key it gives the line of the nearest enclosing table, or None.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from perfmodel import SCHEMA_VERSION as SCHEMA
from perfmodel.errors import InputError

_HEADER = re.compile(r"\s*(\[\[?)\s*((?:[^\[\]\"']|\"[^\"]*\"|'[^']*')+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')"
                  r"(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")
_PART = re.compile(r"[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'")
_INLINE = re.compile(r"[{,]\s*([A-Za-z0-9_-]+)\s*=")


def _dotted(raw: str) -> list[str]:
    return [p.strip("\"'") for p in _PART.findall(raw)]


def _scan(line: str, pos: int, string: str | None, depth: int) -> tuple[str | None, int]:
    """Carry the scanner's state over ``line`` from ``pos``: the multi-line string left open
(three double or three single quotes, or None) and the brackets left open, ignoring what strings and
    comments hold; a basic string's backslash escapes the next character."""
    i, n = pos, len(line)
    while i < n:
        if string == '"""':
            if line[i] == "\\":
                i += 2
            elif line.startswith('"""', i):
                string, i = None, i + 3
            else:
                i += 1
            continue
        if string == "'''":
            end = line.find("'''", i)
            string, i = (string, n) if end < 0 else (None, end + 3)
            continue
        c = line[i]
        if line.startswith(('"""', "'''"), i):
            string, i = line[i:i + 3], i + 3
        elif c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
        elif c == "'":
            end = line.find("'", i + 1)
            i = n if end < 0 else end + 1
        elif c == "#":
            break
        else:
            depth = depth + (c in "[{") - (c in "]}")
            depth = max(depth, 0)
            i += 1
    return string, depth


def _resolve(parts: list[str], current: dict[str, int], last: bool) -> str:
    """A table header's dotted path with each array of tables in it indexed by its current
    element (``section.run`` -> ``section[1].run``); ``last`` indexes the final part too."""
    path = ""
    for k, part in enumerate(parts):
        path = f"{path}.{part}" if path else part
        if path in current and (last or k < len(parts) - 1):
            path = f"{path}[{current[path]}]"
    return path


def key_lines(text: str) -> dict[str, int]:
    """Every table and key of TOML ``text`` with the line it is written on (the first time);
    the k-th table of an array of tables is ``name[k]``."""
    lines: dict[str, int] = {}
    table = ""
    current: dict[str, int] = {}     # array of tables (indexed path) -> its element now open
    string: str | None = None
    depth = 0
    for i, ln in enumerate(text.splitlines(), start=1):
        pos = 0
        if string is None and depth == 0:
            head = _HEADER.match(ln)
            if head:
                parts = _dotted(head[2])
                if head[1] == "[[":
                    path = _resolve(parts, current, last=False)
                    current[path] = current.get(path, -1) + 1
                    lines.setdefault(path, i)
                    table = f"{path}[{current[path]}]"
                else:
                    table = _resolve(parts, current, last=True)
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
                pos = key.end()
        string, depth = _scan(ln, pos, string, depth)
    return lines


@functools.lru_cache(maxsize=8)
def _lines_of(text: str) -> dict[str, int]:
    """:func:`key_lines`, scanned once per text however many keys an error path looks up."""
    return key_lines(text)


def key_line(text: str, key: str) -> int | None:
    """The line where ``key`` (dotted, ``name[k]`` for the k-th of an array of tables) is
    written, else that of the nearest enclosing table that is, else None."""
    found = _lines_of(text)
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
    if version != SCHEMA or not isinstance(version, int) or isinstance(version, bool):
        raise InputError(f"schema_version is {version!r}", file=path, line=line,
                         fix=f"this perfmodel reads {noun}s of schema_version = {SCHEMA}")
    return SCHEMA


def check_header(doc: Mapping[str, Any], path: str | Path, kind: str, noun: str,
                 text: str = "", fix: str = "") -> None:
    """Refuse a TOML document that is not a ``noun`` of schema 1: its ``kind`` line names
    what it is, its ``schema_version`` which layout it has.  ``fix`` replaces the advice for
    a wrong kind (for files perfmodel writes: which command writes one)."""
    if doc.get("kind") != kind:
        raise kind_error(doc, path, noun, text, fix or f'start it with kind = "{kind}"')
    check_version(doc.get("schema_version"), path, text, noun)


def kind_error(doc: Mapping[str, Any], path: str | Path, noun: str, text: str,
               fix: str) -> InputError:
    """The error for a TOML document whose ``kind`` is not ``noun``'s: when it is another of
    perfmodel's kinds, what it is and the command that takes it; else ``fix``."""
    from perfmodel.readers.kinds import OWN

    a = "an" if noun[0] in "aeiou" else "a"
    line = key_line(text, "kind") or 1
    other = doc.get("kind")
    if isinstance(other, str) and other in OWN:
        _, what, takes = OWN[other]
        return InputError(f"this is {what}, not {a} {noun.removeprefix('perfmodel ')}",
                          file=path, line=line,
                          fix=takes.replace("{path}", str(path)))
    return InputError(f"is not {a} {noun}", file=path, line=line, fix=fix)


def unknown_key(doc: Mapping[str, Any], allowed: set[str], path: str | Path, text: str,
                prefix: str = "") -> None:
    """Refuse the first key of ``doc`` (a table at ``prefix``) that is not ``allowed``."""
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise InputError(f"{prefix}{unknown[0]}: unknown key", file=path,
                         line=key_line(text, prefix + unknown[0]),
                         fix=f"remove it; known keys: {', '.join(sorted(allowed))}")
