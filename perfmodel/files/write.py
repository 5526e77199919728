"""A small TOML writer for perfmodel's own plain data: tables, arrays of tables, and inline
arrays of numbers and strings (so a covariance matrix stays one row per line).

Reading uses the standard library's :mod:`tomllib`; every writer test round-trips through it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
          "\r": "\\r"}
_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]')
"""What a basic string writes escaped: the quote, the backslash, every C0 and C1 control and
DEL (TOML forbids them raw), the line and paragraph separators and the BOM (which split or
hide lines in other readers), and lone surrogates (no UTF-8 has them)."""


def _escaped(match: re.Match[str]) -> str:
    c = match[0]
    if c in _SHORT:
        return _SHORT[c]
    if "\udc80" <= c <= "\udcff":   # a byte of a file name that was not UTF-8: shown as \xNN
        return f"\\\\x{ord(c) - 0xDC00:02x}"
    if "\ud800" <= c <= "\udfff":
        return "\ufffd"
    return f"\\u{ord(c):04x}"


def quote(s: str) -> str:
    """``s`` as a TOML basic string that :mod:`tomllib` reads back as ``s`` (a lone surrogate,
    which no file can hold, reads back as ``\\xNN`` or U+FFFD)."""
    return '"' + _ESCAPE.sub(_escaped, s) + '"'


def _key(k: str) -> str:
    return k if _BARE.match(k) else quote(k)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, Sequence):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _value(v: Any) -> str:
    if isinstance(v, list) and v and all(isinstance(x, list) for x in v):
        rows = ",\n".join("    " + _scalar(r) for r in v)
        return "[\n" + rows + ",\n]"
    return _scalar(v)


def _leaf(v: Any) -> bool:
    """A table of scalars only, written inline when nested two deep or more."""
    return isinstance(v, Mapping) and not any(
        isinstance(x, Mapping) or (isinstance(x, list) and x and isinstance(x[0], list | Mapping))
        for x in v.values())


def _inline(v: Mapping[str, Any]) -> str:
    return "{ " + ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items()) + " }"


def _table(d: Mapping[str, Any], path: str, out: list[str]) -> None:
    depth = path.count(".") + 1 if path else 0
    for k, v in d.items():
        if depth >= 1 and _leaf(v):
            out.append(f"{_key(k)} = {_inline(v)}")
        elif not isinstance(v, Mapping) and not _is_table_array(v):
            out.append(f"{_key(k)} = {_value(v)}")
    for k, v in d.items():
        sub = f"{path}.{_key(k)}" if path else _key(k)
        if depth >= 1 and _leaf(v):
            continue
        if isinstance(v, Mapping):
            out.append("")
            out.append(f"[{sub}]")
            _table(v, sub, out)
        elif _is_table_array(v):
            for item in v:
                out.append("")
                out.append(f"[[{sub}]]")
                _table(item, sub, out)


def dumps(doc: Mapping[str, Any]) -> str:
    """TOML text of ``doc`` (dicts, lists, str, int, float incl. nan and inf, bool)."""
    out: list[str] = []
    _table(doc, "", out)
    return "\n".join(out).lstrip("\n") + "\n"
