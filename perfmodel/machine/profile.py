"""Machine profiles: what ``calibrate`` writes and ``network`` (later ``predict``) reads.

A profile is plain TOML (no pickle, nothing executable) with a schema version and the
provenance of every number: the inputs and their sha256, the tool and library versions, the
date and the command, and for a parameter that was not fitted, where its value came from.
Profiles of an older schema keep loading; a newer one is refused with a clear message.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from perfmodel import SCHEMA_VERSION
from perfmodel.errors import InputError
from perfmodel.files.doc import (
    DocReader,
    number_list,
    read_covariance,
    read_estimate,
)
from perfmodel.machine.at_scale import CollectiveRun, read_collectives
from perfmodel.network import models as registry
from perfmodel.network.corrections import Corrections, Ratios
from perfmodel.network.fabric import PARAMS as FABRIC_PARAMS
from perfmodel.network.fabric import (
    TOPOLOGIES,
    Fabric,
    check_param,
    topology_params,
)
from perfmodel.network.fit import FitResult, NetworkModel, Selection
from perfmodel.network.measured import Measured
from perfmodel.node import MEMORY_ONLY, Node
from perfmodel.node import PARAMS as NODE_PARAMS
from perfmodel.node import check_param as check_node
from perfmodel.params import Estimate

KIND = "perfmodel machine profile"


@dataclass(frozen=True)
class InputRecord:
    """One input file as it was when calibrated."""

    path: str
    sha256: str
    format: str
    benchmark: str
    quantity: str
    rows: int
    rows_used: int
    comments: tuple[str, ...] = ()
    pattern: str = "pingpong"


@dataclass(frozen=True)
class Profile:
    """A calibrated machine: for now its point-to-point network model and how it was got."""

    name: str
    network: NetworkModel
    fit: Mapping[str, float] = field(default_factory=dict)
    selection: str = ""
    candidates: tuple[Mapping[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    inputs: tuple[InputRecord, ...] = ()
    provenance: Mapping[str, str] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION
    fabric: Fabric | None = None
    node: Node | None = None
    layout: Mapping[str, int] = field(default_factory=dict)
    """How the inputs' jobs placed their ranks, as calibrate was told (``ranks_per_node`` or
    ``nodes_per_job``; empty: not said), so that a report reads the inputs as the fit did."""
    collectives: tuple[CollectiveRun, ...] = ()
    """Collectives the inputs timed at a known node count (:mod:`perfmodel.machine.at_scale`)."""


def fit_summary(result: FitResult) -> dict[str, float]:
    return {"n": result.n, "k": result.k, "rss": result.rss, "aic": result.aic,
            "bic": result.bic, "median_rel_err": result.median_rel_err,
            "max_rel_err": result.max_rel_err}


def from_selection(name: str, selection: Selection, inputs: tuple[InputRecord, ...],
                   provenance: Mapping[str, str]) -> Profile:
    best = selection.best
    return Profile(
        name=name,
        network=best.model,
        fit=fit_summary(best) if best.n else {},
        selection=selection.reason,
        candidates=tuple({"model": c.model.kind, **fit_summary(c)} for c in selection.candidates
                         if c.n),
        notes=tuple(dict.fromkeys(best.notes + selection.notes)),
        inputs=inputs,
        provenance=dict(provenance),
    )


# --- to and from plain data -----------------------------------------------------------------

def _params_doc(params: tuple[Estimate, ...]) -> dict[str, Any]:
    return {p.name: {"value": p.value, "stderr": p.stderr, "unit": p.unit, "status": p.status,
                     "source": p.source} for p in params}


def fabric_doc(fab: Fabric) -> dict[str, Any]:
    return {
        "topology": fab.topology,
        "channels": fab.channels,
        "box": fab.box,
        "dof": fab.dof,
        "noise_rel": fab.noise,
        "fitted": list(fab.fitted_names),
        "covariance": fab.covariance.tolist(),
        "ranges": {k: list(v) for k, v in fab.ranges.items()},
        "notes": list(fab.notes),
        "fit": dict(fab.fit),
        "params": _params_doc(fab.params),
        **({"stream_fit": True} if fab.stream_fit else {}),
        **({} if fab.corrections is None else {"corrections": fab.corrections.to_dict()}),
    }


def to_dict(profile: Profile) -> dict[str, Any]:
    net = profile.network
    doc = {
        "kind": KIND,
        "schema_version": profile.schema_version,
        "name": profile.name,
        "provenance": dict(profile.provenance),
        "inputs": [vars(i) | {"comments": list(i.comments)} for i in profile.inputs],
        "network": {
            "model": net.kind,
            "dof": net.dof,
            "noise_rel": net.noise,
            "size_min": net.size_range[0],
            "size_max": net.size_range[1],
            "fitted": list(net.fitted_names),
            "covariance": net.covariance.tolist(),
            "selection": profile.selection,
            "notes": list(profile.notes),
            "params": _params_doc(net.params),
            "fit": dict(profile.fit),
            "candidates": [dict(c) for c in profile.candidates],
            **({} if net.measured is None else {"measured": net.measured.to_dict()}),
        },
    }
    if profile.fabric is not None:
        doc["fabric"] = fabric_doc(profile.fabric)
    if profile.node is not None:
        doc["node"] = {"notes": list(profile.node.notes),
                       "params": _params_doc(profile.node.params)}
    if profile.layout:
        doc["layout"] = dict(profile.layout)
    if profile.collectives:
        doc["collectives"] = [c.to_dict() for c in profile.collectives]
    return doc


def dumps(profile: Profile) -> str:
    from perfmodel.files import write as tomlw

    header = (f"# perfmodel machine profile {profile.name!r}: written by "
              f"{profile.provenance.get('tool', 'perfmodel')}; plain data, safe to read "
              "and edit.\n")
    return header + tomlw.dumps(to_dict(profile))


_TOP = {"kind", "schema_version", "name", "provenance", "inputs", "network", "fabric", "node",
        "layout", "collectives"}
_FABRIC = {"topology", "channels", "box", "dof", "noise_rel", "fitted", "covariance", "ranges",
           "notes", "fit", "params", "corrections", "stream_fit"}
_NETWORK = {"model", "dof", "noise_rel", "size_min", "size_max", "fitted", "covariance",
            "selection", "notes", "params", "fit", "candidates", "measured"}



def from_dict(doc: Mapping[str, Any], path: str = "<profile>", text: str = "") -> Profile:
    """A profile from its TOML document; ``text``, when given, lets errors name lines."""
    from perfmodel.files.toml import check_version

    r = DocReader(path, text=text)
    r.only(doc, _TOP)
    version = check_version(doc.get("schema_version"), path, text, "machine profile")
    net = r.table(doc, "network")
    top, r = r, r.at("network.")
    r.only(net, _NETWORK)
    kind = r.text(net, "model")
    if kind not in registry.MODELS:
        raise r.fail("model", f"unknown model {kind!r}",
                     f"use one of {', '.join(registry.MODELS)}")
    raw_params = r.table(net, "params")
    values = {k: 0.0 for k in raw_params}
    expected = [p.name for p in registry.param_list(kind, values)]
    if sorted(expected) != sorted(raw_params):
        raise r.fail("params", f"has {', '.join(raw_params)}; model {kind} needs "
                     f"{', '.join(expected)}", "regenerate the profile with calibrate")
    params = [read_estimate(r.at(f"network.params.{name}."), name, raw_params[name],
                        registry.check_value, None) for name in expected]
    fitted = net.get("fitted", [])
    by_status = [p.name for p in params if p.status == "fitted"]
    if fitted != by_status:
        raise r.fail("fitted", f"is {fitted!r}, but the parameters with status "
                     f"'fitted' are {by_status!r}", "list them in the same order")
    k = len(fitted)
    cov = read_covariance(r, net.get("covariance"), k)
    dof, noise = r.quality(net)
    wrong = registry.spec(kind).check({p.name: p.value for p in params})
    if wrong is not None:
        raise r.fail("params", *wrong)
    size_range = (r.number(net, "size_min"), r.number(net, "size_max", finite=False))
    if not size_range[0] <= size_range[1]:
        raise r.fail("size_max", f"is {size_range[1]}, below size_min",
                     "size_max is the largest calibrated size (inf for a specification)")
    measured = _measured(r, net["measured"], size_range) if "measured" in net else None
    model = NetworkModel(kind, tuple(params), cov, noise, int(dof), size_range, measured)
    listed = doc.get("inputs", [])
    if not isinstance(listed, list):
        raise top.fail("inputs", "is not a list of tables",
                       "regenerate the profile with calibrate")
    inputs = tuple(_input(top.at(f"inputs[{k}]."), i) for k, i in enumerate(listed))
    shapes: tuple[tuple[str, type, object], ...] = (
        ("fit", dict, {}), ("candidates", list, []), ("notes", list, []), ("selection", str, ""))
    for key, typ, empty in shapes:
        if not isinstance(net.get(key, empty), typ):
            raise r.fail(key, f"is {net[key]!r}, not a {typ.__name__}",
                         "regenerate the profile with calibrate")
    fabric = _fabric(r.at("fabric."), doc["fabric"]) if "fabric" in doc else None
    node = _node(r.at("node."), doc["node"]) if "node" in doc else None
    layout = doc.get("layout", {})
    if not isinstance(layout, dict) or len(layout) > 1 or not all(
            k in ("ranks_per_node", "nodes_per_job") and isinstance(v, int)
            and not isinstance(v, bool) and 1 <= v <= 1_000_000 for k, v in layout.items()):
        raise top.fail("layout", f"is {layout!r}", "give one of ranks_per_node or "
                       "nodes_per_job, a whole number from 1 to 1000000")
    return Profile(
        name=top.text(doc, "name"),
        network=model,
        fit=dict(net.get("fit", {})),
        selection=str(net.get("selection", "")),
        candidates=tuple(net.get("candidates", [])),
        notes=tuple(net.get("notes", [])),
        inputs=inputs,
        provenance=dict(doc.get("provenance", {})),
        schema_version=version,
        fabric=fabric,
        node=node,
        layout=dict(layout),
        collectives=read_collectives(top, doc["collectives"]) if "collectives" in doc else (),
    )


def _node(r: DocReader, doc: Any) -> Node:
    """The [node] table: a node's arithmetic and memory rates with status and source."""
    if not isinstance(doc, dict):
        raise r.fail("", "is not a table", "regenerate the profile with calibrate")
    r.only(doc, {"notes", "params"})
    raw = dict(r.table(doc, "params"))
    for name, param in NODE_PARAMS.items():   # a parameter added since: its default
        if name not in raw and param.default is not None:
            raw[name] = {"value": param.default, "unit": param.unit, "status": "assumed",
                         "source": param.why}
    names = list(NODE_PARAMS) if "flop_rate" in raw else list(MEMORY_ONLY)
    if sorted(raw) != sorted(names):
        raise r.fail("params", f"has {', '.join(raw)}; a node needs "
                     f"{', '.join(NODE_PARAMS)} (flop_rate may be left out where STREAM alone "
                     "measured it)", "regenerate the profile with calibrate")
    params = [read_estimate(r.at(f"{r.prefix}params.{name}."), name, raw[name], check_node,
                            NODE_PARAMS[name].unit) for name in names]
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise r.fail("notes", "is not a list of text", "give a list of quoted strings")
    node = Node(tuple(params), tuple(notes))
    if not node.has_flop_rate and node.memory_rate is None:
        raise r.fail("params", "has no flop_rate and no measured memory bandwidth (a node "
                     "without a flop rate is one of STREAM's rates)",
                     "give [node.params.flop_rate], or memory_bandwidth with its source, or "
                     "regenerate the profile with calibrate")
    return node


def _fabric(r: DocReader, doc: Any) -> Fabric:
    """The [fabric] table: topology, parameters with status and source, fit summary."""
    if not isinstance(doc, dict):
        raise r.fail("", "is not a table", "regenerate the profile with calibrate")
    r.only(doc, _FABRIC)
    topology = r.text(doc, "topology")
    if topology not in TOPOLOGIES:
        raise r.fail("topology", f"is {topology!r}", f"use one of {', '.join(TOPOLOGIES)}")
    channels = r.number(doc, "channels")
    if not (channels.is_integer() and 1 <= channels <= 64):
        raise r.fail("channels", f"is {channels}", "channels are a whole number from 1 to 64")
    box = r.number(doc, "box") if "box" in doc else 1.0
    if not (box.is_integer() and 1 <= box <= 4096):
        raise r.fail("box", f"is {box}", "the processes one box holds, a whole number >= 1")
    raw = r.table(doc, "params")
    names = topology_params(topology, int(box), given=raw if topology == "switched" else ())
    if sorted(raw) != sorted(names):
        raise r.fail("params", f"has {', '.join(raw)}; a {topology} fabric needs "
                     f"{', '.join(names)}", "regenerate the profile with calibrate")
    params = [read_estimate(r.at(f"{r.prefix}params.{name}."), name, raw[name], check_param,
                        FABRIC_PARAMS[name].unit) for name in names]
    fitted = [p.name for p in params if p.status == "fitted"]
    if doc.get("fitted", []) != fitted:
        raise r.fail("fitted", f"is {doc.get('fitted')!r}, but the parameters with status "
                     f"'fitted' are {fitted!r}", "list them in the same order")
    cov = read_covariance(r, doc.get("covariance"), len(fitted))
    dof, noise = r.quality(doc)
    ranges: dict[str, tuple[float, float]] = {}
    for key, span in dict(doc.get("ranges", {})).items():
        if key not in ("size", "pairs", "senders", "channels", "processes", "per_nic") \
                or not isinstance(span, list) \
                or len(span) != 2 or not all(isinstance(v, int | float) for v in span) \
                or not span[0] <= span[1]:
            raise r.fail(f"ranges.{key}", f"is {span!r}", "give [lowest, highest] of size, "
                         "pairs, senders, channels, processes or per_nic")
        ranges[key] = (float(span[0]), float(span[1]))
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise r.fail("notes", "is not a list of text", "give a list of quoted strings")
    fix = _corrections(r, doc["corrections"]) if "corrections" in doc else None
    if fix is not None and topology != "switched":
        raise r.fail("corrections", f"are given for a {topology} fabric",
                     "only a switched fabric's stream and NIC limits have corrections")
    stream = doc.get("stream_fit", False)
    if not isinstance(stream, bool):
        raise r.fail("stream_fit", f"is {stream!r}", "write true or false")
    return Fabric(topology, int(channels), tuple(params), cov, noise, int(dof), ranges,
                  dict(doc.get("fit", {})), tuple(notes), int(box), fix, stream)


_RATIOS = ("stream", "port", "beyond_stream", "beyond_port")


def _corrections(r: DocReader, doc: Any) -> Corrections:
    """[fabric.corrections]: sizes rising, and per size a log ratio of each limit (or nan),
    one way and (``both_``) both ways, each over the streams a NIC it was measured at
    (``per_nic``; older profiles: every count)."""
    if not isinstance(doc, dict):
        raise r.fail("corrections", "is not a table", "regenerate the profile with calibrate")
    names = [f"{w}{k}" for w in ("", "both_") for k in (*_RATIOS, "per_nic")]
    r.at(f"{r.prefix}corrections.").only(doc, {"sizes", "source", *names})
    sizes = number_list(r, doc, "sizes")
    if sizes is None or not len(sizes) or not np.all(np.isfinite(sizes)) \
            or not np.all(sizes > 0) or not np.all(np.diff(sizes) > 0):
        raise r.fail("corrections.sizes", "are not rising positive sizes, one per ratio",
                     "regenerate the profile with calibrate")
    source = doc.get("source", "")
    if not isinstance(source, str):
        raise r.fail("corrections.source", "is not text", "give a quoted string")
    one = _ratios(r, doc, "", len(sizes))
    if one is None:
        raise r.fail("corrections.stream", "is missing", "regenerate the profile with calibrate")
    return Corrections(tuple(sizes.tolist()), one, source, _ratios(r, doc, "both_", len(sizes)))


def _measured(r: DocReader, doc: Any, size_range: tuple[float, float]) -> Measured:
    """[network.measured]: sizes rising from 0, and the law's log ratio at each."""
    fix = "regenerate the profile with calibrate"
    if not isinstance(doc, dict):
        raise r.fail("measured", "is not a table", fix)
    r.at(f"{r.prefix}measured.").only(doc, {"sizes", "log_ratio", "spread", "source"})
    lists: list[np.ndarray] = []
    for key in ("sizes", "log_ratio", "spread"):
        got = number_list(r, doc, key, "measured", finite=True)
        if key != "spread" and (got is None or not len(got)):
            raise r.fail(f"measured.{key}", "is not a list of finite numbers", fix)
        lists.append(np.zeros(0) if got is None else got)
    sizes, ratio, spread = lists
    if sizes[0] < 0 or np.any(np.diff(sizes) <= 0) or len(ratio) != len(sizes) \
            or np.any(np.abs(ratio) > 20):
        raise r.fail("measured", "is not rising sizes from 0 with one log ratio within ±20 "
                     "(a factor of 5·10⁸) each", fix)
    if sizes[0] < size_range[0] or sizes[-1] > size_range[1]:
        raise r.fail("measured.sizes", f"run from {sizes[0]:g} to {sizes[-1]:g} bytes, outside "
                     f"the sizes calibrated ({size_range[0]:g} to {size_range[1]:g})", fix)
    if len(spread) and (len(spread) != len(sizes) or np.any(spread < 0)
                        or np.any(spread > 20)):
        raise r.fail("measured.spread", "is not one scatter (0 to 20) per size", fix)
    if not isinstance(doc.get("source", ""), str):
        raise r.fail("measured.source", "is not text", "give a quoted string")
    return Measured(tuple(sizes.tolist()), tuple(ratio.tolist()), tuple(spread.tolist()))


def _ratios(r: DocReader, doc: Mapping[str, Any], prefix: str, count: int) -> Ratios | None:
    """One kind of traffic's ratios (``prefix`` ``both_``: both ways), or None when absent."""
    lists = {k: number_list(r, doc, prefix + k) for k in _RATIOS}
    if lists["stream"] is None and lists["port"] is None:
        return None
    for k, v in lists.items():
        if v is None and k in ("stream", "port"):
            raise r.fail(f"corrections.{prefix}{k}", "is missing",
                         "regenerate the profile with calibrate")
        if v is not None and (len(v) != count or np.any(np.isinf(v))
                              or np.any(np.abs(v[np.isfinite(v)]) > 20)):
            raise r.fail(f"corrections.{prefix}{k}", f"is not {count} log ratios within ±20 "
                         "(a factor of 5·10⁸), one per size", "regenerate the profile with "
                         "calibrate")
    if (lists["beyond_stream"] is None) != (lists["beyond_port"] is None):
        raise r.fail(f"corrections.{prefix}beyond_stream", "comes without its port ratios, or "
                     "they without it", "regenerate the profile with calibrate")
    nics = doc.get(prefix + "per_nic", [1.0, math.inf])
    if not isinstance(nics, list) or len(nics) != 2 or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in nics) \
            or not 1 <= nics[0] <= nics[1]:
        raise r.fail(f"corrections.{prefix}per_nic", f"is {nics!r}", "give [fewest, most] "
                     "streams a NIC of the rows the ratios were taken from")

    def kept(k: str) -> tuple[float, ...]:
        v = lists[k]
        return () if v is None else tuple(v.tolist())

    return Ratios(kept("stream"), kept("port"), (float(nics[0]), float(nics[1])),
                  kept("beyond_stream"), kept("beyond_port"))


def load(path: str | Path) -> Profile:
    """Read and check a profile file."""
    from perfmodel.files.toml import kind_error, read_toml

    doc, text = read_toml(path, "a machine profile", "profile")
    if doc.get("kind") != KIND:
        raise kind_error(doc, path, "perfmodel machine profile", text,
                         "give a profile written by 'perfmodel calibrate'")
    try:
        return from_dict(doc, str(path), text)
    except (TypeError, ValueError, OverflowError) as exc:   # 10**400 in a list, say
        raise InputError(f"malformed profile ({exc})", file=path,
                         fix="regenerate it with 'perfmodel calibrate'") from None


def _input(r: DocReader, doc: Any) -> InputRecord:
    """One [[inputs]] entry, checked key by key (``pattern`` may be absent: older profiles)."""
    if not isinstance(doc, dict):
        raise r.fail("", "is not a table", "regenerate the profile with calibrate")
    r.only(doc, {f.name for f in fields(InputRecord)})
    comments = doc.get("comments", [])
    if not isinstance(comments, list) or not all(isinstance(c, str) for c in comments):
        raise r.fail("comments", "is not a list of text", "give a list of quoted strings")
    counts = {}
    for key in ("rows", "rows_used"):
        v = doc.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise r.fail(key, f"is {v!r}, not a count", "give a whole number")
        counts[key] = v
    return InputRecord(
        path=r.text(doc, "path"), sha256=r.text(doc, "sha256"), format=r.text(doc, "format"),
        benchmark=r.text(doc, "benchmark"), quantity=r.text(doc, "quantity"),
        rows=counts["rows"], rows_used=counts["rows_used"], comments=tuple(comments),
        pattern=r.text(doc, "pattern", "pingpong"))
