"""``perfmodel network``: the command's options, one call into the core, and its view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfmodel.cli import options
from perfmodel.cli.common import (
    FEW_SIZES,
    emit_json,
)
from perfmodel.errors import InputError

EXAMPLES = [
    "perfmodel network calibration/beowulf-1995.toml --pairs 1..8 --link-speed "
    "10Mbps,100Mbps",
    "perfmodel network calibration/es80.toml --processes 2..8 --placement cyclic",
    "perfmodel network calibration/alaska-edr.toml --pairs 1,8,32 --nodes-per-job 2 "
    "--sizes 8B,4MiB",
]
"""Run by tests/test_help.py: each must work from the repository's root."""


def network(
    profile: Annotated[Path, typer.Argument(
        metavar="PROFILE", help="A machine profile from calibrate.")],
    sizes: options.Sizes = FEW_SIZES,
    pairs: Annotated[options.Counts | None, options.option(
        "--pairs", "-k", parse=options.counts(), metavar="COUNTS",
        help="Pairs exchanging at once (tokens in flight): 1..8 or 1,2,4.")] = None,
    channels: options.ChannelList = None,
    senders: Annotated[options.Counts | None, options.option(
        "--senders", parse=options.counts(), metavar="COUNTS",
        help="Senders streaming into one receiver (fan-in): 1..15. With it, every row is "
             "streams, 1 sender included.")] = None,
    link_speed: options.LinkSpeeds = None,
    processes: Annotated[options.Counts | None, options.option(
        "--processes", "-p", parse=options.counts(2), metavar="COUNTS",
        help="Predict the Exchange ring (IMB/Pallas Exchange: every process sends to and "
             "receives from both neighbours) for these process counts: 2,4 or 2..64.")] = None,
    placement: Annotated[str, options.option(
        "--placement", choices=("block", "cyclic", "spread"), metavar="block|cyclic|spread",
        help="Where ranks sit, with --processes: block (fill each box first), cyclic (deal "
             "ranks to boxes), spread (one per box).")] = "block",
    ranks_per_node: Annotated[int | None, options.option(
        "--ranks-per-node", parse=options.whole(1, 1_000_000), metavar="N",
        help="With --pairs: ranks placed N to a node in blocks, as calibrate places a "
             "table's (pairs i and i + pairs): every pair crosses when N <= pairs, and N "
             "streams share each NIC; without a layout every pair has nodes of its own.")
    ] = None,
    nodes_per_job: Annotated[int | None, options.option(
        "--nodes-per-job", parse=options.whole(1, 1_000_000), metavar="N",
        help="With --pairs: each pair count's ranks spread over N nodes in blocks "
             "(osu_mbw_mr across two nodes: --nodes-per-job 2, every sender on one node); "
             "instead of --ranks-per-node.")] = None,
    both_ways: Annotated[bool, options.option(
        "--both-ways", help="With --pairs: every pair sends both ways at once (osu_bibw, "
        "IMB Biband); the rates are each direction's, with the fabric's duplex and receive "
        "(assumed 1 and said, where no bidirectional table was calibrated).")] = False,
    level: options.Level = 0.95,
    json_out: options.Json = False,
) -> None:
    """Predict one-way time and bandwidth at any message size, with intervals; with --pairs,
    --channels, --senders or --link-speed, per-pair and aggregate throughput on the shared
    network for every combination; with --processes, the Exchange ring's time per iteration
    as placement puts ranks inside or across boxes."""
    from perfmodel.machine.profile import load

    prof = load(profile)
    from perfmodel.cli import render

    if processes is not None and (pairs is not None or senders is not None):
        raise InputError("--processes predicts the Exchange ring, which has no --pairs or "
                         "--senders", fix="drop --pairs/--senders, or drop --processes")
    layout = None
    if ranks_per_node is not None or nodes_per_job is not None:
        from perfmodel.layout import Layout

        layout = Layout(ranks_per_node=ranks_per_node, nodes=nodes_per_job)   # not both
        if pairs is None or senders is not None:
            raise InputError("a rank layout places the ranks of --pairs", fix="give --pairs "
                             "too" if pairs is None else "drop --senders: a fan-in's streams "
                             "end in one receiver")
    if both_ways and (pairs is None or senders is not None):
        raise InputError("--both-ways has the pairs of --pairs send both ways",
                         fix="give --pairs too" if pairs is None else "drop --senders: a "
                         "fan-in's streams go one way, into one receiver")
    if placement != "block" and processes is None:
        raise InputError("--placement places the ranks of an Exchange ring",
                         fix="give --processes too")
    if pairs is None and channels is None and senders is None and link_speed is None \
            and processes is None:
        from perfmodel.network.predict import predict_on

        pred = predict_on(prof, list(sizes), level)
        if json_out:
            emit_json(render.prediction_doc(prof, pred))
        else:
            render.prediction(prof, pred, str(profile))
        return
    from perfmodel.machine.hardware import require_fabric

    fab = require_fabric(prof, "it cannot predict pairs, channels, senders, processes or link "
                         "speeds", profile)
    if processes is not None:
        from perfmodel.network.fabric import exchange_grid

        ring = exchange_grid(fab, sizes, processes, channels or [fab.channels], link_speed,
                             placement, level)
        if json_out:
            emit_json(render.exchange_doc(prof, ring))
        else:
            render.exchange(prof, ring, str(profile))
        return
    from perfmodel.network.fabric import grid

    result = grid(fab, sizes, pairs or [1], channels or [fab.channels], senders or [1],
                  link_speed, level, fanin=senders is not None, layout=layout,
                  both=both_ways)
    if json_out:
        emit_json(render.rates_doc(prof, result))
    else:
        render.rates(prof, result, str(profile))

