"""What a measurement runs: the pattern, the message sizes, the counts (pairs, senders or ring
processes) and the rule that says when a point has enough repetitions."""

from __future__ import annotations

from dataclasses import dataclass

from perfmodel.errors import InputError, PerfModelError
from perfmodel.units import format_size, parse_counts, parse_list


@dataclass(frozen=True)
class PatternInfo:
    count: str | None       # the CSV column of the count it varies, beside processes
    time: str               # the CSV column of its value
    kind: str | None        # the CSV's pattern column, where the file needs one
    default_np: int         # ranks a local run starts when --np is not given
    means: str              # one line: what one row's time is


PATTERNS: dict[str, PatternInfo] = {
    "pingpong": PatternInfo(
        None, "one_way_us", None, 2,
        "one-way time of a ping-pong between ranks 0 and 1 (half the round trip)"),
    "pairs": PatternInfo(
        "pairs", "one_way_us", None, 4,
        "k disjoint pairs ping-pong at once (rank i with rank i + P/2, i < k): one pair's "
        "one-way time, the harmonic mean over the pairs (aggregate = k·size / time)"),
    "fanin": PatternInfo(   # its rows are streams, the one-sender rows too: the file says so
        "senders", "aggregate_bandwidth_MBps", "fanin", 4,
        "n senders (ranks 1..n) each stream a window of messages into rank 0 at once: the "
        "aggregate bandwidth at the receiver"),
    "exchange": PatternInfo(   # the ring's size is its processes column
        None, "time_us", "exchange", 4,
        "the Exchange ring of IMB/Pallas over ranks 0..p-1: every rank sends one message to "
        "each neighbour and receives one from each; one iteration, the slowest rank's"),
}

DEFAULT_SIZES = "1B..4MiB"
MAX_SIZE = 2**30
"""The largest message measured: each rank holds up to three buffers of it."""
MAX_WINDOW = 1024
"""The most messages one fan-in sender streams per repetition (rank 0 posts senders × window
receives at once)."""


@dataclass(frozen=True)
class Rule:
    """When a point has enough repetitions.

    With ``reps`` set, exactly that many are timed.  Otherwise batches are timed until the
    distribution-free 95 % interval of the median is within ``tolerance`` of it (relative
    half-width), with at least ``min_reps`` and at most ``max_reps`` repetitions, or until the
    point has taken ``budget`` seconds.  ``warmup`` untimed repetitions come first.
    """

    reps: int | None = None
    warmup: int = 16
    tolerance: float = 0.01
    budget: float = 1.0
    min_reps: int = 100
    max_reps: int = 100_000


@dataclass(frozen=True)
class Plan:
    pattern: str
    sizes: tuple[int, ...]
    counts_text: str | None   # --counts as given; resolved against the job's size in counts()
    rule: Rule
    window: int = 64          # fan-in: messages per sender per repetition

def make_plan(pattern: str, sizes: str = DEFAULT_SIZES, *, reps: int | None = None,
              counts: str | None = None, window: int = 64, warmup: int = 16,
              tolerance: float = 0.01, budget: float = 1.0) -> Plan:
    """Check the options of ``perfmodel measure`` and build its plan; raises InputError."""
    if pattern not in PATTERNS:
        raise InputError(f"--pattern {pattern!r} is not a pattern",
                         fix=f"use one of {', '.join(PATTERNS)}")
    try:
        values = parse_list(sizes, "size")
    except PerfModelError as exc:
        raise InputError(f"--sizes {sizes!r}: {exc.what}", fix=exc.fix) from None
    if any(v < 0 or v != int(v) or v > MAX_SIZE for v in values):
        raise InputError(f"--sizes {sizes!r} has a size that is not a whole number of bytes "
                         f"from 0 to {format_size(MAX_SIZE)}", fix="e.g. --sizes 1B..4MiB")
    if pattern == "fanin" and 0 in values:
        raise InputError("--sizes: a fan-in of zero-byte messages has no bandwidth",
                         fix="start the fan-in's sizes at 1B")
    if counts is not None and pattern == "pingpong":
        raise InputError("--counts picks pairs, senders or ring sizes; a ping-pong has none",
                         fix="drop --counts, or use --pattern pairs, fanin or exchange")
    if counts is not None:
        parse_counts(counts, "counts")   # checked now; resolved against the job's size later
    if reps is not None and not 1 <= reps <= 10_000_000:
        raise InputError(f"--reps {reps} is out of range", fix="give 1 to 10000000")
    if not 1 <= window <= MAX_WINDOW:
        raise InputError(f"--window {window} is out of range", fix=f"give 1 to {MAX_WINDOW}")
    if not 0 <= warmup <= 1_000_000:
        raise InputError(f"--warmup {warmup} is out of range", fix="give 0 to 1000000")
    if not 0 < tolerance < 1:
        raise InputError(f"--tolerance {tolerance:g} is not a fraction between 0 and 1",
                         fix="e.g. --tolerance 0.01 for ±1 %")
    if not 0 < budget <= 3600:
        raise InputError(f"--max-time {budget:g} s is out of range", fix="e.g. --max-time 1s")
    unique = tuple(sorted({int(v) for v in values}))
    return Plan(pattern, unique, counts, Rule(reps, warmup, tolerance, budget), window)


def counts(plan: Plan, nprocs: int) -> tuple[int, ...]:
    """The pairs (1..P/2), senders (1..P−1) or ring sizes (2, 4, 8 … and P) a job of ``nprocs``
    ranks measures, or those of ``--counts`` if they fit; (1,) for the ping-pong."""
    need = 2
    if nprocs < need:
        raise InputError(f"the {plan.pattern} pattern needs at least {need} ranks; this job has "
                         f"{nprocs}", fix="start it with more: --np 2, or mpiexec -n 2")
    if plan.pattern == "pingpong":
        return (1,)
    top = {"pairs": nprocs // 2, "fanin": nprocs - 1, "exchange": nprocs}[plan.pattern]
    if plan.counts_text is None:
        if plan.pattern != "exchange":
            return tuple(range(1, top + 1))
        rings = {2 ** i for i in range(1, top.bit_length()) if 2 ** i <= top} | {top}
        return tuple(sorted(rings))
    wanted = parse_counts(plan.counts_text, "counts")
    low = 2 if plan.pattern == "exchange" else 1
    bad = [c for c in wanted if not low <= c <= top]
    if bad:
        what = {"pairs": "pairs", "fanin": "senders", "exchange": "ring processes"}[plan.pattern]
        raise InputError(f"--counts {plan.counts_text}: {nprocs} ranks give {low} to {top} "
                         f"{what}, not {bad[0]}", fix=f"run with more ranks, or give --counts "
                         f"{low}..{top}")
    return tuple(wanted)
