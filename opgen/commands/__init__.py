"""One module per `opgen` command, each with its `Settings` (a frozen dataclass of what the
command line and `[tool.opgen]` resolved to, `opgen.settings`) and `run(settings) -> int`
(the exit status). `opgen.cli` defines the options, builds the settings once and runs the
command inside its error boundary; a command module never sees click's option parsing.

oplist, kernels, specs, build, overrides_check (`opgen overrides check`), api, diff, init.
"""
