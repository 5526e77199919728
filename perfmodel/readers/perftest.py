"""perftest (linux-rdma/perftest): ``ib_{write,read,send,atomic}_{lat,bw}`` as printed.

    ---------------------------------------------------------------------------------------
                        RDMA_Read Latency Test
     Number of qps   : 1            Transport type : IB
     ...
     #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec] ...
     2       1000          5.40           15.65        5.45                5.49        ...

     #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
     4096       5000             119.49             117.24               3.577766

Latency tests (``t_min … t_typical`` columns, in µs) become one table whose time is
``t_typical``, the median perftest prints: ``ib_write_lat`` and ``ib_send_lat`` time a
ping-pong and print half of its round trip, a **one-way** time; ``ib_read_lat`` and the atomic
tests time one operation, a request out and the data back (a round trip, as printed: pattern
``other``).  Bandwidth tests become a stream table (the queue pair posts up to ``TX depth``
messages back to back) whose time is ``size / BW average``; with several queue pairs
(``Number of qps``) the average is their sum and the time is one queue pair's per message.
``MB/sec`` is 2^20 B/s (``MsgRate[Mpps]`` × size confirms it on real outputs), ``Gb/sec``
(``--report_gbits``) 10^9 bit/s; where a row has both, they are checked against each other.
Three header generations (2012's without ``MsgRate``, and later ones), tabs inside rows,
warnings before the table (CUDA, CPU frequency) and a server side that prints only the last
size are read as they come.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements, Pattern, Quantity
from perfmodel.readers._table import Table, integer, kept, lines_of, number, precise, row_values

NAME = "perftest"
DESCRIPTION = "perftest ib_write/read/send/atomic latency and bandwidth (RDMA verbs)"

_TITLE = re.compile(r"^\s*(?P<op>RDMA_Write_imm|RDMA_Write|RDMA_Read|Send|Atomic FETCH_AND_ADD|"
                    r"Atomic CMP_AND_SWAP)\s+(?P<kind>BW|Latency)\s+Test\s*$")
_ATTR = re.compile(r"(?P<key>[A-Za-z][A-Za-z0-9 .*_-]{0,30}?)\s*:\s*(?P<value>[^\t:]*?)"
                   r"(?=\s{2,}[A-Za-z][A-Za-z0-9 .*_-]{0,30}?\s*:|\t|$)")
_COLUMN = re.compile(r"#bytes|#iterations|BW peak\[[^\]]{1,12}\]|BW average\[[^\]]{1,12}\]|"
                     r"MsgRate\[[^\]]{1,12}\]|t_[a-z]{1,10}\[usec\]|"
                     r"[0-9.]{1,5}% percentile\[usec\]")
"""The columns of a ``#bytes`` header, some of two words: each becomes one row token."""
_UNIT = re.compile(r"\[(?P<unit>MB/sec|Gb/sec|usec)\]")
_KEEP = {"Number of qps": "qps", "TX depth": "tx depth", "Mtu": "mtu", "Link type": "link",
         "Connection type": "connection", "Device": "device", "Transport type": "transport",
         "Outstand reads": "outstanding reads"}
_BENCHMARKS = {("RDMA_Write_imm", "Latency"): "ib_write_lat",
               ("RDMA_Write_imm", "BW"): "ib_write_bw",
               ("RDMA_Write", "Latency"): "ib_write_lat", ("RDMA_Read", "Latency"): "ib_read_lat",
               ("Send", "Latency"): "ib_send_lat", ("RDMA_Write", "BW"): "ib_write_bw",
               ("RDMA_Read", "BW"): "ib_read_bw", ("Send", "BW"): "ib_send_bw",
               ("Atomic FETCH_AND_ADD", "Latency"): "ib_atomic_lat",
               ("Atomic CMP_AND_SWAP", "Latency"): "ib_atomic_lat",
               ("Atomic FETCH_AND_ADD", "BW"): "ib_atomic_bw",
               ("Atomic CMP_AND_SWAP", "BW"): "ib_atomic_bw"}
MIB = 1048576.0


def sniff(text: str) -> bool:
    head = text[:20000]
    return any(_TITLE.match(ln) for _, ln in lines_of(head)) and "#bytes" in head


class _Block:
    def __init__(self, source: str, line: int, match: re.Match[str]) -> None:
        self.source, self.line = source, line
        self.op, self.kind = match["op"], match["kind"]
        self.benchmark = _BENCHMARKS[(self.op, self.kind)]
        self.attrs: dict[str, str] = {"title": match.group(0).strip()}
        self.columns: list[str] = []
        self.rows: list[tuple[int, list[str]]] = []
        self.skipped: list[int] = []
        self.closed = False   # the dashes after the rows: what follows is not the table's

    def attribute(self, ln: str) -> None:
        for m in _ATTR.finditer(ln.strip()):
            key = " ".join(m["key"].split())
            if key in _KEEP and m["value"].strip():
                self.attrs[_KEEP[key]] = m["value"].strip()

    def table(self) -> Measurements | None:
        if not self.columns:
            raise InputError(f"perftest {self.benchmark} has a title but no #bytes header",
                             file=self.source, line=self.line,
                             fix="the output is cut short; rerun the test and keep its output")
        return self._latency() if self.kind == "Latency" else self._bandwidth()

    def _index(self, name: str) -> int | None:
        return next((i for i, c in enumerate(self.columns) if c.startswith(name)), None)

    def _required(self, name: str, shown: str, table: str) -> int:
        """The index of the column ``name`` (said as ``shown``) the table cannot be read
        without; one line naming the columns found otherwise, and the ``table`` perfmodel
        reads."""
        index = self._index(name)
        if index is None:
            raise InputError(f"perftest {self.benchmark}: no {shown} column in "
                             f"{' '.join(self.columns)}", file=self.source, line=self.line,
                             fix=f"perfmodel reads perftest's {table}")
        return index

    def _rows(self, table: Table, need: int) -> Iterator[tuple[int, list[str], list[float]]]:
        """Each data row with its first ``need`` values; the lines that are not rows (a
        launcher's words, a size that is not whole) skipped into the table's notes."""
        for line, tokens in self.rows:
            values = row_values(table, line, tokens, need, f"perftest {self.benchmark}")
            if values is None:
                continue
            if integer(tokens[0]) is None:
                table.skip(line)
                continue
            yield line, tokens, values
        for line in self.skipped:
            table.skip(line)

    def _latency(self) -> Measurements | None:
        typical = self._required("t_typical", "t_typical", "latency table (t_min … t_typical)")
        one_way = self.op in ("RDMA_Write", "RDMA_Write_imm", "Send")
        pattern: Pattern = "pingpong" if one_way else "other"
        quantity: Quantity = "one_way" if one_way else "time"
        meaning = ("t_typical (the median), µs as printed: perftest times a ping-pong and "
                   "prints half its round trip" if one_way else
                   "t_typical (the median), µs as printed: one operation, the request out and "
                   "the data back (a round trip)")
        table = Table(self.source, NAME, self.benchmark, pattern, quantity, meaning,
                      statistic="median", concurrency={"processes": 2, "pairs": 1},
                      attrs=self.attrs)
        extra_cols = {key: i for prefix, key in (
            ("t_min", "t_min"), ("t_max", "t_max"), ("t_avg", "t_avg"), ("t_stdev", "stddev"),
            ("99%", "p99"), ("99.9%", "p999")) if (i := self._index(prefix)) is not None}
        for line, tokens, values in self._rows(table, typical + 1):
            extra = {key: v * 1e-6 for key, i in extra_cols.items()
                     if i < len(tokens) and (v := number(tokens[i])) is not None}
            reps = values[1] if len(values) > 1 else None
            table.add(line, values[0], values[typical] * 1e-6, reps, **extra)
        return table.build()

    def _bandwidth(self) -> Measurements | None:
        average = self._required("BW average", "'BW average'", "bandwidth table (BW average)")
        unit_match = _UNIT.search(self.columns[average])
        gbits = unit_match is not None and unit_match["unit"] == "Gb/sec"
        scale = 1e9 / 8 if gbits else MIB
        qps = integer(self.attrs.get("qps", "1")) or 1
        rate_col = self._index("MsgRate")
        unit = "Gb/sec = 10^9 bit/s" if gbits else "MB/sec = 2^20 B/s"
        if qps > 1:
            quantity: Quantity = "aggregate"
            meaning = (f"size·{qps} / BW average ({unit}): the average is summed over "
                       f"{qps} queue pairs; time per message of one queue pair")
            counts = {"processes": 2, "pairs": float(qps)}
        else:
            quantity = "bandwidth"
            meaning = f"size / BW average ({unit}): time per message of a stream"
            counts = {"processes": 2, "pairs": 1.0}
        table = Table(self.source, NAME, self.benchmark, "stream", quantity, meaning,
                      statistic="mean", concurrency=counts, attrs=self.attrs)
        if qps > 1:
            table.notes.append(f"{qps} queue pairs of one process stream at once: counted as "
                               "pairs sharing the NIC")
        peak = self._index("BW peak")
        for line, tokens, values in self._rows(table, average + 1):
            size, rate = values[0], values[average] * scale
            if size == 0 or rate <= 0:
                table.drop(line, "no time can be read from a zero size or bandwidth")
                continue
            extra = {"rate": rate}
            if peak is not None and peak < len(tokens) and (v := number(tokens[peak])) is not None:
                extra["rate_peak"] = v * scale
            if rate_col is not None and rate_col < len(tokens) and \
                    (mpps := number(tokens[rate_col])) is not None:
                extra["msg_rate"] = mpps * 1e6
                if precise(tokens[rate_col]) and precise(tokens[average]):
                    table.agree(line, size * mpps * 1e6, rate, "BW average", "MsgRate")
            reps = values[1] if len(values) > 1 else None
            table.add(line, size, size * qps / rate, reps, **extra)
        return table.build()


def read(source: str, text: str) -> tuple[Measurements, ...]:
    blocks: list[_Block] = []
    for lineno, ln in lines_of(text):
        if match := _TITLE.match(ln):
            blocks.append(_Block(source, lineno, match))
            continue
        if not blocks or blocks[-1].closed:
            continue
        block = blocks[-1]
        stripped = ln.strip()
        if block.rows and stripped.startswith("---"):
            block.closed = True
        elif stripped.startswith("#bytes"):
            block.columns = [m.group(0) for m in _COLUMN.finditer(stripped)]
            block.line = lineno
        elif not block.columns and ":" in stripped:
            block.attribute(ln)
        elif block.columns and stripped and not stripped.startswith("-"):
            tokens = stripped.split()
            if number(tokens[0]) is not None:
                block.rows.append((lineno, tokens))
            elif block.rows:
                block.skipped.append(lineno)
    return kept((b.table() for b in blocks), source, "perftest",
                blocks[0].line if blocks else None)
