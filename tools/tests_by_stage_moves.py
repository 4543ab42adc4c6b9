"""Group tests/test_*.py into folders by pipeline stage and rewrite every `tests/test_X.py`
reference (docs, comments, pyproject.toml, tests/support/call_wrappers.py's
SUBPROCESS_BUILD_SITES) to the file's new path.

Re-runnable, also after merging a branch that adds or edits test files at tests/'s root: it
`git mv`s only files still at tests/ and rewrites only references to the old paths, so a second
run changes nothing. A test file at the root that FOLDERS does not name stops the run (add it
to its stage first). It does not rewrite what a moved file computes from `Path(__file__)` or
imports from another test module: use `support.paths` (`REPO`, `TESTS`) and tests/support/
modules instead (docs/architecture.md, "Where tests live"). Run it from the repository's
root: `python tools/tests_by_stage_moves.py`; it prints what it changed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# Folder below tests/ -> the test modules (without `test_` and `.py`) it holds. Not `build`:
# pytest's default norecursedirs skips folders of that name.
FOLDERS: dict[str, str] = {
    "gather": "arg_grammar attr_grammar bounded_gathering builder chains cpp_lexer doc full_type gather"
    " gather_hints gather_lost_registrations gather_projects gather_skipped gather_warnings kernels"
    " kernels_oracle example_kernels malformed op_specs preprocessor register_types registry"
    " roundtrip_tf_registry shim_ops spec_oracle validate tf_core_ops from_library_oracle"
    " cli_from_library proto",
    "overrides": "overrides overrides_example overrides_tf_apidefmap tf_apidef_crosscheck",
    "render": "render_golden render_hypothesis render_literals render_pack render_residual render_runtime"
    " render_tf reserved_op_names call_every_wrapper hostile_names_hypothesis template_errors"
    " first_call_library",
    "commands": "render_build build_depfile build_no_churn build_review cli config tree_safety"
    " pre_commit_hook scaffold packaging op_package adversarial",
    "apidiff": "apidiff apidiff_golden apidiff_oracle diff_git_sealed snapshot_hostile snapshot_hypothesis",
    "runtime": "runtime_core runtime_conversion_differential runtime_differential runtime_end_to_end"
    " runtime_graph_differential runtime_invalid_calls runtime_version runtime_wrappers"
    " runtime_op_libraries",
    "shapes": "runtime_shapes runtime_shapes_registry shape_translate shape_translate_oracle",
    "tf": "tf_backend_selection tf_custom_op_library tf_dispatch tf_dropin tf_tracebacks op_library_loading"
    " runtime_op_library",
    "project": "lint architecture readme_examples typing oracle_harness",
}
FOLDER_OF = {f"test_{name}": folder for folder, names in FOLDERS.items() for name in names.split()}
# Byte-compared output and the merger's notes keep what they say.
SKIP = ("generated/", "tests/golden/", "wip/")
REFERENCE = re.compile(r"\btests/(test_[a-z0-9_]+)\b")


def main() -> int:
    unplaced = sorted(p.name for p in Path("tests").glob("test_*.py") if p.stem not in FOLDER_OF)
    if unplaced:
        print("not in FOLDERS (add each to its stage):", " ".join(unplaced), file=sys.stderr)
        return 1
    for stem, folder in sorted(FOLDER_OF.items()):
        old = Path("tests", f"{stem}.py")
        if old.exists():
            Path("tests", folder).mkdir(exist_ok=True)
            subprocess.run(["git", "mv", str(old), f"tests/{folder}/{stem}.py"], check=True)
            print("moved", old, "->", folder)
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        path = Path(name)
        if name.startswith(SKIP) or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = REFERENCE.sub(
            lambda m: f"tests/{FOLDER_OF[m[1]]}/{m[1]}" if m[1] in FOLDER_OF else m[0], text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print("rewrote", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
