"""netperf TCP_STREAM / TCP_MAERTS and TCP_RR output: classic, ``-P 0``, and omni (-o, -O, -k).

A netperf run is one point: one message size.  A STREAM result is a throughput, read as the
time per message of the stream (size / throughput); an RR result is a transaction rate, one
round trip per transaction, so the one-way time is half of 1 / rate.

Units, from the netperf manual: throughput is 10^6 bit/s by default (``-f m``); ``-f g/k`` are
10^9/10^3 bit/s and ``-f G/M/K`` 2^30/2^20/2^10 *bytes*/s; the classic header's units line
says which.  ``RT_LATENCY``, ``MEAN_LATENCY`` and the percentiles are round-trip µs.
Omni output may leave out the request size (``-O`` with default selectors); netperf's
default of 1 byte is then assumed and said.
"""

from __future__ import annotations

import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, integer, lines_of, number, numbers

NAME = "netperf"
DESCRIPTION = "netperf TCP_STREAM/TCP_RR: classic, -P 0, omni -o/-O/-k"

BANNER = re.compile(r"^(?:MIGRATED\s+)?(?:OMNI\s+)?(?P<proto>TCP|UDP|SCTP|SDP|DLCO|DLCL|OMNI)\w*"
                    r"(?:\s+(?P<test>STREAM|MAERTS|REQUEST/RESPONSE|CONNECT/REQUEST/RESPONSE|"
                    r"CONNECT/CLOSE|SENDFILE|Send/Recv|Send|Recv))?\s+TEST\b", re.I)
_KV = re.compile(r"^(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
_KNOWN_KEYS = {"THROUGHPUT", "THROUGHPUT_UNITS", "MEAN_LATENCY", "RT_LATENCY", "P50_LATENCY",
               "P90_LATENCY", "P99_LATENCY", "MIN_LATENCY", "MAX_LATENCY", "STDDEV_LATENCY",
               "TRANSACTION_RATE", "REQUEST_SIZE", "RESPONSE_SIZE", "LOCAL_SEND_SIZE",
               "REMOTE_RECV_SIZE", "ELAPSED_TIME", "PROTOCOL", "DIRECTION"}
_UNIT = re.compile(r"10\^(?P<exp>\d+)\s*bits/s(?:ec)?|(?P<prefix>[KMG])Bytes/s(?:ec)?", re.I)
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
    keys = _kv(lines)
    if len(keys) >= 2 and keys.keys() & {"THROUGHPUT", "MEAN_LATENCY", "RT_LATENCY",
                                         "TRANSACTION_RATE"}:
        return True
    head = next((ln for _, ln in lines if ln), "")
    if "," in head and any(t in head for t, _ in _TITLES if "latency" in t or "rate" in t):
        return True
    return _headerless(lines) is not None


def read(source: str, text: str) -> tuple[Measurements, ...]:
    lines = lines_of(text)
    banner = next(((n, BANNER.match(ln)) for n, ln in lines[:5] if BANNER.match(ln)), None)
    test = (banner[1]["test"] or "").upper() if banner and banner[1] else ""
    body = [(n, ln) for n, ln in lines if not (banner and n == banner[0])
            and not ln.startswith("Interim result")]
    keys = _kv(body)
    if keys.keys() & _KNOWN_KEYS:
        return (_omni(source, test, {k: v for k, (_, v) in keys.items()},
                      min(n for n, _ in keys.values()), "omni -k"),)
    content = [(n, ln) for n, ln in body if ln]
    if content and "," in content[0][1]:
        return (_omni_csv(source, test, content),)
    if any(ln.startswith(("Socket", "Local /Remote", "Recv ")) for _, ln in content[:3]):
        return (_classic(source, test, body),)
    width = _headerless(body)
    if width is not None:
        n, ln = content[0]
        return (_classic_row(source, "STREAM" if width == 5 else "REQUEST/RESPONSE", n,
                             ln.split(), _DEFAULT_UNIT, headerless=True),)
    if content:
        return (_omni_columns(source, test, body, text.splitlines()),)
    raise InputError("netperf banner with no results (a truncated file?)", file=source,
                     line=banner[0] if banner else 1, fix="rerun netperf and keep its output")


def _classic(source: str, test: str, body: list[tuple[int, str]]) -> Measurements:
    unit = next((m.group(0) for _, ln in body[:8] if (m := _UNIT.search(ln))), _DEFAULT_UNIT)
    for n, ln in body:
        tokens = ln.split()
        if tokens and number(tokens[0]) is not None and len(tokens) >= 5:
            kind = test or ("REQUEST/RESPONSE" if len(tokens) >= 6 and
                            any("Trans" in x for _, x in body[:6]) else "STREAM")
            return _classic_row(source, kind, n, tokens, unit, headerless=False)
    last = body[-1][0] if body else 1
    raise InputError("netperf header with no result row (a truncated file?)", file=source,
                     line=last, fix="rerun netperf and keep its whole output")


def _classic_row(source: str, test: str, line: int, tokens: list[str], unit: str,
                 headerless: bool) -> Measurements:
    rr = "REQUEST/RESPONSE" in test
    need = 6 if rr else 5
    values = numbers(tokens, need)
    if values is None:
        raise InputError(f"netperf result row has {len(tokens)} values, not the {need} of "
                         f"{'an RR' if rr else 'a STREAM'} result", file=source, line=line,
                         fix="rerun netperf and keep its whole output")
    if rr:
        _, _, request, response, elapsed, rate = values[:6]
        table = _rr_table(source, "TCP_RR", request, response)
        if rate <= 0:
            raise InputError("netperf transaction rate is 0", file=source, line=line,
                             fix="the test did not run; rerun it")
        table.add(line, request, 0.5 / rate, rtt=1 / rate, elapsed=elapsed)
    else:
        _, _, size, elapsed, throughput = values[:5]
        name = "TCP_MAERTS" if "MAERTS" in test else "TCP_STREAM"
        table = _stream_table(source, name, unit)
        rate = throughput * unit_factor(unit)
        if rate <= 0 or size <= 0:
            raise InputError("netperf throughput or message size is 0", file=source, line=line,
                             fix="the test did not run; rerun it")
        table.add(line, size, size / rate, rate=rate, elapsed=elapsed)
    if headerless:
        table.notes.append(f"no banner (-P 0): a {'TCP_RR' if rr else 'TCP_STREAM'} result "
                           "assumed from the number of columns"
                           + ("" if rr else f", in netperf's default unit {_DEFAULT_UNIT}"))
    built = table.build()
    assert built is not None  # the row's values were checked above
    return built


def _rr_table(source: str, name: str, request: float, response: float) -> Table:
    table = Table(source, NAME, name, "pingpong", "round_trip",
                  "half of 1 / transaction rate (one transaction = one round trip)",
                  concurrency={"pairs": 1, "processes": 2})
    if request != response:
        table.notes.append(f"request {request:g} B and response {response:g} B differ: the "
                           "size is the request's and the time half the round trip")
    return table


def _stream_table(source: str, name: str, unit: str) -> Table:
    return Table(source, NAME, name, "stream", "bandwidth",
                 f"size / throughput, throughput in {unit}: time per message of the stream",
                 concurrency={"pairs": 1, "processes": 2}, attrs={"unit": unit})


def _omni_csv(source: str, test: str, content: list[tuple[int, str]]) -> Measurements:
    (hline, header), *rest = content
    if not rest:
        raise InputError("netperf omni CSV has titles but no values (a truncated file?)",
                         file=source, line=hline, fix="rerun netperf and keep its output")
    line, row = rest[0]
    names, values = header.split(","), row.split(",")
    if len(values) != len(names):
        raise InputError(f"netperf omni CSV row has {len(values)} values for {len(names)} "
                         "titles", file=source, line=line, fix="rerun netperf")
    return _omni(source, test, dict(zip(map(_key, names), (v.strip() for v in values),
                                        strict=True)), line, "omni -o")


def _omni_columns(source: str, test: str, body: list[tuple[int, str]],
                  raw: list[str]) -> Measurements:
    """``-O``: titles stacked over several lines, aligned over the values' columns."""
    rows = [n for n, ln in body if ln and numbers(ln.split(), len(ln.split())) is not None]
    if not rows:
        raise InputError("netperf output without a result row", file=source,
                         line=body[-1][0] if body else 1, fix="rerun netperf and keep its output")
    line = rows[0]
    value_line = raw[line - 1]
    starts = [m.start() for m in re.finditer(r"\S+", value_line)]
    titles = [""] * len(starts)
    for n, t in body:
        if n >= line:
            break
        t = raw[n - 1]
        for i, s in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else None
            titles[i] += " " + t[s:end].strip()
    values = value_line.split()
    return _omni(source, test, dict(zip(map(_key, titles), values, strict=True)), line,
                 "omni -O")


def _key(title: str) -> str:
    low = " ".join(title.lower().split())
    return next((key for phrase, key in _TITLES if phrase in low), low)


def _omni(source: str, test: str, fields: dict[str, str], line: int, how: str) -> Measurements:
    def value(key: str) -> float | None:
        return number(fields[key]) if key in fields else None

    units = fields.get("THROUGHPUT_UNITS", "")
    rr = "REQUEST/RESPONSE" in test or units.lower().startswith("trans") or (
        "STREAM" not in test and "MAERTS" not in test and any(
            k in fields for k in ("RT_LATENCY", "MEAN_LATENCY", "TRANSACTION_RATE")))
    extra = {k.lower().removesuffix("_latency"): v * 1e-6 for k in
             ("MEAN_LATENCY", "MIN_LATENCY", "MAX_LATENCY", "STDDEV_LATENCY", "P50_LATENCY",
              "P90_LATENCY", "P99_LATENCY") if (v := value(k)) is not None}
    if rr:
        request = value("REQUEST_SIZE")
        response = value("RESPONSE_SIZE")
        table = _rr_table(source, "TCP_RR", request or 1.0, response or request or 1.0)
        if request is None:
            table.notes.append("the output does not print the request size: netperf's "
                               "default, 1 byte, assumed")
        rate = value("TRANSACTION_RATE") or (value("THROUGHPUT") if units.lower().startswith(
            "trans") or "THROUGHPUT_UNITS" not in fields else None)
        rtt = value("RT_LATENCY")
        if rtt is not None and rtt > 0:
            rtt *= 1e-6
            table.meaning = "half of RT_LATENCY (round-trip µs per transaction)"
        elif rate is not None and rate > 0:
            rtt = 1 / rate
        elif (mean := value("MEAN_LATENCY")) is not None and mean > 0:
            rtt = mean * 1e-6
            table.meaning = "half of MEAN_LATENCY (round-trip µs)"
        else:
            raise InputError(f"netperf {how} RR output has no rate or latency", file=source,
                             line=line, fix="select THROUGHPUT or RT_LATENCY in the output")
        table.add(line, request or 1.0, rtt / 2, rtt=rtt, **extra)
    else:
        size = value("LOCAL_SEND_SIZE")
        throughput = value("THROUGHPUT")
        if size is None or throughput is None or size <= 0 or throughput <= 0:
            raise InputError(f"netperf {how} STREAM output needs THROUGHPUT and "
                             "LOCAL_SEND_SIZE", file=source, line=line,
                             fix="add them to the output selectors (-k or -o)")
        try:
            factor = unit_factor(units or _DEFAULT_UNIT)
        except ValueError:
            raise InputError(f"netperf throughput unit {units!r} is not known", file=source,
                             line=line, fix="use -f m, g, k, M, G or K") from None
        table = _stream_table(source, "TCP_MAERTS" if "MAERTS" in test else "TCP_STREAM",
                              units or _DEFAULT_UNIT)
        table.add(line, size, size / (throughput * factor), rate=throughput * factor,
                  **extra)
    table.attrs["output"] = how
    built = table.build()
    if built is None:
        raise InputError("netperf result with no usable value", file=source, line=line,
                         fix="rerun netperf")
    return built
