"""perfmodel's own file kinds, as files: TOML in (:mod:`~perfmodel.files.toml`: parse with
caps, find a key's line, check a file's header and keys) and out
(:mod:`~perfmodel.files.write`), and what any file is when it is not the kind a command wants
(:mod:`~perfmodel.files.kinds`).

Each kind's loader stays beside the objects it builds (profiles in
:mod:`perfmodel.machine.profile`, specs in :mod:`perfmodel.network.spec`, model files in
:mod:`perfmodel.apps.model`, saved fits in :mod:`perfmodel.apps.saved`, catalogues in
:mod:`perfmodel.whatif.catalogue`, report specifications in :mod:`perfmodel.report.spec`) and
reads through this room; the measurement formats of benchmark tools are
:mod:`perfmodel.readers`, the room below.
"""
