"""API snapshots (`opgen api`) and classified API diffs (`opgen diff`).

Modules: `snapshot` (the model), `snapshot_build` (specs + overrides + pyapi -> model),
`snapshot_format` (JSON / Markdown), `snapshot_file` (where `opgen build` writes the
snapshot, and its text), `graph_compat` (TF's OpDef compatibility rules), `changes`
(classification), `report` (output formats), `inputs` (diff sides, git), `compare` (two
sides classified and reported: what `opgen diff` runs). Nothing is imported here: `opgen
build` needs only `snapshot_file` and what it imports, not the comparison.
"""
