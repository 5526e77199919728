"""One module per command: its options (declared once in :mod:`perfmodel.cli.options`),
one call into the core, and its view.  :mod:`perfmodel.cli.app` registers them in
:data:`COMMANDS` order."""

COMMANDS = ("calibrate", "network", "inspect", "predict", "scaling", "whatif", "plan", "report",
            "measure", "models")
