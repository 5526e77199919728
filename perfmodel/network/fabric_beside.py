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

import numpy as np

from perfmodel.errors import FitError, InputError
from perfmodel.measurements import Measurements
from perfmodel.network.fabric import DUPLEX, PARAMS, Fabric, topology_params
from perfmodel.network.fabric_fit import FabricFit, FloatArray, fit_fabric, row_times
from perfmodel.network.fit import fit_stats, log_ratio
from perfmodel.params import Estimate


def with_estimates(fab: Fabric, added: Sequence[Estimate], names: Sequence[str]) -> Fabric:
    """``fab`` with ``added`` estimates, its parameters in the order of ``names``, and its
    covariance grown by the added fitted ones' variances (independent of the rest)."""
    before = [e.name for e in fab.params if e.status == "fitted"]
    params = {e.name: e for e in (*fab.params, *added)}
    ordered = tuple(params[n] for n in names)
    new = [e for e in added if e.status == "fitted"]
    cov = np.pad(fab.covariance, ((0, len(new)), (0, len(new))))
    for i, e in enumerate(new):
        cov[len(before) + i, len(before) + i] = e.stderr ** 2
    every = [*before, *(e.name for e in new)]
    order = [every.index(e.name) for e in ordered if e.status == "fitted"]
    return replace(fab, params=ordered, covariance=cov[np.ix_(order, order)])


def both_ways(data: Measurements, cols: Mapping[str, FloatArray], topology: str, *,
               channels: int | None, box: int, fixed: Mapping[str, float],
               sources: Mapping[str, str], assumed: Sequence[str]) -> FabricFit:
    """A switched fabric from rows one way and both ways: the law (and its corrections) from
    the one-way rows alone, then from the rows both ways (unless given) ``duplex``, the median
    ratio of the rows where the ports' limit governs over their one-way limit, and
    ``receive``, the median host cost of a received message (as a share of a sent one's) in
    the rows where one stream's limit governs; which rows those are depends on both, so the
    two are taken to a fixed point.  The rows both ways alone cannot tell a port's duplex from
    its one-way rate, and are refused."""
    from perfmodel.network.contention import message_time
    from perfmodel.network.fabric import pipeline

    two = cols["both"] > 0
    if topology != "switched":
        raise InputError(f"a {topology} fabric has no duplex to learn from traffic both ways",
                         file=data.source, fix="fit the bidirectional tables to a switched "
                                              "fabric, or leave them out")
    if np.all(two):
        raise FitError("only traffic both ways: it cannot tell a port's duplex from its "
                       "one-way rate", file=data.source,
                       fix="give a one-way stream table too (osu_bw, osu_mbw_mr, IMB Uniband)")
    given = {k: v for k, v in fixed.items() if k not in DUPLEX}
    one = fit_fabric(data.take(~two), topology, channels=channels, box=box, fixed=given,
                     sources=sources, assumed=[a for a in assumed if a not in DUPLEX]).fabric
    values = one.values
    rows = {k: v[two] for k, v in cols.items()}
    m, k = rows["size"], rows["pairs"]
    t1, hold = message_time(m, rows["channels"], line_rate=values["line_rate"],
                            **pipeline(values))
    host = values["overhead"] + values["copy"] * m
    scale = (np.ones_like(m), np.ones_like(m)) if one.corrections is None else \
        one.corrections.factors(m, rows["per_nic"])
    per = np.minimum(np.maximum(rows["per_nic"], 1.0), np.maximum(k, 1.0))
    with np.errstate(divide="ignore"):
        port = scale[1] * (k / per) / (values.get("gap", 0.0) + hold)   # one way
    x = k / rows["time"]   # measured: messages per second, one direction, all pairs

    free = [p for p in DUPLEX if p not in fixed]
    got, err, n_on = two_way_fit(free, {p: float(fixed.get(p, 1.0)) for p in DUPLEX},
                                  port, k, t1, host, scale[0], x)
    notes = list(one.notes)
    said = {"duplex": "each direction keeps {:.0%} of the port's one-way rate while both are "
                      "busy",
            "receive": "a host pays {:.0%} of a send's costs for each message it receives "
                       "while sending"}
    made: dict[str, Estimate] = {}
    for p in DUPLEX:
        spec = PARAMS[p]
        rows_of = n_on if p == "duplex" else len(x) - n_on
        if p in fixed:
            made[p] = Estimate(p, float(fixed[p]), math.nan, spec.unit,
                               "assumed" if p in assumed else "fixed", sources.get(p, ""))
        elif rows_of:
            made[p] = Estimate(p, got[p], err[p], spec.unit, "fitted",
                               f"{len(x)} rows both ways ({rows_of} where "
                               f"{'the NIC' if p == 'duplex' else 'one stream'} governs)")
            notes.append(f"{p}: " + said[p].format(got[p]) + f" ({len(x)} rows both ways)")
        else:
            got[p] = spec.default if spec.default is not None else 1.0
            where = "the NIC" if p == "duplex" else "one stream's host"
            made[p] = Estimate(p, got[p], math.nan, spec.unit, "assumed",
                               f"no row both ways where {where} governs: {spec.why}")
            notes.append(f"{p}: no row both ways where {where} governs: assumed {got[p]:g}")
    grown = with_estimates(one, list(made.values()), topology_params(topology, box, one.nic,
                                                                      True))
    new = [p for p in DUPLEX if made[p].status == "fitted"]
    fitted = row_times(topology, {**values, **got}, cols, box)
    law_both = float(np.median(np.abs(fitted[two] / cols["time"][two] - 1)))
    ratios = 0
    if one.corrections is not None:   # what the law both ways misses at each size, as one way
        from perfmodel.network.fabric_fit import group_median

        sizes = np.asarray(one.corrections.sizes)
        at = np.searchsorted(sizes, m)
        on = (at < len(sizes)) & (sizes[np.minimum(at, len(sizes) - 1)] == m)
        ratio = np.log(fitted[two] / cols["time"][two])
        both = group_median(ratio[on], at[on], len(sizes))
        q = rows["per_nic"]
        top = on & (q == q.max())
        past = group_median(ratio[top], at[top], len(sizes))
        ratios = int(np.sum(np.isfinite(both)))
        grown = replace(grown, corrections=replace(
            one.corrections, both=tuple(both.tolist()), both_beyond=tuple(past.tolist()),
            both_nics=(float(q.min()), float(q.max()))))
        fitted = row_times(topology, grown.values, cols, box)
        notes.append(f"beside the law both ways, its measured ratio at each size: {ratios} "
                     "ratios, counted in k")
    rss = float(np.sum(log_ratio(fitted, cols["time"]) ** 2))
    k_all = int(one.fit.get("k", 0)) + len(new) + ratios
    summary = {**fit_stats(fitted, cols["time"], rss, k_all),
               **({"median_rel_err_law": one.fit["median_rel_err_law"]}
                  if "median_rel_err_law" in one.fit else {}),
               "median_rel_err_both_law": law_both,
               "median_rel_err_both": float(np.median(np.abs(fitted[two] / cols["time"][two]
                                                             - 1)))}
    ranges = {**one.ranges, "size": (float(cols["size"].min()), float(cols["size"].max()))}
    for key in ("pairs", "per_nic"):
        ranges[key] = (float(cols[key].min()), float(cols[key].max()))
    fab = replace(grown, fit=summary, notes=tuple(notes),
                  ranges=ranges, dof=max(one.dof + int(two.sum()) - len(new) - ratios, 0))
    return FabricFit(fab, data, fitted, rss, k_all)


def two_way_fit(free: Sequence[str], start: Mapping[str, float], port: FloatArray,
                 k: FloatArray, t1: FloatArray, host: FloatArray, alone_scale: FloatArray,
                 measured: FloatArray) -> tuple[dict[str, float], dict[str, float], int]:
    """``duplex`` and ``receive`` (those of them ``free``) by least squares on the log ratio
    of each direction's rate, ``min(scale·k/(T1 + receive·host), duplex·port)`` against the
    ``measured``, the loss soft beyond 10 % (a table far from the rest, like a job whose
    bidirectional small messages crawl, counts less than its square); their standard errors
    from the Jacobian, and how many rows the port governs at the answer."""
    from scipy.optimize import least_squares

    def model(v: Mapping[str, float]) -> FloatArray:
        alone = alone_scale * k / (t1 + v["receive"] * host)
        return np.asarray(np.minimum(alone, v["duplex"] * port), dtype=np.float64)

    got = dict(start)
    err = {p: math.nan for p in free}
    if free:
        lo = [PARAMS[p].lower for p in free]
        hi = [PARAMS[p].upper if math.isfinite(PARAMS[p].upper) else 100.0 for p in free]

        def residual(z: FloatArray) -> FloatArray:
            return np.asarray(np.log(model({**got, **dict(zip(free, z, strict=True))})
                                     / measured), dtype=np.float64)

        best = None
        for guess in ((0.9, 1.0), (0.5, 0.25), (1.0, 0.0)):
            z0 = np.clip([dict(zip(DUPLEX, guess, strict=True))[p] for p in free], lo, hi)
            res = least_squares(residual, z0, bounds=(lo, hi), loss="soft_l1", f_scale=0.1)
            if best is None or res.cost < best.cost:
                best = res
        assert best is not None
        got.update(zip(free, (float(v) for v in best.x), strict=True))
        dof = len(measured) - len(free)
        if dof > 0:
            jac = best.jac
            with np.errstate(all="ignore"):
                try:
                    cov = np.linalg.inv(jac.T @ jac) * float(np.sum(best.fun ** 2)) / dof
                    err = {p: float(math.sqrt(max(cov[i, i], 0.0)))
                           for i, p in enumerate(free)}
                except np.linalg.LinAlgError:
                    pass
    alone = alone_scale * k / (t1 + got["receive"] * host)
    return got, err, int(np.sum(got["duplex"] * port < alone))




def with_inside(fab: Fabric, inside: Sequence[Measurements], box: int) -> tuple[Fabric, str]:
    """``fab`` with the link inside a node of ``box`` processes: ``intra_latency`` and
    ``intra_rate`` fitted to one pair's streams inside one node (``T = intra_latency +
    m/intra_rate`` a message, least squares on log ratios).  A stream's time per message is the
    gap between messages sent back to back, so ``intra_latency`` is at most the one-way
    latency (said in its source); the note says so with the fit's error."""
    from scipy.optimize import least_squares

    from perfmodel.measurements import concat

    if box < 2:
        raise InputError("the link inside a node needs the ranks one node holds",
                         fix="give --ranks-per-node N or --nodes-per-job N")
    rows = concat(list(inside))
    m, t = rows.size, rows.time
    if len(np.unique(m)) < 3:
        raise FitError("the streams inside one node have fewer than 3 sizes: the link's "
                       "latency and rate need more", file=rows.source,
                       fix="give a table of several message sizes run inside one node")

    def residual(z: FloatArray) -> FloatArray:
        return np.asarray(np.log((math.exp(z[0]) + m / math.exp(z[1])) / t), dtype=np.float64)

    z0 = np.log([max(float(np.min(t)) * 0.5, 1e-12), float(np.max(m / t))])
    res = least_squares(residual, z0)
    latency, rate = (math.exp(float(v)) for v in res.x)
    dof = len(m) - 2
    err = [math.nan, math.nan]
    if dof > 0:
        try:
            cov = np.linalg.inv(res.jac.T @ res.jac) * float(np.sum(res.fun ** 2)) / dof
            err = [latency * math.sqrt(max(cov[0, 0], 0.0)),
                   rate * math.sqrt(max(cov[1, 1], 0.0))]
        except np.linalg.LinAlgError:
            pass
    fitted = np.exp(res.fun) * t
    median = float(np.median(np.abs(fitted / t - 1)))
    said = (f"{len(m)} stream rows of 1 pair inside one node ({len(inside)} table"
            f"{'s' if len(inside) != 1 else ''}), median |rel. error| {median:.1%}")
    added = [Estimate("intra_latency", latency, err[0], PARAMS["intra_latency"].unit,
                      "fitted", f"{said}: a stream's time per message, at most the one-way "
                                "latency"),
             Estimate("intra_rate", rate, err[1], PARAMS["intra_rate"].unit, "fitted", said)]
    names = topology_params(fab.topology, box, fab.nic, fab.duplex)
    grown = with_estimates(replace(fab, box=box), added, names)
    return grown, (f"the link inside a node: {latency * 1e6:.3g} µs a message, "
                   f"{rate / 1e9:.3g} GB/s, from {said}; {box} ranks a node (the most a placed "
                   "job put on one)")
