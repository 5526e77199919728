"""The command-line reference as markdown, generated from the Typer app itself.

``render(app)`` walks the click commands Typer builds (``typer.main.get_command``) and writes,
for the program and each command in the order they are registered: its usage line, its help
text and one line per argument and option (names, type, help, default, range). The text does
not depend on the terminal: no widths, no Rich boxes, plain markdown.

``python -m perfmodel.cli.reference docs/reference/cli.md`` (``make docs``) writes it;
``tests/test_docs.py`` fails when the committed file differs from ``render(app)``.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any

import typer

HEADER = """\
# Command-line reference

Generated from the command-line interface itself by `make docs`
(`python -m perfmodel.cli.reference docs/reference/cli.md`); `tests/test_docs.py` fails when
this file is not what the installed commands say. Do not edit it by hand.

Sizes, times and rates take units as people write them (`8KiB`, `2us`, `100Mbps`, `1GbE`);
lists are `1,2,4`; a range of sizes or rates `4B..8KiB` is every doubling, a range of counts
`1..16` every whole number (see [the units](../formats/units.md)).
Every command exits 0 on success, 1 where a plan finds nothing that meets its target and
2 on bad input, with one line `error: FILE:LINE: what — how to fix it` on standard error.
"""

_MARKUP = re.compile(r"\[/?(?:bold|italic|dim|red|green|yellow|blue|cyan|magenta|underline)\]")


def _text(raw: str | None) -> str:
    """A docstring or help text as markdown paragraphs: dedented, no click markers, no markup."""
    if not raw:
        return ""
    text = inspect.cleandoc(raw).replace("\b\n", "").replace("\b", "")
    text = _MARKUP.sub("", text)
    paragraphs = [" ".join(line.strip() for line in block.splitlines())
                  for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p in paragraphs if p)


def _cell(text: str) -> str:
    """One line of help text, its markdown emphasis characters escaped."""
    return " ".join(text.split()).replace("*", r"\*").replace("_", r"\_")


def _param_lines(command: Any, ctx: Any) -> list[str]:
    lines = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:      # hidden
            continue
        names, help_text = record
        kind = "argument" if param.param_type_name == "argument" else "option"
        line = f"- `{' '.join(names.split())}`"
        if kind == "argument":
            line += " (argument)"
        help_text = _cell(help_text)
        lines.append(f"{line}: {help_text}" if help_text else line)
    return lines


def _usage(command: Any, ctx: Any) -> str:
    return " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])


def _section(command: Any, ctx: Any, level: int) -> list[str]:
    out = [f"{'#' * level} `{ctx.command_path}`", ""]
    out += ["```text", _usage(command, ctx), "```", ""]
    text = _text(command.help)
    if text:
        out += [text, ""]
    params = _param_lines(command, ctx)
    if params:
        out += [*params, ""]
    return out


def _settings(command: Any) -> dict[str, Any]:
    """The command's own context settings (``-h`` beside ``--help``), at a fixed width."""
    settings = dict(getattr(command, "context_settings", None) or {})
    settings.update(terminal_width=100, max_content_width=100)
    return settings


def render(app: typer.Typer) -> str:
    """The markdown reference of every command of ``app`` (deterministic, terminal-free)."""
    group = typer.main.get_command(app)
    root = group.context_class(group, info_name=app.info.name or "perfmodel", **_settings(group))
    out = [HEADER]
    names = list(group.list_commands(root)) if hasattr(group, "list_commands") else []
    if names:
        out += ["Commands: " + ", ".join(f"[`{n}`](#perfmodel-{n})" for n in names) + ".", ""]
    out += _section(group, root, 2)

    def walk(command: Any, ctx: Any, level: int) -> None:
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            sub_ctx = sub.context_class(sub, info_name=name, parent=ctx, **_settings(sub))
            out.extend(_section(sub, sub_ctx, level))
            if hasattr(sub, "list_commands"):
                walk(sub, sub_ctx, level + 1)

    if names:
        walk(group, root, 2)
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m perfmodel.cli.reference [PATH]``: write the reference (standard output
    without PATH)."""
    from perfmodel.cli.app import app

    args = sys.argv[1:] if argv is None else argv
    text = render(app)
    if not args:
        sys.stdout.write(text)
        return 0
    path = Path(args[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
