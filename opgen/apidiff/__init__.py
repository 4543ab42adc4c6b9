"""API snapshots (`opgen api`) and classified API diffs (`opgen diff`).

Modules: `snapshot` (the model), `snapshot_build` (specs + overrides + pyapi -> model),
`snapshot_format` (JSON / Markdown), `graph_compat` (TF's OpDef compatibility rules),
`changes` (classification), `report` (output formats), `inputs` (diff sides, git),
`commands` (the CLI handlers and the build hook).
"""

from opgen.apidiff.commands import run_api, run_diff, snapshot_outputs, snapshot_path

__all__ = ["run_api", "run_diff", "snapshot_outputs", "snapshot_path"]
