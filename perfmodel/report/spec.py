"""Report specifications: what a report shows, as data (TOML), read and checked here, never
executed::

    kind = "perfmodel report"
    schema_version = 1
    title = "The 1995 Beowulf"
    text = "Markdown prose put under the title."
    figures = "svg"                          # or "png"

    [[section]]
    kind = "profile"                         # a machine profile: fit, formula, diagnostics
    profile = "../calibration/hyglac-mpi.toml"

    [[section]]
    kind = "shared"                          # tokens on shared channels (pairs x channels)
    profile = "../calibration/beowulf-1995.toml"
    sizes = "4B..8KiB"
    pairs = "1..8"
    channels = "1,2"

    [[section]]
    kind = "scaling"                         # application models against node counts
    nodes = "1..16"
    metric = "mflops"                        # or "time", "speedup"
    [[section.run]]
    label = "PPM, fixed size"
    model = "ppm"
    machine = "../calibration/beowulf-1995.toml"
    fit = "../data/seeds/beowulf-1995-apps.csv"
    where = { code = "ppm", problem = "fixed", use = "fit" }
    points = { code = "ppm", problem = "fixed" }   # timing rows drawn as measured

Paths are relative to the specification's own folder.  Section kinds: :data:`KINDS`.  Unknown
keys are errors, so a typo never silently drops a part of a report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfmodel.errors import InputError
from perfmodel.whatif.axes import VARY

KIND = "perfmodel report"
_TOP = {"kind", "schema_version", "title", "text", "figures", "section"}
_RUN = {"label", "model", "machine", "fit", "where", "points", "set", "scaling", "size",
        "channels", "link_speed", "nodes"}
_MARK = {"at", "text", "source"}
_COMMON = {"kind", "title", "text"}
KINDS: dict[str, tuple[str, frozenset[str]]] = {
    "profile": ("a machine profile: inputs, fitted model with its formula and parameters, "
                "measured against fitted, predictions", frozenset({"profile", "sizes"})),
    "shared": ("throughput and message rate of tokens on shared channels, against message "
               "size, for each demand and channel count",
               frozenset({"profile", "sizes", "pairs", "channels", "table_sizes"})),
    "throughput": ("point-to-point bandwidth and time of several profiles against message "
                   "size, with their measured points", frozenset({"profiles", "sizes", "mark"})),
    "fanin": ("senders streaming into one receiver: throughput at the receiver against the "
              "number of senders, one line per message size",
              frozenset({"profile", "senders", "sizes", "mark"})),
    "exchange": ("the Exchange ring (IMB/Pallas) of several profiles and process counts: "
                 "throughput and time against message size",
                 frozenset({"profiles", "processes", "sizes", "mark"})),
    "scaling": ("application models against node counts: time, speedup or Mflop/s with the "
                "measured runs, efficiency and where the overhead goes",
                frozenset({"nodes", "metric", "run"})),
    "whatif": ("one application model over a grid of hardware changes: time, gain and "
               "communication share", frozenset({"run", "vary"})),
}
METRICS = ("time", "speedup", "mflops")


@dataclass(frozen=True)
class Mark:
    """A sentence of a seed (or any source) placed on a figure's x axis: at a message size
    (``"256B"``), or a count in a section whose axis counts (``"3"`` senders)."""

    at: str
    text: str
    source: str
    line: int | None = None
    x: float = math.nan


@dataclass(frozen=True)
class Run:
    """One application model on one machine, as ``perfmodel predict`` would run it."""

    label: str
    model: str
    machine: Path | None = None
    fit: Path | None = None
    where: Mapping[str, str] = field(default_factory=dict)
    points: Mapping[str, str] | None = None
    given: Mapping[str, str] = field(default_factory=dict)
    weak: bool = False
    size: float | None = None
    channels: int | None = None
    link_speed: str | None = None
    nodes: tuple[int, ...] = ()
    """Node counts for this run alone (default: the section's)."""


@dataclass(frozen=True)
class SectionSpec:
    kind: str
    title: str
    text: str
    options: Mapping[str, Any]
    line: int | None = None


@dataclass(frozen=True)
class ReportSpec:
    path: Path
    title: str
    text: str
    figures: str
    sections: tuple[SectionSpec, ...]
    generated: bool = False
    """True for a report made from profiles alone (no specification file)."""


def load(path: str | Path) -> ReportSpec:
    """Read and check a report specification."""
    from perfmodel.files.toml import read_toml

    p = Path(path)
    doc, text = read_toml(p, "a report specification", "report")
    return from_doc(doc, text, p)


def from_doc(doc: Mapping[str, Any], text: str, path: Path) -> ReportSpec:
    from perfmodel.files.toml import check_header, key_line, unknown_key

    check_header(doc, path, KIND, "report specification", text)
    unknown_key(doc, _TOP, path, text)
    title = _text(doc, "title", path, None, required=True)
    figures = doc.get("figures", "svg")
    if figures not in ("svg", "png"):
        raise InputError(f"figures is {figures!r}", file=path, line=key_line(text, "figures"),
                         fix='give "svg" or "png"')
    raw = doc.get("section", [])
    if not isinstance(raw, list) or not raw:
        raise InputError("no [[section]] tables", file=path,
                         fix=f"give at least one; kinds: {', '.join(KINDS)}")
    def place(i: int) -> Callable[[str], int | None]:
        return lambda key: key_line(text, f"section[{i}].{key}")

    sections = tuple(_section(s, path, key_line(text, f"section[{i}]"), place(i))
                     for i, s in enumerate(raw))
    return ReportSpec(path, title, _text(doc, "text", path, None), figures, sections)


def _text(doc: Mapping[str, Any], key: str, path: Path, line: int | None,
          required: bool = False) -> str:
    value = doc.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(f"{key} is {value!r}", file=path, line=line,
                         fix=f'give {key} as text: {key} = "..."')
    return value.strip()


def _section(raw: Any, path: Path, head: int | None,
             place: Callable[[str], int | None]) -> SectionSpec:
    """One ``[[section]]`` (its header on line ``head``); ``place(key)`` is the line a key of
    it is written on, for errors."""
    if not isinstance(raw, dict):
        raise InputError("a section is not a table", file=path, line=head,
                         fix="write [[section]] with its keys")
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise InputError(f"section kind is {kind!r}", file=path, line=place("kind") or head,
                         fix=f"give one of {', '.join(KINDS)}")
    allowed = KINDS[kind][1] | _COMMON
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise InputError(f"a {kind} section has no key {unknown[0]!r}", file=path,
                         line=place(unknown[0]) or head,
                         fix=f"its keys: {', '.join(sorted(allowed))}")
    opts: dict[str, Any] = {}
    base = path.parent
    line = head
    for key, value in raw.items():
        if key in _COMMON:
            continue
        line = place(key) or head
        where = f"{kind} section: {key}"
        if key == "profile":
            opts[key] = _path(value, base, path, line, where)
        elif key == "profiles":
            if not isinstance(value, list) or not value:
                raise InputError(f"{where} is {value!r}", file=path, line=line,
                                 fix='give a list of profile files: profiles = ["a.toml"]')
            opts[key] = tuple(_path(v, base, path, line, where) for v in value)
        elif key in ("sizes", "table_sizes"):
            opts[key] = _parsed(value, "size", path, line, where)
        elif key in ("pairs", "channels", "senders", "processes", "nodes"):
            opts[key] = _counts(value, key, path, line, where)
        elif key == "metric":
            if value not in METRICS:
                raise InputError(f"{where} is {value!r}", file=path, line=line,
                                 fix=f"give one of {', '.join(METRICS)}")
            opts[key] = value
        elif key == "mark":
            opts[key] = tuple(_mark(m, path, place(f"mark[{j}]") or line,
                                    _within(place, f"mark[{j}]"))
                              for j, m in enumerate(_tables(value, path, line, where)))
        elif key == "run":
            runs = _tables(value, path, line, where)
            opts[key] = tuple(_run(r, base, path, place(f"run[{j}]") or line,
                                   _within(place, f"run[{j}]")) for j, r in enumerate(runs))
            if kind == "whatif" and len(runs) != 1:
                raise InputError("a whatif section has one [section.run]", file=path,
                                 line=line, fix="give exactly one run")
        elif key == "vary":
            opts[key] = _vary(value, path, line)
    if "mark" in opts:
        axis = "count" if kind == "fanin" else "size"
        opts["mark"] = tuple(replace(m, x=mark_x(m, axis, path)) for m in opts["mark"])
    needs = {"profile": ("profile",), "shared": ("profile",), "throughput": ("profiles",),
             "fanin": ("profile",), "exchange": ("profiles",), "scaling": ("run",),
             "whatif": ("run", "vary")}[kind]
    for key in needs:
        if key not in opts:
            raise InputError(f"a {kind} section needs {key}", file=path, line=head,
                             fix=f"give {key} (see perfmodel report --help)")
    return SectionSpec(kind, _text(raw, "title", path, place("title") or head),
                       _text(raw, "text", path, place("text") or head), opts, head)


def _within(place: Callable[[str], int | None], table: str) -> Callable[[str], int | None]:
    """``place`` for the keys of a table inside the section (``run[1]``)."""
    return lambda key: place(f"{table}.{key}")


def _path(value: Any, base: Path, path: Path, line: int | None, where: str) -> Path:
    if not isinstance(value, str) or not value:
        raise InputError(f"{where} is {value!r}", file=path, line=line,
                         fix="give a file name relative to the specification's folder")
    target = base / value
    if not target.is_file():
        raise InputError(f"{where}: {target} is {'a directory' if target.is_dir() else 'missing'}",
                         file=path, line=line,
                         fix="give a file's name relative to the specification's folder")
    return target


def _tables(value: Any, path: Path, line: int | None, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value) or not value:
        raise InputError(f"{where} is not a list of tables", file=path, line=line,
                         fix=f"write [[section.{where.split(': ')[-1]}]] tables")
    return value


def _parsed(value: Any, kind: str, path: Path, line: int | None, where: str) -> list[float]:
    from perfmodel.units import parse_list

    if not isinstance(value, str):
        raise InputError(f"{where} is {value!r}", file=path, line=line,
                         fix='give a list as text: "1B,8KiB" or "4B..8KiB"')
    try:
        out = parse_list(value, kind)  # type: ignore[arg-type]
    except InputError as exc:
        raise InputError(f"{where}: {exc.what}", file=path, line=line, fix=exc.fix) from None
    if any(v < 0 for v in out):
        raise InputError(f"{where} has a negative value", file=path, line=line,
                         fix="sizes are 0 or more bytes")
    return out


def _counts(value: Any, what: str, path: Path, line: int | None, where: str) -> list[int]:
    from perfmodel.units import parse_counts

    if not isinstance(value, str):
        raise InputError(f"{where} is {value!r}", file=path, line=line,
                         fix='give counts as text: "1..8" or "1,2"')
    try:
        return parse_counts(value, what)
    except InputError as exc:
        raise InputError(f"{where}: {exc.what}", file=path, line=line, fix=exc.fix) from None


def _labels(value: Any, path: Path, line: int | None, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str | int) for v in value.values()):
        raise InputError(f"{where} is {value!r}", file=path, line=line,
                         fix='give labels as a table: { code = "ppm", use = "fit" }')
    return {str(k): str(v) for k, v in value.items()}


def _mark(raw: Mapping[str, Any], path: Path, head: int | None,
          place: Callable[[str], int | None]) -> Mark:
    """One ``[[section.mark]]`` (its header on line ``head``); the Mark keeps the line of its
    ``at``, where a later check of the axis points."""
    unknown = sorted(set(raw) - _MARK)
    if unknown:
        raise InputError(f"a mark has no key {unknown[0]!r}", file=path,
                         line=place(unknown[0]) or head, fix="its keys: at, text, source")
    line = place("at") or head
    at = raw.get("at")
    if isinstance(at, int) and not isinstance(at, bool) and at > 0:
        at = str(at)
    if not isinstance(at, str) or not at.strip():
        raise InputError(f"mark at is {at!r}", file=path, line=line,
                         fix='give where on the x axis: at = "256B" (or a count: at = 3)')
    text, source = (_text(raw, k, path, place(k) or head, required=True)
                    for k in ("text", "source"))
    return Mark(at.strip(), text, source, line)


def mark_x(mark: Mark, axis: str, path: Path) -> float:
    """Where ``mark`` sits on an axis of message sizes (``"size"``) or of counts."""
    if axis == "size":
        x = _parsed(mark.at, "size", path, mark.line, "mark at")[0] if "," not in mark.at \
            and ".." not in mark.at else _one(mark, path)
        return x if x > 0 else _one(mark, path)
    try:
        value = int(mark.at)
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"mark at is {mark.at!r}", file=path, line=mark.line,
                         fix="this figure's axis counts: give a whole number, at = 3")
    return float(value)


def _one(mark: Mark, path: Path) -> float:
    raise InputError(f"mark at is {mark.at!r}", file=path, line=mark.line,
                     fix='give one size: at = "256B"')


def _run(raw: Mapping[str, Any], base: Path, path: Path, line: int | None,
         place: Callable[[str], int | None] = lambda key: None) -> Run:
    """One ``[[section.run]]`` (its header on ``line``); ``place(key)`` is a key's line."""

    def at(key: str) -> int | None:
        return place(key) or line

    unknown = sorted(set(raw) - _RUN)
    if unknown:
        raise InputError(f"a run has no key {unknown[0]!r}", file=path, line=at(unknown[0]),
                         fix=f"its keys: {', '.join(sorted(_RUN))}")
    label, model = (_text(raw, k, path, at(k), required=True) for k in ("label", "model"))
    scaling = raw.get("scaling", "strong")
    if scaling not in ("strong", "weak"):
        raise InputError(f"run {label!r}: scaling is {scaling!r}", file=path, line=at("scaling"),
                         fix='give "strong" or "weak"')
    size = raw.get("size")
    if size is not None and (isinstance(size, bool) or not (isinstance(size, int | float)
                                                             and size > 0)):
        raise InputError(f"run {label!r}: size is {size!r}", file=path, line=at("size"),
                         fix="give a positive number in the model's size unit")
    channels = raw.get("channels")
    if channels is not None and (isinstance(channels, bool) or not (
            isinstance(channels, int) and 1 <= channels <= 64)):
        raise InputError(f"run {label!r}: channels is {channels!r}", file=path,
                         line=at("channels"),
                         fix="give a whole number from 1 to 64")
    link = raw.get("link_speed")
    if link is not None and not isinstance(link, str):
        raise InputError(f"run {label!r}: link_speed is {link!r}", file=path,
                         line=at("link_speed"),
                         fix='give it with its unit: link_speed = "100Mbps"')
    where = f"run {label!r}"
    if "fit" not in raw and ("where" in raw or "points" in raw):
        raise InputError(f"{where}: where and points select rows of a timings file",
                         file=path, line=line, fix="give fit = the timings file, or drop them")
    if model.endswith(".toml") or "/" in model:    # a model file, not a built-in name
        model = str(_path(model, base, path, at("model"), f"{where}: model"))
    return Run(label, model,
               _path(raw["machine"], base, path, at("machine"), f"{where}: machine")
               if "machine" in raw else None,
               _path(raw["fit"], base, path, at("fit"), f"{where}: fit") if "fit" in raw
               else None,
               _labels(raw.get("where", {}), path, at("where"), f"{where}: where"),
               _labels(raw["points"], path, at("points"), f"{where}: points") if "points" in raw
               else None,
               _labels(raw.get("set", {}), path, at("set"), f"{where}: set"),
               scaling == "weak", float(size) if size is not None else None, channels, link,
               tuple(_counts(raw["nodes"], "nodes", path, at("nodes"), f"{where}: nodes"))
               if "nodes" in raw else ())


AXES = tuple(k for k, axis in VARY.items() if axis not in ("node", "network"))
"""The axes a report's what-if varies: the command line's, without the catalogue's."""


MAX_WHATIF_ROWS = 10_000
"""The most configurations a report's what-if section may have: each is a row of its table
(about a second's work; far more than anyone reads)."""


def _vary(value: Any, path: Path, line: int | None) -> dict[str, str]:
    if not isinstance(value, dict) or not value:
        raise InputError(f"vary is {value!r}", file=path, line=line,
                         fix='give a table: vary = { nodes = "8,16", channels = "1,2" }')
    bad = sorted(set(value) - set(AXES))
    if bad:
        raise InputError(f"vary has no axis {bad[0]!r}", file=path, line=line,
                         fix=f"the axes: {', '.join(AXES)}")
    if not all(isinstance(v, str) for v in value.values()):
        raise InputError("vary's values are not text", file=path, line=line,
                         fix='give each axis as text: nodes = "8,16"')
    from perfmodel.errors import PerfModelError
    from perfmodel.whatif.axes import parse_vary

    try:   # a bad axis is refused where the section is built; only the count matters here
        axes = parse_vary([f"{k}={v}" for k, v in value.items()])
    except PerfModelError:
        return dict(value)
    rows = math.prod(len(v) for v in axes.values())
    if rows > MAX_WHATIF_ROWS:
        said = " × ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in axes.items())
        raise InputError(f"vary gives {rows:,} configurations ({said}), more than the "
                         f"{MAX_WHATIF_ROWS:,} a report's what-if section may have (one row "
                         "each)", file=path, line=line, fix="give fewer values, or coarser ranges")
    return dict(value)

