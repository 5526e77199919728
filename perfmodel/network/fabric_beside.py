"""What a switched fabric keeps beside its one-way law, each fitted after it from rows of its
own: traffic both ways (the ports' ``duplex`` and the hosts' ``receive``, from ``osu_bibw`` or
IMB ``Biband`` beside one-way tables), and the link inside a node (``intra_latency`` and
``intra_rate``, from one pair's streams inside one node).  Each adds its parameters, with
their standard errors, to the fabric's estimates and covariance (taken as independent of the
law's: they are fitted to other rows, the law held)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import Measurements
from perfmodel.network.fabric import DUPLEX, PARAMS, Fabric, topology_params
from perfmodel.network.fabric_fit import FabricFit, FloatArray, fit_fabric, row_times
from perfmodel.network.fit import fit_stats, log_ratio
from perfmodel.params import Estimate


def with_estimates(fab: Fabric, added: Sequence[Estimate], names: Sequence[str]) -> Fabric:
    """``fab`` with ``added`` estimates, its parameters in the order of ``names``, and its
    covariance grown by the added fitted ones' variances (independent of the rest); all NaN
    when any of it is unknown (a profile's covariance is whole or not at all)."""
    before = [e.name for e in fab.params if e.status == "fitted"]
    params = {e.name: e for e in (*fab.params, *added)}
    ordered = tuple(params[n] for n in names)
    new = [e for e in added if e.status == "fitted"]
    cov = np.pad(fab.covariance, ((0, len(new)), (0, len(new))))
    for i, e in enumerate(new):
        cov[len(before) + i, len(before) + i] = e.stderr ** 2
    every = [*before, *(e.name for e in new)]
    order = [every.index(e.name) for e in ordered if e.status == "fitted"]
    cov = cov[np.ix_(order, order)]
    if not np.all(np.isfinite(cov)):
        cov = np.full(cov.shape, math.nan)
    return replace(fab, params=ordered, covariance=cov)


def both_ways(data: Measurements, cols: Mapping[str, FloatArray], topology: str, *,
              channels: int | None, box: int, fixed: Mapping[str, float],
              sources: Mapping[str, str], assumed: Sequence[str],
              held_out: bool = True) -> FabricFit:
    """A switched fabric from rows one way and both ways: the law (and its ratios) from the
    one-way rows alone (``held_out`` as :func:`fit_fabric` takes it); then, from the rows
    both ways and unless given, ``duplex`` and ``receive`` by least squares
    (:func:`two_way_fit`), each only where some row has the limit it sets; then the law's
    measured ratios both ways, as one way.  The rows both ways
    alone cannot tell a port's duplex from its one-way rate, and are refused."""
    from perfmodel.network.contention import switched_limits
    from perfmodel.network.corrections import ratios_of
    from perfmodel.network.fabric import pipeline

    two = cols["both"] > 0
    if np.all(two):
        raise FitError("only traffic both ways: it cannot tell a port's duplex from its "
                       "one-way rate", file=data.source,
                       fix="give a one-way stream table too (osu_bw, osu_mbw_mr, IMB Uniband)")
    given = {k: v for k, v in fixed.items() if k not in DUPLEX}
    one = fit_fabric(data.take(~two), topology, channels=channels, box=box, fixed=given,
                     sources=sources, assumed=[a for a in assumed if a not in DUPLEX],
                     held_out=held_out).fabric
    values = one.values
    rows = {k: v[two] for k, v in cols.items()}
    m, k = rows["size"], rows["pairs"]
    one_way, port = switched_limits(m, k, rows["channels"], line_rate=values["line_rate"],
                                    per_nic=rows["per_nic"], gap=values.get("gap", 0.0),
                                    **pipeline(values))   # the law's limits, one way
    t1 = k / one_way
    host = values["overhead"] + values["copy"] * m   # what receive scales (switched_limits)
    x = k / rows["time"]   # measured: messages per second, one direction, all pairs
    free = [p for p in DUPLEX if p not in fixed]
    start = {p: float(fixed.get(p, PARAMS[p].default or 1.0)) for p in DUPLEX}
    got, err, seen = two_way_fit(free, start, port, k, t1, host, x)
    notes = list(one.notes)
    said = {"duplex": ("the NIC", "each direction keeps {:.0%} of the port's one-way rate "
                                  "while both are busy"),
            "receive": ("one stream's host", "a host pays {:.0%} of a send's costs for each "
                                             "message it receives while sending")}
    made: dict[str, Estimate] = {}
    for p in DUPLEX:
        spec = PARAMS[p]
        if p in fixed:
            made[p] = Estimate(p, float(fixed[p]), math.nan, spec.unit,
                               "assumed" if p in assumed else "fixed", sources.get(p, ""))
        elif seen[p] and got[p] >= spec.upper * (1 - 1e-6):
            why = {"duplex": "full duplex: each direction as fast as one way, or faster",
                   "receive": "the rows both ways are slower than any host cost per message "
                              "explains"}[p]
            made[p] = Estimate(p, got[p], math.nan, spec.unit, "bound",
                               f"{len(x)} rows both ways, {seen[p]} where {said[p][0]} "
                               f"governs: held at its bound ({spec.upper:g}), {why}")
            notes.append(f"{p} ends on its bound ({spec.upper:g}): {why}")
        elif seen[p]:
            made[p] = Estimate(p, got[p], err[p], spec.unit, "fitted",
                               f"{len(x)} rows both ways ({seen[p]} where {said[p][0]} "
                               "governs)")
            notes.append(f"{p}: " + said[p][1].format(got[p]) + f" ({len(x)} rows both ways)")
        else:
            made[p] = Estimate(p, got[p], math.nan, spec.unit, "assumed",
                               f"no row both ways where {said[p][0]} governs: {spec.why}")
            notes.append(f"{p}: no row both ways where {said[p][0]} governs: assumed "
                         f"{got[p]:g}")
    grown = with_estimates(one, list(made.values()), topology_params(topology, box, one.nic,
                                                                      True))
    new = [p for p in DUPLEX if made[p].status == "fitted"]
    law = row_times(topology, {**values, "corrections": None, **got}, cols, box)
    law_both = float(np.median(np.abs(law[two] / cols["time"][two] - 1)))
    ratios = 0
    if one.corrections is None:
        fitted = row_times(topology, {**values, **got}, cols, box)
    else:   # what the law both ways misses, per size and limit
        sizes = np.asarray(one.corrections.sizes)
        at = np.minimum(np.searchsorted(sizes, m), len(sizes) - 1)
        on = sizes[at] == m
        alone_rate, nic_rate = _limits(got, k, t1, host, port)
        alone = alone_rate <= nic_rate
        ratio = np.log(law[two] / cols["time"][two])
        both = ratios_of(ratio[on], at[on], len(sizes), alone[on], rows["per_nic"][on])
        ratios = int(np.sum(np.isfinite([*both.stream, *both.port])))
        grown = replace(grown, corrections=replace(one.corrections, both=both))
        fitted = row_times(topology, {**grown.values, **got}, cols, box)
        notes.append(f"beside the law both ways, its measured ratio at each size where one "
                     f"stream's or the NIC's limit governs: {ratios} ratios, counted in k")
    rss = float(np.sum(log_ratio(fitted, cols["time"]) ** 2))
    k_all = int(one.fit.get("k", 0)) + len(new) + ratios
    summary = {**fit_stats(fitted, cols["time"], rss, k_all),
               **({"median_rel_err_law": one.fit["median_rel_err_law"]}
                  if "median_rel_err_law" in one.fit else {}),
               "median_rel_err_both_law": law_both}
    ranges = {**one.ranges, "size": (float(cols["size"].min()), float(cols["size"].max()))}
    for key in ("pairs", "per_nic"):
        ranges[key] = (float(cols[key].min()), float(cols[key].max()))
    fab = replace(grown, fit=summary, notes=tuple(notes),
                  ranges=ranges, dof=max(one.dof + int(two.sum()) - len(new) - ratios, 0))
    return FabricFit(fab, data, fitted, rss, k_all)


def two_way_fit(free: Sequence[str], start: Mapping[str, float], port: FloatArray,
                k: FloatArray, t1: FloatArray, host: FloatArray, measured: FloatArray
                ) -> tuple[dict[str, float], dict[str, float], dict[str, int]]:
    """``duplex`` and ``receive`` (those of them ``free``) by least squares on the log ratio
    of each direction's rate, ``min(k/(T1 + receive·host), duplex·port)``, against the
    ``measured``, the loss soft beyond 10 % (a table far from the rest, like a job whose
    small messages crawl both ways, counts less than its square).  A parameter whose limit
    governs no row at the answer cannot be told and is held at its start; the rest are
    fitted again alone, their standard errors from the Jacobian.  Returns the values, the
    errors, and per parameter the rows whose limit it sets."""
    from scipy.optimize import least_squares

    def rates(v: Mapping[str, float]) -> tuple[FloatArray, FloatArray]:
        return _limits(v, k, t1, host, port)

    def governed(v: Mapping[str, float]) -> dict[str, int]:
        alone, nic = rates(v)
        return {"duplex": int(np.sum(nic < alone)),
                "receive": int(np.sum((alone <= nic) & (host > 0)))}

    def solve(names: Sequence[str], base: Mapping[str, float]) -> tuple[dict[str, float], Any]:
        lo = [PARAMS[p].lower for p in names]
        hi = [PARAMS[p].upper for p in names]

        def residual(z: FloatArray) -> FloatArray:
            alone, nic = rates({**base, **dict(zip(names, z, strict=True))})
            return np.asarray(np.log(np.minimum(alone, nic) / measured), dtype=np.float64)

        best = None
        for guess in ((0.9, 1.0), (0.5, 0.25), (1.0, 0.0)):
            z0 = np.clip([dict(zip(DUPLEX, guess, strict=True))[p] for p in names], lo, hi)
            res = least_squares(residual, z0, bounds=(lo, hi), loss="soft_l1", f_scale=0.1)
            if best is None or res.cost < best.cost:
                best = res
        assert best is not None
        return {**base, **dict(zip(names, (float(v) for v in best.x), strict=True))}, best

    got = dict(start)
    err = {p: math.nan for p in DUPLEX}
    if not free:
        return got, err, governed(got)
    got, _ = solve(free, got)
    seen = governed(got)
    told = [p for p in free if seen[p]]
    got = {**got, **{p: start[p] for p in free if p not in told}}
    if told:
        got, res = solve(told, got)
        dof = len(measured) - len(told)
        if dof > 0:
            with np.errstate(all="ignore"):
                try:
                    cov = np.linalg.inv(res.jac.T @ res.jac) * float(np.sum(res.fun ** 2)) / dof
                    err.update({p: float(math.sqrt(cov[i, i])) if cov[i, i] >= 0 else math.nan
                                for i, p in enumerate(told)})
                except np.linalg.LinAlgError:
                    pass
    return got, err, {p: (governed(got)[p] if p in told else 0) for p in DUPLEX}


def _limits(v: Mapping[str, float], k: FloatArray, t1: FloatArray, host: FloatArray,
            port: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each direction's two limits both ways, as
    :func:`~perfmodel.network.contention.switched_limits` has them, from the one-way ``T1``,
    the host's costs and the one-way ``port``: ``k/(T1 + receive·host)``, ``duplex·port``."""
    return k / (t1 + v["receive"] * host), v["duplex"] * port


def with_inside(fab: Fabric, inside: Sequence[Measurements], box: int) -> tuple[Fabric, str]:
    """``fab`` with the link inside a node of ``box`` processes: ``intra_latency`` and
    ``intra_rate`` from Hockney's law (:func:`~perfmodel.network.fit.fit_model`) fitted to one
    pair's streams inside one node (``T = intra_latency + m/intra_rate`` a message).  A
    stream's time per message is the gap between messages sent back to back, so
    ``intra_latency`` is at most the one-way latency (said in its source)."""
    from perfmodel.measurements import concat
    from perfmodel.network.fit import fit_model

    if box < 2:
        raise InputError("the link inside a node needs the ranks one node holds",
                         fix="give --ranks-per-node N or --nodes-per-job N")
    rows = concat(list(inside))
    if len(np.unique(rows.size)) < 3:
        raise FitError("the streams inside one node have fewer than 3 sizes: the link's "
                       "latency and rate need more", file=rows.source,
                       fix="give a table of several message sizes run inside one node")
    fit = fit_model(rows, "hockney")
    alpha, beta = fit.model.estimate("alpha"), fit.model.estimate("beta")
    latency, rate = alpha.value, beta.value
    said = (f"{len(rows)} stream rows of 1 pair inside one node ({len(inside)} table"
            f"{'s' if len(inside) != 1 else ''}), median |rel. error| {fit.median_rel_err:.1%}")
    added = [Estimate("intra_latency", latency, alpha.stderr, PARAMS["intra_latency"].unit,
                      "derived", f"{said}: a stream's time per message (± {alpha.stderr:.3g} "
                                 "s), taken as the one-way latency, which is at least it"),
             Estimate("intra_rate", rate, beta.stderr, PARAMS["intra_rate"].unit, "fitted",
                      said)]
    names = topology_params(fab.topology, box, fab.nic, fab.duplex)
    grown = with_estimates(replace(fab, box=box), added, names)
    return grown, (f"the link inside a node: {latency * 1e6:.3g} µs a message, "
                   f"{rate / 1e9:.3g} GB/s, from {said}; {box} ranks a node (the most a placed "
                   "job put on one)")
