"""Network specifications with citations: parameters that are known, not fitted.

Where a paper or a datasheet gives a latency or a link rate instead of a curve, a spec file
records the value, its unit as written, and where it comes from::

    kind = "perfmodel network spec"
    schema_version = 1
    model = "hockney"

    [params.alpha]
    value = "2us"
    source = "seed 003 §3: 'providing one-way latencies as low as 2 μ s' (sic)"

``calibrate --spec FILE`` holds these parameters fixed, fits the rest to the measurements
given (if any), and copies each source into the profile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import InputError
from perfmodel.network import models as registry

KIND = "perfmodel network spec"


@dataclass(frozen=True)
class NetworkSpec:
    path: str
    model: str
    fixed: dict[str, float]
    sources: dict[str, str]
    notes: tuple[str, ...] = ()


def _line_of(text: str, key: str) -> int | None:
    for i, ln in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*\[params\.{re.escape(key)}\]", ln):
            return i
    return None


def load_spec(path: str | Path) -> NetworkSpec:
    from perfmodel.readers import read_toml

    doc, text = read_toml(path)
    if doc.get("kind") != KIND:
        raise InputError("is not a network spec", file=path, line=1,
                         fix=f'start it with kind = "{KIND}"')
    unknown = sorted(set(doc) - {"kind", "schema_version", "model", "params", "notes"})
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}", file=path,
                         fix="known keys: kind, schema_version, model, params, notes")
    if doc.get("schema_version") != 1:
        raise InputError(f"schema_version is {doc.get('schema_version')!r}", file=path,
                         fix="this perfmodel reads network specs of schema_version = 1")
    model = doc.get("model")
    if model not in registry.MODELS or model == "piecewise":
        raise InputError(f"model is {model!r}", file=path,
                         fix="give hockney, loggp or packet")
    params = {p.name: p for p in registry.spec(model).params}
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        raise InputError("params is not a table", file=path, fix="write [params.NAME] tables")
    fixed: dict[str, float] = {}
    sources: dict[str, str] = {}
    for name, entry in raw.items():
        line = _line_of(text, name)
        if name not in params:
            raise InputError(f"model {model} has no parameter {name!r}", file=path, line=line,
                             fix=f"its parameters are {', '.join(params)}")
        if not isinstance(entry, dict) or set(entry) - {"value", "source"} or \
                not isinstance(entry.get("value"), str) or not isinstance(entry.get("source"), str):
            raise InputError(f"params.{name} needs value and source, both quoted text",
                             file=path, line=line, fix='value = "2us", source = "paper: sentence"')
        try:
            fixed[name] = registry.parse_value(name, entry["value"])
        except InputError as exc:
            raise InputError(f"params.{name}: {exc.what}", file=path, line=line,
                             fix=exc.fix) from None
        sources[name] = entry["source"]
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise InputError("notes must be a list of strings", file=path, fix='notes = ["..."]')
    return NetworkSpec(str(path), model, fixed, sources, tuple(notes))
