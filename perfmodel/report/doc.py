"""A report as plain data, and its markdown.

A :class:`Report` is a title, prose and :class:`Section` s; a section is a list of blocks,
each markdown text or a :class:`Figure` (a function drawing a matplotlib figure, called only
when the report is rendered).  :func:`render` returns the markdown and the figures' bytes; it
writes nothing.  Formulas are LaTeX between ``$$`` lines, which GitHub, GitLab, VS Code and
pandoc render.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """``name`` is the file's stem (unique in its report); ``draw()`` returns a matplotlib
    figure; ``caption`` says what is drawn and which marks are measured."""

    name: str
    caption: str
    draw: Callable[[], Any]


Block = str | Figure


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Report:
    title: str
    text: str
    sections: tuple[Section, ...]


def escape(text: str) -> str:
    """``text`` safe inside a table cell: pipes escaped, line breaks as spaces."""
    return re.sub(r"\s*\n\s*", " ", text).replace("|", "\\|")


def table(header: Sequence[str], rows: Sequence[Sequence[str]],
          right: Sequence[int] = ()) -> str:
    """A GitHub-flavoured markdown table; columns whose index is in ``right`` right-aligned."""
    if not rows:
        return ""
    align = ["---:" if i in right else ":---" for i in range(len(header))]
    lines = ["| " + " | ".join(escape(h) for h in header) + " |",
             "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def formula(latex: str) -> str:
    """A display formula."""
    return f"$$\n{latex.strip()}\n$$"


def bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {escape(i)}" for i in items)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def render(report: Report, folder: str, fmt: str,
           progress: Callable[[str], None] | None = None) -> tuple[str, dict[str, bytes]]:
    """The report's markdown, and each figure's bytes under ``folder/NAME.fmt`` (the path the
    markdown links to, relative to the markdown's own folder)."""
    from perfmodel.report.plot import to_bytes

    out = [f"# {report.title}", ""]
    if report.text:
        out += [report.text, ""]
    if len(report.sections) > 1:
        out += ["Contents:", ""]
        out += [f"{i}. [{s.title}](#{_anchor(s.title)})"
                for i, s in enumerate(report.sections, start=1)]
        out.append("")
    figures: dict[str, bytes] = {}
    number = 0
    for section in report.sections:
        out += [f"## {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, Figure):
                number += 1
                stem = slug(block.name)
                rel = f"{folder}/{stem}.{fmt}"
                k = 1
                while rel in figures:                 # two sections, one name: number them
                    k += 1
                    rel = f"{folder}/{stem}-{k}.{fmt}"
                if progress is not None:
                    progress(block.name)
                figures[rel] = to_bytes(block.draw(), fmt)
                out += [f"![Report figure {number}: {escape(block.caption)}]({rel})", "",
                        f"*Report figure {number}.* {block.caption}", ""]
            elif block.strip():
                out += [block.strip(), ""]
    text = _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", "\n".join(out).replace("\r\n", "\n"))
    return text.rstrip() + "\n", figures


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters (an ESC in a title, a NUL from a file): shown as ``\\x1b`` in the
markdown, never written raw, so a report shown in a terminal cannot rewrite it."""


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
