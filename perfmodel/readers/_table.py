"""What every reader shares: number tokens, range checks in SI units, and the table builder.

A reader walks its file, adds rows in SI units to a :class:`Table` (one per benchmark block),
and calls :meth:`Table.build`, which checks every value once, in one place, and returns the
frozen :class:`~perfmodel.measurements.Measurements`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity

# What a measurement can be, in SI units: anything outside is a wrong unit or a broken file.
SIZE_MAX = 1e15                 # bytes (1 PB)
TIME_RANGE = (1e-12, 1e6)       # seconds (1 ps … 11.6 days)

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[0-9]{1,18}")
SKIPPED_SHOWN = 3
AGREE = 3.0
"""Two columns of one row that give the same thing (a time and the bandwidth printed beside
it) differ by the tool's rounding (two decimals, checked only where the printed value has two
significant digits: at most 5 %) and by its conventions (MB = 10^6 or 2^20 B: 4.9 %), which
the table's median ratio takes out.  A row more than 3× away from that median is damaged
(an edited or corrupted number), whichever column is wrong; in the real outputs in data/ and
the test fixtures no row is more than 1.3× away."""


def number(token: str) -> float | None:
    """The value of a plain decimal number token, or None (``nan``, ``1_000``, words).

    >>> number("2.5e-6"), number("nan"), number("Pass")
    (2.5e-06, None, None)
    """
    return float(token) if _NUMBER.fullmatch(token) else None


def integer(token: str) -> int | None:
    """The value of a token of digits only, or None."""
    return int(token) if _INTEGER.fullmatch(token) else None


def numbers(tokens: list[str], count: int) -> list[float] | None:
    """The first ``count`` tokens as numbers, or None if any of them is not one."""
    if len(tokens) < count:
        return None
    out = [number(t) for t in tokens[:count]]
    return None if any(v is None for v in out) else [v for v in out if v is not None]


def precise(token: str) -> bool:
    """Whether a printed number has two significant digits or more, so that its rounding
    is at most 5 % (``0.23`` yes, ``0.01`` and ``0.00`` no)."""
    digits = token.lstrip("+-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return len(digits) >= 2


def lines_of(text: str) -> list[tuple[int, str]]:
    """Every line, stripped, with its 1-based number.

    A literal ``^M`` at the end of a line (a carriage return as ``cat -v`` and mail archives
    show it) is stripped too, as a real one is.
    """
    return [(i, ln.strip().removesuffix("^M").rstrip())
            for i, ln in enumerate(text.splitlines(), start=1)]


def spans(lines: list[int]) -> str:
    """Line numbers as a note shows them: the first few, and "…" when there are more."""
    shown = ", ".join(str(n) for n in lines[:SKIPPED_SHOWN])
    return shown + (", …" if len(lines) > SKIPPED_SHOWN else "")


def built(tables: Iterable[Table], notes: Iterable[str] = ()) -> tuple[Measurements, ...]:
    """Every table of a file built (:meth:`Table.build`), those left without a row dropped;
    ``notes``, what reading the whole file left out, said on each."""
    every, said = list(tables), list(notes)
    for table in every:
        table.notes.extend(said)
    return tuple(t for t in (table.build() for table in every) if t is not None)


@dataclass
class Table:
    """Rows of one benchmark block, gathered while a reader walks its file.

    ``concurrency`` holds the counts that hold for every row (``pairs``, ``processes`` …);
    a row may add its own.  Times are seconds, sizes bytes, ``extra`` columns SI.
    """

    source: str
    format: str
    benchmark: str
    pattern: Pattern
    quantity: Quantity
    meaning: str
    version: str = ""
    statistic: str | None = None
    concurrency: dict[str, float] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    comments: tuple[str, ...] = ()
    _rows: list[tuple[int, float, float, float | None, dict[str, float], dict[str, float]]] = \
        field(default_factory=list)
    _dropped: dict[str, list[int]] = field(default_factory=dict)
    _skipped: list[int] = field(default_factory=list)
    _agree: list[tuple[int, float, float, str, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, line: int, size: float, time: float, reps: float | None = None,
            counts: dict[str, float] | None = None, /, **extra: float) -> None:
        """One row: size in bytes, time in seconds, extra columns in SI units."""
        self._rows.append((line, size, time, reps, counts or {}, extra))

    def drop(self, line: int, why: str) -> None:
        """A data row left out on purpose (a time-out, a failed validation …), said in notes."""
        self._dropped.setdefault(why, []).append(line)

    def agree(self, line: int, derived: float, printed: float, what: str,
              basis: str = "time") -> None:
        """The same quantity of one row twice: ``derived`` from the row's ``basis`` (its
        time), ``printed`` by the tool in another column (both SI, e.g. B/s), ``what`` naming
        the printed column.  :meth:`build` refuses a row whose two disagree (:data:`AGREE`)."""
        if derived > 0 and printed > 0 and math.isfinite(derived) and math.isfinite(printed):
            self._agree.append((line, derived, printed, what, basis))

    def _check_agreement(self) -> None:
        """Each row's redundant columns against the table's median ratio (the expected 1
        when fewer than three rows can be checked)."""
        if not self._agree:
            return
        ratios = [d / p for _, d, p, _, _ in self._agree]
        ref = float(np.median(ratios)) if len(ratios) >= 3 else 1.0
        others = "; the other rows agree" if len(ratios) >= 3 else ""
        for (line, derived, printed, what, basis), ratio in zip(self._agree, ratios, strict=True):
            off = ratio / ref
            if not 1 / AGREE <= off <= AGREE:
                times = max(off, 1 / off)
                raise InputError(
                    f"{self.benchmark}: the row's {basis} gives {derived:.4g} B/s, but its {what} "
                    f"says {printed:.4g} B/s ({times:.3g}× apart{others})",
                    file=self.source, line=line,
                    fix="the row is damaged (one of its numbers was changed); correct it "
                        "from the original output or delete the row")

    def skip(self, line: int) -> None:
        """A line inside the table that is not a row (a launcher's warning), said in notes."""
        self._skipped.append(line)

    def required(self, what: str, fix: str, line: int | None = None) -> Measurements:
        """The built table of a format that holds exactly one; an error when no row survived."""
        built = self.build()
        if built is None:
            raise InputError(what, file=self.source, line=line, fix=fix)
        return built

    def build(self) -> Measurements | None:
        """The checked, frozen table; None when no row survived."""
        self._check_agreement()
        rows = []
        for row in self._rows:
            line, size, time, *_ = row
            if self.pattern == "application" and math.isnan(size):
                pass
            elif not (0 <= size <= SIZE_MAX) or size != round(size):
                raise InputError(f"{self.benchmark}: message size {size:g} is not a whole number "
                                 "of bytes up to 1 PB", file=self.source, line=line,
                                 fix="the file is damaged here; remove the row")
            if not math.isfinite(time) or time < 0:
                raise InputError(f"{self.benchmark}: time {time:g} s is not a measurement",
                                 file=self.source, line=line,
                                 fix="the file is damaged here; remove the row")
            if time == 0:
                self.drop(line, "time printed as 0, below the tool's resolution")
                continue
            if not TIME_RANGE[0] <= time <= TIME_RANGE[1]:
                raise InputError(f"{self.benchmark}: a time of {time:g} s", file=self.source,
                                 line=line, fix="times must lie between 1 ps and 11.6 days; "
                                 "the file is damaged here")
            rows.append(row)
        notes = list(self.notes)
        for why, where in self._dropped.items():
            notes.append(f"{len(where)} row{'s' if len(where) > 1 else ''} left out: {why} "
                         f"(line{'s' if len(where) > 1 else ''} {spans(where)})")
        last = max((r[0] for r in self._rows), default=0)
        for place, lines in (("inside the table", [ln for ln in self._skipped if ln < last]),
                             ("after the table's last row",
                              [ln for ln in self._skipped if ln > last])):
            if lines:
                n = len(lines)
                notes.append(f"{n} line{'s' if n > 1 else ''} {place} that "
                             f"{'are' if n > 1 else 'is'} not data skipped (launcher output?; "
                             f"line{'s' if n > 1 else ''} {spans(lines)})")
        if not rows:
            return None
        count_keys = sorted(set(self.concurrency) | {k for r in rows for k in r[4]})
        extra_keys = sorted({k for r in rows for k in r[5]})
        reps = [r[3] for r in rows]
        return Measurements(
            source=self.source,
            size=np.array([r[1] for r in rows], dtype=np.float64),
            time=np.array([r[2] for r in rows], dtype=np.float64),
            line=tuple(r[0] for r in rows),
            quantity=self.quantity,
            format=self.format,
            benchmark=self.benchmark,
            concurrency={k: np.array([r[4].get(k, self.concurrency.get(k, np.nan)) for r in rows],
                                     dtype=np.float64) for k in count_keys},
            reps=None if any(r is None for r in reps) else np.array(reps, dtype=np.float64),
            statistic=None if self.statistic is None else (self.statistic,) * len(rows),
            comments=self.comments,
            notes=tuple(notes),
            pattern=self.pattern,
            version=self.version,
            extra={k: np.array([r[5].get(k, np.nan) for r in rows], dtype=np.float64)
                   for k in extra_keys},
            attrs=dict(self.attrs),
            meaning=self.meaning,
        )


def row_values(table: Table, line: int, tokens: list[str], need: int, what: str,
               width: int | None = None) -> list[float] | None:
    """The first ``need`` tokens of a table row as numbers.

    A row of numbers that stops short is a cut-off file and raises; a line with words in it
    (a launcher's warning), or with another number of tokens than the table's ``width``
    (another tool's numbers), is skipped, said in the table's notes, and gives None.
    """
    values = numbers(tokens, need)
    if values is None:
        got = 0
        while got < len(tokens) and number(tokens[got]) is not None:
            got += 1
        if got == len(tokens):
            raise truncated(table.source, line, got, need, what)
    if values is None or (width is not None and len(tokens) != width):
        table.skip(line)
        return None
    return values


def truncated(source: str, line: int, got: int, want: int, what: str) -> InputError:
    """The error for a row that stops short: the usual sign of a cut-off file."""
    return InputError(f"{what} row has {got} of its {want} values (a truncated file?)",
                      file=source, line=line, fix="rerun the benchmark, or delete the broken row")


def kept(built: Iterable[Measurements | None], source: str, tool: str,
         line: int | None) -> tuple[Measurements, ...]:
    """The tables of a file that kept rows; one error naming ``tool`` when none did (the usual
    sign of a file cut short), at ``line`` (its first block), when known."""
    tables = tuple(t for t in built if t is not None)
    if not tables:
        raise InputError(f"{tool} output with no data rows (a truncated file?)", file=source,
                         line=line, fix="rerun the benchmark and keep its whole output")
    return tables
