"""The machine: what a profile costs.

- :mod:`~perfmodel.machine.profile`: the machine profile (TOML in ``calibration/``): the fitted
  point-to-point model, the fabric (contention, channels, boxes) and the node, each parameter
  with its source;
- :mod:`~perfmodel.machine.core`: :class:`Machine`, what a round of messages and a kernel cost
  on a profile with what-if overrides (channels, line rate, latency, node speed);
- :mod:`~perfmodel.machine.collectives`: collective operations as rounds of messages on a
  :class:`Machine`;
- :mod:`~perfmodel.machine.at_scale`: collectives the machine was measured running at a node
  count, kept in its profile beside the law.

Applications (:mod:`perfmodel.apps`), empirical scaling (:mod:`perfmodel.empirical`), sweeps
and reports reach the network only through this package.
"""

from perfmodel.machine.core import Machine as Machine
from perfmodel.machine.core import MessageSpan as MessageSpan
from perfmodel.machine.core import message_span as message_span
from perfmodel.machine.core import require_node as require_node
