"""Tables that never cut a number: a Rich console that prints every table through
:func:`fit`, which leaves out what may go (and says so) or stacks rows when the terminal is too
narrow, and :class:`Tabular`, whose columns say what they hold and which may go first."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

if TYPE_CHECKING:
    from perfmodel.whatif.decisive import Decisive

MIN_WIDTH = 30
"""The narrowest console: a terminal (or COLUMNS) narrower than this is taken as this wide,
so no table is printed empty or with every column cut to ``…``."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BREAKS = re.compile(r"[\n\r\x0b\x0c\x85\u2028\u2029]")


def clean(text: object, *, one_line: bool = False) -> str:
    """Text from outside (a file's name or contents, a user's option) with its control
    characters shown as ``\\x1b`` rather than sent to the terminal (an ESC could rewrite the
    screen); ``one_line`` shows line breaks the same way."""
    out = _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", str(text))
    return _BREAKS.sub(lambda m: repr(m[0])[1:-1], out) if one_line else out


def safe(text: object) -> str:
    """Outside text to put inside Rich markup: :func:`clean`, then escaped, so ``[/]`` in a
    profile's name prints as itself."""
    return escape(clean(text))


def console() -> Console:
    """Rich console.  On a terminal (or with COLUMNS) tables fit its width (see :func:`fit`),
    taken as at least :data:`MIN_WIDTH`; into a file or a pipe nothing is cut: each table takes
    its natural width, however wide, so no number or heading is ever shortened to fit."""
    import os
    import sys

    wide = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 100_000
    out = _Console(highlight=False, soft_wrap=True, width=wide, emoji=False)
    if out.width < MIN_WIDTH:
        out.width = MIN_WIDTH
    return out


class _Console(Console):
    """A console that prints every table through :func:`fit`, so none is ever cut, and never
    passes a control character through (:func:`clean`) nor fails on markup it cannot read
    (a stray ``[/]`` prints as text)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        from rich.errors import MarkupError

        text = clean(text)
        try:
            return super().render_str(text, **kwargs)
        except MarkupError:
            return super().render_str(text, **{**kwargs, "markup": False})

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if not any(isinstance(o, Table) for o in objects):
            super().print(*objects, **kwargs)
            return
        for o in objects:
            if not isinstance(o, Table):
                super().print(o, **kwargs)
                continue
            shown, cut = _head(o)
            for part in [*fit(shown, self, self.width), *([cut] if cut else [])]:
                super().print(part, **kwargs)


MOST_ROWS = 200
"""The most rows a table shows: more than a person reads (and Rich takes seconds per thousand
to lay out); the rest are said in a line, and ``--json`` gives every one."""


def _head(t: Table, most: int = MOST_ROWS) -> tuple[Table, str]:
    """``t`` cut to its first ``most`` rows, with the line that says how many were left out
    (empty when none were)."""
    if t.row_count <= most:
        return t, ""
    import copy
    import dataclasses

    out = copy.copy(t)
    out.columns = [dataclasses.replace(c, _cells=list(c.cells)[:most]) for c in t.columns]
    out.rows = list(t.rows)[:most]
    return out, (f"[dim]note:[/dim] the first {most} of {t.row_count:,} rows; --json gives "
                 "every one")


# --- tables that never cut a number -------------------------------------------------------------

PROSE_MIN = 12   # a column of prose narrower than this is harder to read than a stacked row


class Tabular(Table):
    """A Rich table whose columns say what they hold and which may go when the terminal is
    too narrow.  ``column(header)`` adds a column of figures or short labels, never wrapped or
    cut; ``column(header, prose=True)`` one of sentences, wrapped at spaces (a long word is
    folded, never cut short); ``drop=1`` marks a column the first to leave a narrow terminal,
    ``drop=2`` the next, and so on (``None``: it stays).  :func:`fit` does the leaving."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("box", box.SIMPLE_HEAD)
        kwargs.setdefault("pad_edge", False)
        super().__init__(*args, **kwargs)
        self.drop_order: dict[int, int] = {}
        self.names: dict[int, str] = {}

    def column(self, header: str, *, justify: JustifyMethod = "right", drop: int | None = None,
               prose: bool = False, name: str | None = None, max_width: int | None = None
               ) -> None:
        """Add a column; ``name`` says what a column without a header holds, for the note that
        tells it was left out."""
        self.add_column(header, justify=justify, no_wrap=not prose,
                        overflow="fold" if prose else "ellipsis", max_width=max_width)
        index = len(self.columns) - 1
        if drop is not None:
            self.drop_order[index] = drop
        if name is not None:
            self.names[index] = name


def _text_width(out: Console, cell: Any, words: bool) -> tuple[int, int]:
    """Widest line of a cell, and its longest word (for ``words``)."""
    if isinstance(cell, str):
        cell = out.render_str(cell)
    if not isinstance(cell, Text):
        from rich.measure import Measurement

        m = Measurement.get(out, out.options, cell)
        return m.maximum, m.minimum
    lines = cell.plain.splitlines() or [""]
    widest = max(cell_len(line) for line in lines)
    if not words:
        return widest, widest
    return widest, max((cell_len(w) for w in cell.plain.split()), default=0)


def _column_need(out: Console, col: Column) -> int:
    """The narrowest a column can be with nothing cut: its widest cell, or for prose (a column
    that wraps) its longest word and at least :data:`PROSE_MIN`."""
    if col.width is not None:
        return col.width
    prose = not col.no_wrap
    sizes = [_text_width(out, c, prose) for c in (col.header, *col.cells)]
    widest = max(w for w, _ in sizes)
    if not prose:
        return widest
    need = max(max(word for _, word in sizes), min(widest, PROSE_MIN))
    return need if col.max_width is None else min(need, max(col.max_width, 1))


def table_width(out: Console, t: Table, keep: list[int]) -> int:
    """The width the columns ``keep`` of ``t`` need with no cell cut: cells, padding and
    rules, as Rich lays them out (``pad_edge``, ``box``, ``show_edge``)."""
    if not keep:
        return 0
    _, right, _, left = t.padding
    width = sum(_column_need(out, t.columns[i]) + left + right for i in keep)
    if not t.pad_edge:
        width -= left + right
    if t.box is not None:
        width += len(keep) - 1 + (2 if t.show_edge else 0)
    return width


def _subset(t: Table, keep: list[int]) -> Table:
    """A copy of ``t`` with only the columns ``keep``."""
    import copy
    import dataclasses

    out = copy.copy(t)
    if isinstance(out, Tabular):   # what may go has gone
        out.drop_order, out.names = {}, {}
    out.columns = [dataclasses.replace(t.columns[i], _index=j, _cells=list(t.columns[i].cells))
                   for j, i in enumerate(keep)]
    out.rows = list(t.rows)
    return out


def _label(t: Table, i: int) -> str:
    text = _plain(t.columns[i].header)
    names = t.names if isinstance(t, Tabular) else {}
    return names.get(i) or text or f"column {i + 1}"


def _stacked(out: Console, t: Table) -> list[Any]:
    """Each row as a block of ``header  value`` lines: for a terminal too narrow for the
    table even without the columns that may go."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(overflow="fold")
    cells = [list(c.cells) for c in t.columns]
    for r in range(t.row_count):
        if r:
            grid.add_row("", "")
        for i, col in enumerate(t.columns):
            value = cells[i][r]
            if isinstance(value, str) and not value.strip():
                continue
            grid.add_row(escape(_plain(col.header)), value)
    parts: list[Any] = []
    if t.title:
        parts.append(t.title)
    parts.append(grid)
    parts.append(f"[dim]note:[/dim] one block per row: {out.width} columns are too few for "
                 "the table; a wider terminal shows it")
    return parts


def _blank(col: Column) -> bool:
    """Whether a column has nothing to show: no cell, or no header, holds anything."""
    cells = [_plain(c).strip() for c in col.cells]
    return not any(cells) if cells else not _plain(col.header).strip()


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def fit(t: Table, out: Console, width: int) -> list[Any]:
    """What to print for table ``t`` on ``width`` columns, with no number or label cut: the
    table itself when it fits; else, in turn, without the columns with nothing in them, without
    the columns that hold one value in every row (said in a line below it), without the
    columns it lets go (a :class:`Tabular`'s ``drop``, lowest first, each taken back when it
    fits after all; a note names them), and else each row stacked as a block.  Columns of
    prose fold a long word rather than cut it."""
    for col in t.columns:
        if not col.no_wrap and col.overflow == "ellipsis":
            col.overflow = "fold"
    if table_width(out, t, list(range(len(t.columns)))) <= width:
        return [t]
    keep = [i for i, col in enumerate(t.columns) if not _blank(col)]
    same = [i for i in keep if t.row_count > 1 and len({_plain(c) for c in t.columns[i].cells})
            == 1 and _plain(next(iter(t.columns[i].cells))).strip()]
    keep = [i for i in keep if i not in same]
    order = t.drop_order if isinstance(t, Tabular) else {}
    dropped: list[int] = []
    for i in sorted((i for i in order if i in keep), key=lambda i: (order[i], -i)):
        if table_width(out, t, keep) <= width:
            break
        keep.remove(i)
        dropped.append(i)
    if table_width(out, t, keep) > width:
        return _stacked(out, t)
    for i in reversed(dropped[:-1]):   # a narrower column left out early may fit again
        if table_width(out, t, sorted([*keep, i])) <= width:
            keep = sorted([*keep, i])
            dropped.remove(i)
    parts: list[Any] = [_subset(t, keep)]
    if same:
        cells = [_plain(next(iter(t.columns[i].cells))) for i in same]
        parts.append("every row: " + ", ".join(
            escape(f"{_plain(t.columns[i].header)} {c}".strip()) for i, c in zip(same, cells,
                                                                                strict=True)))
    if dropped:
        names = ", ".join(escape(_label(t, i)) for i in sorted(dropped))
        parts.append(f"[dim]note:[/dim] left out at {width} columns: {names}; --json or a wider "
                     "terminal shows them")
    return parts


def decisive(said: Iterable[Decisive]) -> None:
    """Each assumed parameter that changes an answer (perfmodel.whatif.decisive), beside it."""
    out = console()
    for d in said:
        out.print(f"[yellow]assumption decides:[/] {safe(d.sentence())}")
