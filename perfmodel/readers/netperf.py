"""netperf TCP_STREAM / TCP_MAERTS and TCP_RR output: classic, ``-P 0``, and omni (-o, -O, -k).

A netperf run is one point: one message size.  A script's log of several runs (a banner
before each) is read run by run, the runs of one test one table.  A STREAM result is a
throughput, read as the time per message of the stream (size / throughput); an RR result is a
transaction rate, one round trip per transaction, so the one-way time is half of 1 / rate.

Units, from the netperf manual: throughput is 10^6 bit/s by default (``-f m``); ``-f g/k`` are
10^9/10^3 bit/s and ``-f G/M/K`` 2^30/2^20/2^10 *bytes*/s; the classic header's units line
says which.  ``RT_LATENCY``, ``MEAN_LATENCY`` and the percentiles are round-trip µs.
Omni output may leave out the request size (``-O`` with default selectors); netperf's
default of 1 byte is then assumed and said.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, integer, lines_of, number, numbers

NAME = "netperf"
DESCRIPTION = "netperf TCP_STREAM/TCP_RR: classic, -P 0, omni -o/-O/-k"

BANNER = re.compile(r"^(?:MIGRATED\s+)?(?:OMNI\s+)?(?P<proto>TCP|UDP|SCTP|SDP|DLCO|DLCL|OMNI)"
                    r"(?:\s+(?P<test>STREAM|MAERTS|REQUEST/RESPONSE|CONNECT/REQUEST/RESPONSE|"
                    r"CONNECT/CLOSE|SENDFILE|Send/Recv|Send|Recv))?\s+TEST\b", re.I)
_KINDS = {"STREAM": "STREAM", "MAERTS": "MAERTS", "REQUEST/RESPONSE": "RR",
          "CONNECT/REQUEST/RESPONSE": "CRR", "CONNECT/CLOSE": "CC", "SENDFILE": "SENDFILE"}
_KV = re.compile(r"^(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
_KNOWN_KEYS = {"THROUGHPUT", "THROUGHPUT_UNITS", "MEAN_LATENCY", "RT_LATENCY", "P50_LATENCY",
               "P90_LATENCY", "P99_LATENCY", "MIN_LATENCY", "MAX_LATENCY", "STDDEV_LATENCY",
               "TRANSACTION_RATE", "REQUEST_SIZE", "RESPONSE_SIZE", "LOCAL_SEND_SIZE",
               "REMOTE_RECV_SIZE", "ELAPSED_TIME", "PROTOCOL", "DIRECTION"}
_UNIT = re.compile(r"10\^(?P<exp>[0-9]{1,2})\s*bits/s(?:ec)?|(?P<prefix>[KMG])Bytes/s(?:ec)?", re.I)
_DEFAULT_UNIT = "10^6bits/s"
# omni column titles (-o, -O) -> the -k key naming the same output selector
_TITLES = (("round trip latency", "RT_LATENCY"), ("mean latency", "MEAN_LATENCY"),
           ("minimum latency", "MIN_LATENCY"), ("maximum latency", "MAX_LATENCY"),
           ("stddev latency", "STDDEV_LATENCY"), ("50th percentile", "P50_LATENCY"),
           ("90th percentile", "P90_LATENCY"), ("99th percentile", "P99_LATENCY"),
           ("transaction rate", "TRANSACTION_RATE"), ("request size", "REQUEST_SIZE"),
           ("response size", "RESPONSE_SIZE"), ("throughput units", "THROUGHPUT_UNITS"),
           ("throughput", "THROUGHPUT"), ("local send size", "LOCAL_SEND_SIZE"),
           ("elapsed time", "ELAPSED_TIME"))


def unit_factor(unit: str) -> float:
    """Bytes per second in one netperf throughput unit (``10^6bits/s``, ``MBytes/s``)."""
    m = _UNIT.search(unit)
    if m is None:
        raise ValueError(unit)
    if m["exp"]:
        return 10.0 ** int(m["exp"]) / 8
    return float(2 ** {"K": 10, "M": 20, "G": 30}[m["prefix"].upper()])


def _headerless(lines: list[tuple[int, str]]) -> int | None:
    """5 (STREAM) or 6 (RR) for netperf ``-P 0`` output: one row of results."""
    rows = [ln.split() for _, ln in lines if ln]
    if not rows or len(rows) > 2:
        return None
    first = rows[0]
    if len(first) not in (5, 6) or numbers(first, len(first)) is None:
        return None
    ints = 3 if len(first) == 5 else 4
    if any(integer(t) is None for t in first[:ints]):
        return None
    if len(rows) == 2 and (len(first) != 6 or len(rows[1]) != 2
                           or any(integer(t) is None for t in rows[1])):
        return None
    return len(first)


def _kv(lines: list[tuple[int, str]]) -> dict[str, tuple[int, str]]:
    out = {}
    for n, ln in lines:
        if m := _KV.match(ln):
            out[m["key"]] = (n, m["value"].strip())
    return out


def sniff(text: str) -> bool:
    lines = lines_of(text[:20000])
    if any(BANNER.match(ln) for _, ln in lines[:5]):
        return True
    if any(BANNER.match(ln) and re.search(r"\bTEST\s+from\b.*\bto\b", ln) for _, ln in lines):
        return True   # a whole banner further down (after a job's own lines, or another tool's)
    keys = _kv(lines)
    if len(keys) >= 2 and keys.keys() & {"THROUGHPUT", "MEAN_LATENCY", "RT_LATENCY",
                                         "TRANSACTION_RATE"}:
        return True
    head = next((ln for _, ln in lines if ln), "").lower()
    if "," in head and any(t in head for t, _ in _TITLES if "latency" in t or "rate" in t):
        return True
    return _headerless(lines) is not None


_WHOLE_BANNER = re.compile(r"\bTEST\s+from\b.*\bto\b")


def read(source: str, text: str) -> tuple[Measurements, ...]:
    """One run, or several (a script's log: a banner before each run, its own lines between):
    each banner's block is read as one run, and the runs of one test form one table, a row
    each."""
    lines = lines_of(text)
    starts = [i for i, (_, ln) in enumerate(lines)
              if BANNER.match(ln) and _WHOLE_BANNER.search(ln)]
    if len(starts) < 2:
        return (_read_one(source, lines, text),)
    runs: dict[str, list[Measurements]] = {}
    failed: list[InputError] = []
    for i, start in enumerate(starts):
        block = lines[start:starts[i + 1] if i + 1 < len(starts) else len(lines)]
        try:
            run = _read_one(source, block, text)
        except InputError as exc:   # one run that failed (no connection, say): left out
            failed.append(exc)
            continue
        runs.setdefault(run.benchmark, []).append(run)
    if not runs:
        raise failed[0]
    said = tuple(f"a run left out at line {exc.line}: {exc.what}" for exc in failed)
    return tuple(replace(t, notes=(*t.notes, *said)) for t in map(_merged, runs.values()))


def _merged(runs: list[Measurements]) -> Measurements:
    """Runs of one test, each its own banner's, as one table of a row each."""
    first = runs[0]
    if len(runs) == 1:
        return first
    keys = set.intersection(*(set(r.extra) for r in runs))
    return replace(
        first, size=np.concatenate([r.size for r in runs]),
        time=np.concatenate([r.time for r in runs]),
        line=tuple(ln for r in runs for ln in r.line),
        concurrency={k: np.concatenate([r.concurrency[k] for r in runs])
                     for k in first.concurrency},
        extra={k: np.concatenate([r.extra[k] for r in runs]) for k in sorted(keys)},
        notes=(*dict.fromkeys(n for r in runs for n in r.notes),
               f"{len(runs)} runs of {first.benchmark}, each after its own banner: a row each"))


def _read_one(source: str, lines: list[tuple[int, str]], text: str) -> Measurements:
    """One run's lines (its banner among the first five, when it has one)."""
    found = next(((n, m) for n, ln in lines[:5] if (m := BANNER.match(ln))), None)
    proto, kind = "TCP", ""
    if found is not None:
        proto = found[1]["proto"].upper().replace("OMNI", "TCP")
        kind = _KINDS.get((found[1]["test"] or "").upper(), "")
    body = [(n, ln) for n, ln in lines if not (found and n == found[0])
            and not ln.startswith("Interim result")]
    keys = _kv(body)
    if keys.keys() & _KNOWN_KEYS:
        return _omni(source, proto, kind, {k: v for k, (_, v) in keys.items()},
                     min(n for n, _ in keys.values()), "omni -k")
    content = [(n, ln) for n, ln in body if ln]
    if content and "," in content[0][1]:
        return _omni_csv(source, proto, kind, content)
    if any(ln.startswith(("Socket", "Local /Remote", "Recv ")) for _, ln in content[:3]):
        return _classic(source, proto, kind, body)
    width = _headerless(body)
    if width is not None:
        n, ln = content[0]
        return _classic_row(source, proto, "STREAM" if width == 5 else "RR", n, ln.split(),
                            None, _DEFAULT_UNIT, headerless=True)
    if content:
        return _omni_columns(source, proto, kind, body, text.splitlines())
    raise InputError("netperf banner with no results (a truncated file?)", file=source,
                     line=found[0] if found else 1, fix="rerun netperf and keep its output")


def _classic(source: str, proto: str, kind: str, body: list[tuple[int, str]]) -> Measurements:
    unit = next((m.group(0) for _, ln in body[:8] if (m := _UNIT.search(ln))), _DEFAULT_UNIT)
    rows = [(n, ln.split()) for n, ln in body if ln and number(ln.split()[0]) is not None]
    if not rows or len(rows[0][1]) < 5:
        last = body[-1][0] if body else 1
        raise InputError("netperf header with no result row (a truncated file?)", file=source,
                         line=rows[0][0] if rows else last,
                         fix="rerun netperf and keep its whole output")
    n, tokens = rows[0]
    if not kind:
        kind = "RR" if len(tokens) >= 6 and any("Trans" in x for _, x in body[:6]) else "STREAM"
    second = rows[1][1] if len(rows) > 1 else None
    return _classic_row(source, proto, kind, n, tokens, second, unit, headerless=False)


def _classic_row(source: str, proto: str, kind: str, line: int, tokens: list[str],
                 second: list[str] | None, unit: str, headerless: bool) -> Measurements:
    """One classic result row.  UDP_STREAM prints the sender's row, then the receiver's."""
    name = f"{proto}_{kind}"
    udp_stream = proto == "UDP" and kind == "STREAM"
    need = 6 if kind in ("RR", "CRR", "CC") or udp_stream else 5
    values = numbers(tokens, need)
    if values is None:
        raise InputError(f"netperf {name} row has {len(tokens)} values, not {need}",
                         file=source, line=line, fix="rerun netperf and keep its whole output")
    elapsed_at = 2 if udp_stream else 4 if kind in ("RR", "CRR", "CC") else 3
    _check_elapsed(values[elapsed_at], tokens[elapsed_at], source, line)
    if kind in ("RR", "CRR", "CC"):
        _, _, request, response, elapsed, rate = values[:6]
        if not rate > 0 or rate == float("inf"):
            raise InputError(f"netperf transaction rate is {tokens[5]}", file=source, line=line,
                             fix="the test did not run; rerun it")
        table = _rr_table(source, name, kind, request, response)
        table.add(line, request, (0.5 if kind == "RR" else 1.0) / rate, rtt=1 / rate,
                  elapsed=elapsed)
    else:
        if udp_stream:
            _, size, elapsed, _, _, throughput = values[:6]
            received = numbers(second, 4) if second is not None and len(second) == 4 else None
            if received is not None:
                throughput = received[3]
        else:
            _, _, size, elapsed, throughput = values[:5]
        table = _stream_table(source, name, unit)
        if udp_stream:
            table.notes.append("UDP: the receiver's throughput is used (what arrived)"
                               if second is not None and len(second) == 4 else
                               "UDP: the sender's throughput (no receiver row)")
        rate = throughput * unit_factor(unit)
        if not (0 < rate < float("inf")) or size <= 0:
            raise InputError("netperf throughput or message size is not positive", file=source,
                             line=line, fix="the test did not run; rerun it")
        table.add(line, size, size / rate, rate=rate, elapsed=elapsed)
    if headerless:
        table.notes.append(f"no banner (-P 0): a {name} result assumed from the number of "
                           "columns" + ("" if kind == "RR" else
                                       f", in netperf's default unit {_DEFAULT_UNIT}"))
    return _built(table, source, line)


def _check_elapsed(elapsed: float | None, said: str, source: str, line: int) -> None:
    """A test runs for a positive time: a zero or negative one is a damaged result."""
    if elapsed is not None and not elapsed > 0:
        raise InputError(f"netperf elapsed time is {said} s", file=source, line=line,
                         fix="a test runs for a positive time: the result is damaged; rerun "
                             "netperf")


def _built(table: Table, source: str, line: int) -> Measurements:
    return table.required("netperf result with no usable value", "rerun netperf", line)


def _rr_table(source: str, name: str, kind: str, request: float, response: float) -> Table:
    if kind == "RR":
        table = Table(source, NAME, name, "pingpong", "round_trip",
                      "half of 1 / transaction rate (one transaction = one round trip)",
                      concurrency={"pairs": 1, "processes": 2})
    else:
        what = "connect, request, response and close" if kind == "CRR" else "connect and close"
        table = Table(source, NAME, name, "other", "time",
                      f"1 / transaction rate: one {what}, not a message latency",
                      concurrency={"pairs": 1, "processes": 2})
    if request != response:
        table.notes.append(f"request {request:g} B and response {response:g} B differ: the "
                           "size is the request's")
    return table


def _stream_table(source: str, name: str, unit: str) -> Table:
    return Table(source, NAME, name, "stream", "bandwidth",
                 f"size / throughput, throughput in {unit}: time per message of the stream",
                 concurrency={"pairs": 1, "processes": 2}, attrs={"unit": unit})


def _omni_csv(source: str, proto: str, kind: str,
              content: list[tuple[int, str]]) -> Measurements:
    (hline, header), *rest = content
    if not rest:
        raise InputError("netperf omni CSV has titles but no values (a truncated file?)",
                         file=source, line=hline, fix="rerun netperf and keep its output")
    line, row = rest[0]
    names, values = header.split(","), row.split(",")
    if len(values) != len(names):
        raise InputError(f"netperf omni CSV row has {len(values)} values for {len(names)} "
                         "titles", file=source, line=line, fix="rerun netperf")
    fields = dict(zip(map(_key, names), (v.strip() for v in values), strict=True))
    return _omni(source, proto, kind, fields, line, "omni -o")


TITLE_LINES = 8
"""``-O`` stacks a column's title over at most this many lines above the values."""


def _omni_columns(source: str, proto: str, kind: str, body: list[tuple[int, str]],
                  raw: list[str]) -> Measurements:
    """``-O``: titles stacked over a few lines, aligned over the values' columns; the values
    may include words (``Trans/s`` under ``Throughput Units``)."""
    rows = [n for n, ln in body if ln and number(ln.split()[0]) is not None]
    csv = [n for n, ln in body if "," in ln and number(ln.split(",")[0]) is not None]
    if not rows and csv:
        raise InputError("netperf omni CSV values, but not under one line of titles (wrapped "
                         "over several lines?)", file=source, line=csv[0],
                         fix="give netperf's output as it printed it: the -o titles on one "
                             "line, the values on the next")
    if not rows:
        raise InputError("netperf output without a result row", file=source,
                         line=body[-1][0] if body else 1, fix="rerun netperf and keep its output")
    line = rows[0]
    value_line = raw[line - 1]
    spans = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", value_line)]
    above = [raw[n - 1] for n, ln in body if n < line and ln][-TITLE_LINES:]
    fields = {}
    for i, (start, value) in enumerate(spans):
        end = spans[i + 1][0] if i + 1 < len(spans) else None
        title = " ".join(t[start:end].strip() for t in above)
        fields[_key(title)] = value
    return _omni(source, proto, kind, fields, line, "omni -O")


def _key(title: str) -> str:
    low = " ".join(title.lower().split())
    return next((key for phrase, key in _TITLES if phrase in low), low)


def _omni(source: str, proto: str, kind: str, fields: dict[str, str], line: int,
          how: str) -> Measurements:
    def value(key: str) -> float | None:
        return number(fields[key]) if key in fields else None

    units = fields.get("THROUGHPUT_UNITS", "")
    _check_elapsed(value("ELAPSED_TIME"), fields.get("ELAPSED_TIME", ""), source, line)
    if not kind:
        rr_like = units.lower().startswith("trans") or any(
            k in fields for k in ("RT_LATENCY", "MEAN_LATENCY", "TRANSACTION_RATE"))
        kind = "RR" if rr_like else "STREAM"
    name = f"{proto}_{kind}"
    if kind in ("RR", "CRR", "CC"):
        request = value("REQUEST_SIZE")
        response = value("RESPONSE_SIZE")
        size = 1.0 if request is None else request
        table = _rr_table(source, name, kind, size, size if response is None else response)
        if request is None:
            table.notes.append("the output does not print the request size: netperf's "
                               "default, 1 byte, assumed")
        rate = value("TRANSACTION_RATE")
        if rate is None and (units.lower().startswith("trans") or not units):
            rate = value("THROUGHPUT")
        rtt = value("RT_LATENCY")
        if rtt is not None and 0 < rtt < float("inf"):
            rtt *= 1e-6
            table.meaning = ("half of RT_LATENCY (round-trip µs per transaction)"
                             if kind == "RR" else "RT_LATENCY: µs per transaction")
        elif rate is not None and 0 < rate < float("inf"):
            rtt = 1 / rate
        elif (mean := value("MEAN_LATENCY")) is not None and 0 < mean < float("inf"):
            rtt = mean * 1e-6
            table.meaning = "half of MEAN_LATENCY (round-trip µs)"
        else:
            raise InputError(f"netperf {how} {name} output has no rate or latency",
                             file=source, line=line,
                             fix="select THROUGHPUT or RT_LATENCY in the output")
        # netperf's latencies are round trips: kept as such, under rtt_ names
        extra = {"rtt_" + k.lower().removesuffix("_latency"): v * 1e-6 for k in
                 ("MEAN_LATENCY", "MIN_LATENCY", "MAX_LATENCY", "STDDEV_LATENCY",
                  "P50_LATENCY", "P90_LATENCY", "P99_LATENCY") if (v := value(k)) is not None}
        table.add(line, size, rtt / 2 if kind == "RR" else rtt, rtt=rtt, **extra)
    else:
        size_sent = value("LOCAL_SEND_SIZE")
        throughput = value("THROUGHPUT")
        if size_sent is None or throughput is None or size_sent <= 0 or throughput <= 0:
            raise InputError(f"netperf {how} {name} output needs THROUGHPUT and "
                             "LOCAL_SEND_SIZE", file=source, line=line,
                             fix="add them to the output selectors (-k or -o)")
        try:
            factor = unit_factor(units or _DEFAULT_UNIT)
        except ValueError:
            raise InputError(f"netperf throughput unit {units!r} is not known", file=source,
                             line=line, fix="use -f m, g, k, M, G or K") from None
        table = _stream_table(source, name, units or _DEFAULT_UNIT)
        rate = throughput * factor
        table.add(line, size_sent, size_sent / rate, rate=rate)
    table.attrs["output"] = how
    return _built(table, source, line)
