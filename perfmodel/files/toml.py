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
from perfmodel.io import TOML_CAP, read_text

MAX_NESTING = 64
"""The deepest arrays and inline tables may nest in a TOML file perfmodel reads (its own files
nest three levels; ``tomllib`` runs out of stack a few hundred levels down)."""

# Each pattern matches one run of one kind of character: no alternative, nothing to
# backtrack into, so every scan below is linear in the line however it is spaced.
_SPACE = re.compile(r"[ \t]*")
_BARE = re.compile(r"[A-Za-z0-9_-]*")
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(raw: str) -> str:
    """A basic string's body with its escapes read (``a\\"b`` -> ``a"b``), as tomllib reads
    it, so a quoted key matches the document's."""
    def one(m: re.Match[str]) -> str:
        code = m[1]
        if len(code) > 1:
            try:
                return chr(int(code[1:], 16))
            except ValueError:
                return m[0]
        return _ESCAPES.get(code, m[0])
    return _ESCAPE.sub(one, raw)


def _string_end(line: str, i: int) -> int:
    """Where the one-line basic or literal string opening at ``line[i]`` ends (the index
    after its closing quote), or -1 when it is not closed on the line."""
    if line[i] == "'":
        end = line.find("'", i + 1)
        return -1 if end < 0 else end + 1
    j, n = i + 1, len(line)
    while j < n:
        c = line[j]
        if c == '"':
            return j + 1
        j += 2 if c == "\\" else 1
    return -1


def _key(line: str, i: int) -> tuple[list[str], int] | None:
    """The dotted key written at ``line[i:]`` (spaces allowed around its dots and before it)
    with the index after it and the spaces that follow it, or None when there is no key."""
    parts: list[str] = []
    n = len(line)
    while True:
        i = _SPACE.match(line, i).end()  # type: ignore[union-attr]
        if i >= n:
            return None
        if line[i] in "\"'":
            end = _string_end(line, i)
            if end < 0 or line.startswith(line[i] * 3, i):
                return None
            body = line[i + 1:end - 1]
            parts.append(_unescape(body) if line[i] == '"' else body)
            i = end
        else:
            end = _BARE.match(line, i).end()  # type: ignore[union-attr]
            if end == i:
                return None
            parts.append(line[i:end])
            i = end
        i = _SPACE.match(line, i).end()  # type: ignore[union-attr]
        if i < n and line[i] == ".":
            i += 1
            continue
        return parts, i


def _header(line: str) -> tuple[bool, list[str]] | None:
    """A table header's (is it an array of tables, its dotted path), or None when ``line``
    is no header."""
    i = _SPACE.match(line).end()  # type: ignore[union-attr]
    if not line.startswith("[", i):
        return None
    array = line.startswith("[[", i)
    got = _key(line, i + 1 + array)
    if got is None:
        return None
    parts, j = got
    close = "]]" if array else "]"
    if not line.startswith(close, j):
        return None
    j = _SPACE.match(line, j + len(close)).end()  # type: ignore[union-attr]
    return (array, parts) if j == len(line) or line[j] == "#" else None


def _inline_keys(line: str, i: int, full: str, found: dict[str, int], no: int) -> None:
    """Record the keys of the inline table opening at ``line[i]`` (``{ value = 1, unit = "s"
    }``) as ``full.value``..., nested tables as ``full.a.b``; strings are skipped whole."""
    stack: list[str] = []
    pending = full
    n = len(line)
    while i < n:
        c = line[i]
        if c in "\"'":
            end = _string_end(line, i)
            if end < 0 or line.startswith(c * 3, i):
                return
            i = end
            continue
        if c == "#":
            return
        if c == "}":
            if stack:
                stack.pop()
            i += 1
            continue
        if c in "{,":
            if c == "{":
                stack.append(pending)
            got = _key(line, i + 1)
            if stack and got is not None and got[1] < n and line[got[1]] == "=":
                pending = ".".join([stack[-1], *got[0]])
                found.setdefault(pending, no)
                i = got[1] + 1
                continue
        i += 1


def _scan(line: str, pos: int, string: str | None,
          depth: int) -> tuple[str | None, int, int]:
    """Carry the scanner's state over ``line`` from ``pos``: the multi-line string left open
    (three double or three single quotes, or None), the brackets left open and the most open
    on the way, ignoring what strings and comments hold; a basic string's backslash escapes
    the next character."""
    i, n = pos, len(line)
    peak = depth
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
            peak = max(peak, depth)
            i += 1
    return string, depth, peak


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
            head = _header(ln)
            if head is not None:
                array, parts = head
                if array:
                    path = _resolve(parts, current, last=False)
                    current[path] = current.get(path, -1) + 1
                    lines.setdefault(path, i)
                    table = f"{path}[{current[path]}]"
                else:
                    table = _resolve(parts, current, last=True)
                lines.setdefault(table, i)
                continue
            key = _key(ln, 0)
            if key is not None and key[1] < len(ln) and ln[key[1]] == "=":
                full = ".".join([table, *key[0]] if table else key[0])
                lines.setdefault(full, i)
                pos = key[1] + 1
                value = _SPACE.match(ln, pos).end()  # type: ignore[union-attr]
                if ln.startswith("{", value):
                    _inline_keys(ln, value, full, lines, i)
        string, depth, _ = _scan(ln, pos, string, depth)
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
    """TOML text's document; a syntax error, nesting deeper than :data:`MAX_NESTING` or an
    integer too long for Python is one line naming ``path`` and the line."""
    import tomllib

    if max(text.count("[") + text.count("{"), text.count(".")) > MAX_NESTING:
        deep = _too_deep(text)   # only then can it nest that deep
        if deep is not None:
            what, line = deep
            raise InputError(f"{what} nest more than {MAX_NESTING} deep", file=path, line=line,
                             fix="flatten them: perfmodel's files nest a few levels")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise InputError(f"not valid TOML ({str(exc).split(' (at')[0]})", file=path,
                         line=int(at[1]) if at else None, fix="fix the syntax") from None
    except RecursionError:   # nesting the check above did not see (it should not happen)
        raise InputError("nests too deep to read", file=path,
                         fix=f"flatten it: at most {MAX_NESTING} levels") from None
    except ValueError:   # int() refuses integers of more than 4300 digits
        raise InputError("an integer has more than 4300 digits", file=path,
                         line=_long_number(text),
                         fix="write it as a float (1.5e300) or shorter") from None


def _too_deep(text: str) -> tuple[str, int] | None:
    """What nests more than :data:`MAX_NESTING` deep and the first line where it does, or
    None: arrays and inline tables open at once (strings and comments ignored), or the parts
    of a dotted key or table header (``tomllib`` takes time quadratic in them).  Linear in
    the text."""
    string: str | None = None
    depth = 0
    for no, ln in enumerate(text.split("\n"), start=1):
        if string is None and depth == 0:
            head = _header(ln)
            key = head[1] if head is not None else (_key(ln, 0) or ((), 0))[0]
            if len(key) > MAX_NESTING:
                return "the parts of a dotted key", no
        string, depth, peak = _scan(ln, 0, string, depth)
        if peak > MAX_NESTING:
            return "arrays or inline tables", no
    return None


def _long_number(text: str) -> int | None:
    """The line of the first run of more than 4300 digits, or None."""
    for no, ln in enumerate(text.split("\n"), start=1):
        if any(len(run) > 4300 for run in re.findall(r"[0-9_]+", ln)):
            return no
    return None


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
    from perfmodel.kinds import OWN

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


def read_toml(path: str | Path, what: str = "a perfmodel TOML file", want: str | None = None
              ) -> tuple[dict[str, Any], str]:
    """A TOML file's document and text; a syntax error names its line.  ``want``, the key
    (:data:`~perfmodel.kinds.WANTED`) of the kind the caller reads: a file that is
    not TOML but some other kind perfmodel knows (a benchmark output, a CSV) is named as that
    kind, with the command that takes it."""
    from perfmodel.files.kinds import wrong_kind

    text, _ = read_text(path, what, TOML_CAP)
    try:
        return parse_toml(text, path), text
    except InputError:
        other = wrong_kind(path, text, want, noun=what.split(" (")[0])
        if other is not None:
            raise other from None
        raise
