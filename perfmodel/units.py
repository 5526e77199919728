"""Quantities as people type them, converted to SI: bytes, seconds, bytes per second.

Prefixes are read exactly as written: ``k``/``K`` = 10^3, ``M`` = 10^6, ``G`` = 10^9,
``T`` = 10^12; ``Ki`` = 2^10, ``Mi`` = 2^20, ``Gi`` = 2^30, ``Ti`` = 2^40.  A capital ``B`` is
a byte and a lower-case ``b`` a bit, so ``Mbps`` and ``Mb/s`` are 10^6 bit/s = 125 000 B/s
while ``MBps`` and ``MB/s`` are 10^6 B/s.  ``GbE`` / ``MbE`` name an Ethernet line rate in
bits.  Lower-case ``m`` is milli, which no size or rate means, so ``mbps`` is refused with a
suggestion rather than guessed.

>>> parse_rate("10Mbps")
1250000.0
>>> parse_rate("1GbE")
125000000.0
>>> parse_size("8KiB"), parse_size("4K")
(8192.0, 4000.0)
>>> parse_time("2us"), parse_time("1.5ms")
(2e-06, 0.0015)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Literal

from perfmodel.errors import UnitError

Kind = Literal["size", "time", "rate", "flops"]

DECIMAL_PREFIXES: dict[str, float] = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
                                      "P": 1e15}
BINARY_PREFIXES: dict[str, float] = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40,
                                     "Pi": 2.0**50}
PREFIXES: dict[str, float] = {**DECIMAL_PREFIXES, **BINARY_PREFIXES}

# base unit -> factor to bytes (size) or bytes per second (rate)
SIZE_BASES: dict[str, float] = {"B": 1.0, "byte": 1.0, "bytes": 1.0, "b": 0.125, "bit": 0.125,
                                "bits": 0.125}
RATE_BASES: dict[str, float] = {
    "B/s": 1.0, "Bps": 1.0, "byte/s": 1.0, "bytes/s": 1.0,
    "b/s": 0.125, "bps": 0.125, "bit/s": 0.125, "bits/s": 0.125, "bE": 0.125,
}
# base unit -> factor to floating-point operations per second (a node's arithmetic rate)
FLOP_BASES: dict[str, float] = {"flop/s": 1.0, "flops": 1.0, "FLOPS": 1.0, "Flop/s": 1.0,
                                "FLOP/s": 1.0}
TIME_UNITS: dict[str, float] = {
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6, "µs": 1e-6, "μs": 1e-6,
    "ns": 1e-9, "nsec": 1e-9, "min": 60.0, "h": 3600.0,
}

_NUMBER = re.compile(
    r"^\s*(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>[^\s\d].*?)?\s*$"
)

_EXAMPLES: dict[Kind, str] = {
    "size": "8KiB, 4K, 1MiB, 512B",
    "time": "2us, 1.5ms, 0.3s",
    "rate": "10Mbps, 100Mb/s, 1GbE, 12.5GB/s",
    "flops": "4.5Mflop/s, 2GFLOPS, 1.2Gflop/s",
}


def _prefixed(unit: str, bases: dict[str, float]) -> float | None:
    """Factor of ``<prefix><base>`` or None when the text is not of that form."""
    for base, factor in bases.items():
        if unit.endswith(base):
            prefix = unit[: len(unit) - len(base)]
            if prefix in PREFIXES:
                return PREFIXES[prefix] * factor
    return None


def unit_factor(unit: str, kind: Kind) -> float:
    """SI factor of a unit text: bytes, seconds or bytes per second for one of it.

    >>> unit_factor("MBps", "rate"), unit_factor("KiB", "size"), unit_factor("us", "time")
    (1000000.0, 1024.0, 1e-06)
    """
    u = unit.strip()
    factor: float | None
    if kind == "time":
        factor = TIME_UNITS.get(u)
    elif kind == "size":
        factor = 1.0 if u == "" else (PREFIXES.get(u) or _prefixed(u, SIZE_BASES))
    elif kind == "flops":
        factor = _prefixed(u, FLOP_BASES)
    else:
        factor = _prefixed(u, RATE_BASES)
    if factor is None:
        raise UnitError(f"unknown {kind} unit {unit!r}", fix=_suggest(u, kind))
    return factor


def _suggest(unit: str, kind: Kind) -> str:
    hint = f"write it like {_EXAMPLES[kind]}"
    if unit[:1] == "m" and kind in ("size", "rate", "flops"):
        return f"lower-case 'm' is milli; for mega write {'M' + unit[1:]!r} ({hint})"
    if unit[:1] in ("g", "t") and kind in ("size", "rate", "flops"):
        return f"did you mean {unit[:1].upper() + unit[1:]!r}? ({hint})"
    return hint


def parse_quantity(text: str, kind: Kind) -> float:
    """Parse ``text`` as a size, time or rate; return bytes, seconds or bytes/s.

    A bare number is a size in bytes; times and rates must carry a unit.
    """
    if not isinstance(text, str):
        raise UnitError(f"expected a {kind} as text, got {text!r}", fix=_EXAMPLES[kind])
    m = _NUMBER.match(text)
    if m is None:
        raise UnitError(f"cannot read {text!r} as a {kind}", fix=f"write it like {_EXAMPLES[kind]}")
    value = float(m["num"])
    unit = m["unit"] or ""
    if unit == "" and kind != "size":
        raise UnitError(f"{text!r} has no unit", fix=f"give a {kind} unit, like {_EXAMPLES[kind]}")
    result = value * unit_factor(unit, kind)
    if not math.isfinite(result):
        raise UnitError(f"{text!r} is not a finite {kind}", fix=f"write it like {_EXAMPLES[kind]}")
    return result


def parse_size(text: str) -> float:
    """Message or buffer size in bytes (``8KiB`` -> 8192.0; a bare number is bytes)."""
    return parse_quantity(text, "size")


def parse_time(text: str) -> float:
    """Duration in seconds (``2us`` -> 2e-6)."""
    return parse_quantity(text, "time")


def parse_rate(text: str) -> float:
    """Bandwidth in bytes per second (``10Mbps`` -> 1.25e6)."""
    return parse_quantity(text, "rate")


def parse_flop_rate(text: str) -> float:
    """Arithmetic rate in flop/s (``4.5Mflop/s`` and ``4.5MFLOPS`` -> 4.5e6)."""
    return parse_quantity(text, "flops")


MAX_ITEMS = 100_000

MIN_RATE = 1.0
"""The slowest bandwidth or line rate perfmodel takes, bytes per second (8 bit/s): a fitted
or given β and every line rate of a what-if; below it a rate is a unit mistake
(``1e-300bps``), not a link."""
MAX_RATE = 1e15
"""The fastest, bytes per second (8 Pb/s, 10,000 times today's fastest links): above it a rate
is a unit mistake too."""
MAX_LATENCY = 3600.0
"""The longest latency a what-if takes, seconds."""


def check_rate(value: float) -> str:
    """Why ``value`` (bytes per second) is no line rate, or ``""``.

    >>> check_rate(12.5e6), check_rate(1e-300) != ""
    ('', True)
    """
    if not MIN_RATE <= value <= MAX_RATE:
        return "is not a line rate from 1 B/s (8 bit/s) to 1 PB/s"
    return ""


def line_rate_problem(value: float) -> str:
    """Why ``value`` (bytes per second) is no link speed, or ``""``: every link speed a user
    asks for (options, ``--vary``, catalogues, report runs, a changed machine) is checked
    with this.  (A spec's or profile's own ``line_rate`` is a fabric parameter, checked by its
    range: at least 1 B/s.)

    >>> line_rate_problem(-1.0), line_rate_problem(12.5e6)
    ('is not a positive rate', '')
    """
    if not value > 0:
        return "is not a positive rate"
    return check_rate(value)


def parse_list(text: str, kind: Kind) -> list[float]:
    """Comma-separated quantities: ``"1B,8KiB,1MiB"`` -> ``[1.0, 8192.0, 1048576.0]``.

    ``A..B`` is every doubling from A up to B: ``"4B..32B"`` -> ``[4, 8, 16, 32]``.
    A whole number without a unit right before an item with one (``"1,5KiB"``) is refused as
    a likely decimal comma, not read as two values.
    """
    items = [t for t in (s.strip() for s in text.split(",")) if t]
    if not items:
        raise UnitError(f"empty list {text!r}",
                        fix=f"give one or more values like {_EXAMPLES[kind]}")
    from itertools import pairwise

    for bare, after in pairwise(items):   # "5KiB" right after a decimal comma
        tail = re.match(r"^[0-9]+\s*(?P<unit>[^\d\s.,].*)$", after)
        if bare.isascii() and bare.isdigit() and tail is not None:
            one = f"{bare}.{after}"
            if kind == "size":
                raise UnitError(f"did you mean {one}? a list item without a unit is "
                                "bytes", fix=f"write {one}, or {bare}B,{after} if you meant "
                                             "two sizes")
            raise UnitError(f"did you mean {one}? every {kind} in a list needs a unit",
                            fix=f"write {one}, or {bare}{tail['unit']},{after} if you meant "
                                f"two {kind}s")
    out: list[float] = []
    origin: list[str] = []   # the item each value came from
    for item in items:
        lo_text, dots, hi_text = item.partition("..")
        if not dots:
            out.append(parse_quantity(item, kind))
            origin.append(item)
            continue
        lo, hi = parse_quantity(lo_text.strip(), kind), parse_quantity(hi_text.strip(), kind)
        if not 0 < lo <= hi or math.log2(hi / lo) > 200:
            raise UnitError(f"range {item!r} does not rise from a positive value",
                            fix="write LOW..HIGH with 0 < LOW <= HIGH, e.g. 4B..8KiB")
        steps = math.floor(math.log2(hi / lo) + 1e-9)
        out += [lo * 2.0**i for i in range(steps + 1)]
        origin += [item] * (steps + 1)
        if len(out) > MAX_ITEMS:
            break
    if len(out) > MAX_ITEMS:
        raise UnitError(f"{text!r} has {len(out)} values", fix=f"give at most {MAX_ITEMS}")
    first: dict[str, int] = {}
    for i, v in enumerate(out):
        key = f"{v:.12g}"   # 1us and 1000ns differ in the last bit
        if key in first:
            a, b = origin[first[key]], origin[i]
            said = f"{a!r} twice" if a == b else f"the same {kind} twice ({a!r} and {b!r})"
            raise UnitError(f"{text!r} gives {said}",
                            fix="give each value once: every one is a row of the answer")
        first[key] = i
    return out


def parse_counts(text: str, what: str, lo: int = 1, hi: int | None = None) -> list[int]:
    """Whole numbers from ``lo`` to ``hi`` (default :data:`MAX_ITEMS`): ``"1..8"``, ``"1,2"``,
    ``"1..4,8,16"`` (ranges step by one); sorted, each once. ``what`` names the option in the
    error (``nodes`` -> ``--nodes``; a name starting with ``-`` is used as it is)."""
    flag = what if what.startswith("-") else f"--{what}"
    top = MAX_ITEMS if hi is None else hi
    out: set[int] = set()
    for item in (t.strip() for t in text.split(",")):
        first, dots, last = item.partition("..")
        try:
            a = int(first)
            b = int(last) if dots else a
        except ValueError:
            raise UnitError(f"{flag} {text!r}: {item!r} is not a whole number or a range",
                            fix=f"write e.g. {flag} {lo}..8 or {flag} {lo},{2 * lo}") from None
        if not lo <= a <= b <= top:
            raise UnitError(f"{flag} {text!r}: {item!r} is not a rising range of counts "
                            f"from {lo} to {top}", fix=f"write e.g. {flag} {lo}..8")
        span = range(a, b + 1)
        if not out.isdisjoint(span):
            twice = next(v for v in span if v in out)
            raise UnitError(f"{flag} {text!r} gives {twice} twice",
                            fix="give each count once: every one is a row of the answer")
        out.update(span)
        if len(out) > MAX_ITEMS:
            raise UnitError(f"{flag} {text!r} has too many values",
                            fix=f"give at most {MAX_ITEMS}")
    return sorted(out)


# --- formatting for people ------------------------------------------------------------------

def significant(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, never in exponent form from 1000 up to 10^15:
    ``3860.4`` -> ``'3,860'``."""
    text = f"{x:.{digits}g}"
    if "e+" in text and abs(float(text)) < 1e15:
        return f"{float(text):,.0f}"
    return text


def format_size(nbytes: float) -> str:
    """``8192`` -> ``'8 KiB'``: whole binary multiples exactly, other sizes in bytes up to
    10^7 and to four digits beyond (``320000000`` -> ``'305.2 MiB'``)."""
    if nbytes >= 1024 and float(nbytes).is_integer():
        for prefix in ("Pi", "Ti", "Gi", "Mi", "Ki"):
            f = BINARY_PREFIXES[prefix]
            if nbytes >= f and nbytes % f == 0 and nbytes // f < 10000:
                return f"{int(nbytes // f)} {prefix}B"
    if nbytes >= 1e7:
        prefix = next(p for p in ("Pi", "Ti", "Gi", "Mi") if nbytes >= BINARY_PREFIXES[p])
        return f"{significant(nbytes / BINARY_PREFIXES[prefix], 4)} {prefix}B"
    return f"{int(nbytes)} B" if float(nbytes).is_integer() else f"{significant(nbytes, 6)} B"


# units people read, largest first; the last one takes everything smaller
_LADDERS: dict[str, tuple[tuple[str, float], ...]] = {
    "time": (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)),
    "rate": (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3), ("B/s", 1.0)),
    "flops": (("Pflop/s", 1e15), ("Tflop/s", 1e12), ("Gflop/s", 1e9), ("Mflop/s", 1e6),
              ("flop/s", 1.0)),
}


def _unit_for(value: float, kind: Literal["time", "rate", "flops"]) -> tuple[str, float]:
    """The unit to show ``value`` in, chosen after rounding (so 0.999999 ms reads 1 ms)."""
    a = abs(float(f"{value:.3g}"))
    ladder = _LADDERS[kind]
    return next(((u, f) for u, f in ladder if a >= f), ladder[-1])


def _format(value: float, kind: Literal["time", "rate", "flops"]) -> str:
    if not math.isfinite(value):
        return "—"
    unit, f = _unit_for(value, kind)
    return f"{significant(value / f)} {unit}"


def format_time(seconds: float) -> str:
    """``2e-6`` -> ``'2 µs'``, with three significant digits."""
    return _format(seconds, "time")


def format_rate(bytes_per_s: float) -> str:
    """``1.25e6`` -> ``'1.25 MB/s'`` (decimal bytes per second, as MPI benchmarks print)."""
    return _format(bytes_per_s, "rate")


def format_range(lo: float, hi: float, kind: Literal["time", "rate"]) -> str:
    """``(1.25e-6, 1.63e-6, "time")`` -> ``'1.25–1.63 µs'``: both ends in the unit of ``hi``;
    a low end too small to show there without an exponent is written in its own unit, or as
    0 below the smallest unit (``(1e-6, 8.87e7, "rate")`` -> ``'0–88.7 MB/s'``).

    >>> format_range(1.25e-6, 1.63e-6, "time"), format_range(12.0, 8.87e7, "rate")
    ('1.25–1.63 µs', '12 B/s – 88.7 MB/s')
    """
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "—"
    unit, f = _unit_for(hi, kind)
    low = significant(lo / f)
    if "e" in low:
        bottom = _LADDERS[kind][-1][1]
        if abs(lo) < bottom / 2:
            low = "0"
        else:
            return f"{_format(lo, kind)} – {significant(hi / f)} {unit}"
    return f"{low}–{significant(hi / f)} {unit}"


def format_share(fraction: float, digits: int = 1) -> str:
    """``0.123`` -> ``'12.3 %'``; — when it is not a number; never ``-0.0 %``.

    >>> format_share(0.123), format_share(-1e-9)
    ('12.3 %', '0.0 %')
    """
    if not math.isfinite(fraction):
        return "—"
    return f"{round(100 * fraction, digits) + 0.0:.{digits}f} %"


def format_change(fraction: float, digits: int = 1) -> str:
    """A signed share: ``0.092`` -> ``'+9.2 %'``, ``-0.5`` -> ``'-50.0 %'``; one that rounds
    to zero is ``'0.0 %'``, never ``-0.0 %``.

    >>> format_change(0.092), format_change(-0.5), format_change(-1e-9)
    ('+9.2 %', '-50.0 %', '0.0 %')
    """
    if not math.isfinite(fraction):
        return "—"
    x = round(100 * fraction, digits) + 0.0
    return f"{x:+.{digits}f} %" if x else f"{0.0:.{digits}f} %"


def format_number(x: float, digits: int = 4) -> str:
    """A plain number for a table: whole numbers in full with thousands separators, others to
    ``digits`` significant digits; never in exponent form from 10^-4 up to 10^15, never ``-0``.

    >>> format_number(8388608), format_number(3.14159), format_number(2482.3), format_number(-0.0)
    ('8,388,608', '3.142', '2,482', '0')
    """
    if not math.isfinite(x):
        return "—" if math.isnan(x) else ("∞" if x > 0 else "-∞")
    x = x + 0.0
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    text = significant(x, digits)
    if "e" not in text and "," not in text and abs(float(text)) >= 1000:
        text = f"{float(text):,.0f}"
    return text


def format_amount(value: float, unit: str) -> str:
    """A problem size or count in its unit: bytes on the binary ladder (``8388608`` B ->
    ``'8 MiB'``), anything else as a plain number (``8388608`` keys -> ``'8,388,608'``)."""
    return format_size(value) if unit == "B" and math.isfinite(value) and value >= 0 \
        else format_number(value)


def format_counts(nodes: Iterable[float]) -> str:
    """1,2,3,4,8,9 -> '1–4, 8–9' (runs of consecutive counts in the sweep's order)."""
    vals = sorted(set(float(v) for v in nodes))
    if not vals:
        return "none"
    out, start, prev = [], vals[0], vals[0]
    for v in vals[1:]:
        if v != prev + 1:
            out.append(f"{start:g}" if start == prev else f"{start:g}–{prev:g}")
            start = v
        prev = v
    out.append(f"{start:g}" if start == prev else f"{start:g}–{prev:g}")
    return ", ".join(out) if len(out) <= 6 else f"{', '.join(out[:5])} … ({len(vals)} counts)"


def format_value(value: float, unit: str) -> str:
    """A value in its SI unit, written for people: seconds, bytes per second and bytes on
    their ladders, anything else to four digits."""
    if not math.isfinite(value):
        return "—" if math.isnan(value) else "∞"
    if unit == "s":
        return format_time(value)
    if unit == "B/s":
        return format_rate(value)
    if unit == "B":
        return format_size(value)
    if unit == "s/B":
        return f"{format_time(value)}/B"
    return f"{value:.4g} {unit}".strip()


def format_flop_rate(rate: float) -> str:
    """A flop rate on its ladder, to three digits.

    >>> format_flop_rate(4.5e6), format_flop_rate(1.2e9), format_flop_rate(800.0)
    ('4.5 Mflop/s', '1.2 Gflop/s', '800 flop/s')
    """
    return _format(rate, "flops")


def format_line_rate(bytes_per_s: float) -> str:
    """A link's line rate in bits per second, the unit links are sold in: ``1.25e7`` ->
    ``'100 Mb/s'``, ``1.25e8`` -> ``'1 Gb/s'``."""
    bits = bytes_per_s * 8
    return f"{bits / 1e6:g} Mb/s" if bits < 1e9 else f"{bits / 1e9:g} Gb/s"
