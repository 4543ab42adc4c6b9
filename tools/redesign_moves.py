"""Issue 20, item 2: opgen's packages by pipeline stage. Moves modules with `git mv` and
rewrites every import of them (and their dotted names and `opgen/...` paths in code, tests,
bench, tools and docs).

Re-runnable: a module already moved is left where it is, and the rewrites only touch old
names, so running it again on a tree that gained other commits (a merged branch that still
imports `opgen.spec.model`) moves nothing and rewrites what is new. Run from anywhere inside
the work tree:  python tools/redesign_moves.py
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).parent).stdout.strip())

# old module -> new module
MOVES = {
    "opgen.spec.model": "opgen.model",  # the IR every stage shares
    "opgen.overrides": "opgen.overrides.load",  # override files -> ApiModel, as one package
    "opgen.apidef": "opgen.overrides.apidef",
    "opgen.apidef_files": "opgen.overrides.files",
    "opgen.apidef_merge": "opgen.overrides.merge",
    "opgen.render.tree_writer": "opgen.outputs.tree_writer",  # what a command writes
    "opgen.render.diff_writer": "opgen.outputs.diff_writer",
    "opgen.depfile": "opgen.outputs.depfile",
    "opgen.written_files": "opgen.outputs.written_files",
    "opgen.attr_text": "opgen.tf_text.attr_text",  # TensorFlow's text forms
    "opgen.proto_text": "opgen.tf_text.proto_text",
    "opgen.fingerprint": "opgen.tf_text.fingerprint",
}

PACKAGES = {
    "opgen/overrides": "Override files (OpGenOverride and ApiDef text protos) read into the per-op ApiDef model:\n"
                       "`load` (directories and layers -> `ApiModel`), `files` (one file, either format),\n"
                       "`merge` (several files on one op), `apidef` (the model).",
    "opgen/outputs": "What commands write: the output tree (`tree_writer`: compare, journal, commit atomically),\n"
                     "its unified diff (`diff_writer`, `opgen build --diff`), depfiles (`depfile`) and the check\n"
                     "that `-o`/`--depfile` replace no input (`written_files`).",
    "opgen/tf_text": "TensorFlow's text forms: attr values and OpDef summaries (`attr_text`), the protobuf\n"
                     "text format (`proto_text`) and OpDef fingerprints (`fingerprint`).",
}

SUFFIXES = {".py", ".md", ".toml", ".cfg", ".ini", ".sh", ".txt", ".yaml", ".yml"}
SKIP = {"generated"}  # the generated modules import no generator module


def path_of(module: str) -> Path:
    return Path(*module.split(".")).with_suffix(".py")


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def move_files() -> None:
    for package, doc in PACKAGES.items():
        init = ROOT / package / "__init__.py"
        if not init.exists():
            moved_module = package.replace("/", ".")
            if (ROOT / package).with_suffix(".py").exists():  # opgen/overrides.py: moved out first
                target = path_of(MOVES[moved_module])
                (ROOT / target).parent.mkdir(parents=True, exist_ok=True)
                git("mv", f"{package}.py", str(target))
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}\n"""\n', encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))
    for old, new in MOVES.items():
        source, target = ROOT / path_of(old), ROOT / path_of(new)
        if source.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            git("mv", str(source.relative_to(ROOT)), str(target.relative_to(ROOT)))


def _new_packages_submodules(old: str) -> set[str]:
    """Names below `old` that are already new modules (`opgen.overrides.load`): not old names."""
    return {new[len(old) + 1:].split(".")[0] for new in MOVES.values() if new.startswith(old + ".")}


def _dotted(old: str) -> re.Pattern:
    keep = "|".join(sorted(_new_packages_submodules(old)))
    # `opgen.overrides.load` and `from opgen.overrides import load` are new names already
    after = rf"(?!\.(?:{keep})\b)(?! import (?:{keep})\b)" if keep else ""
    return re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w]){after}")


_FROM_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from (?P<package>[\w.]+) import (?P<names>\([^)]*\)|[^\n#]*[^\s#])",
                          re.M)


def _rewrite_from_imports(text: str) -> str:
    """`from opgen import attr_text` / `from opgen.render import build, tree_writer`: the moved
    modules imported from their new package (keeping the local name), the others as they were."""

    def replace(m: re.Match) -> str:
        package, indent = m["package"], m["indent"]
        names = [n.strip() for n in m["names"].strip("()").split(",") if n.strip()]
        moved, kept = [], []
        for entry in names:
            name, _, alias = entry.partition(" as ")
            old = f"{package}.{name.strip()}"
            if old in MOVES:
                new_package, _, new_name = MOVES[old].rpartition(".")
                local = alias.strip() or name.strip()
                moved.append(
                    f"{indent}from {new_package} import {new_name}" + (f" as {local}" if local != new_name else "")
                )
            else:
                kept.append(entry)
        if not moved:
            return m.group(0)
        lines = ([f"{indent}from {package} import {', '.join(kept)}"] if kept else []) + moved
        return "\n".join(lines)

    return _FROM_IMPORT.sub(replace, text)


def rewrite(text: str) -> str:
    for old in sorted(MOVES, key=len, reverse=True):
        new = MOVES[old]
        text = _dotted(old).sub(new, text)
        old_path, new_path = path_of(old).as_posix(), path_of(new).as_posix()
        text = re.sub(rf"(?<![\w/]){re.escape(old_path)}", new_path, text)
        # paths relative to opgen/ in quotes (a cache key's hand list: "apidef.py", "render/tree_writer.py")
        text = text.replace(f'"{old_path[len("opgen/") :]}"', f'"{new_path[len("opgen/") :]}"')
    return _rewrite_from_imports(text)  # after the dotted names: its output holds new names only


def rewrite_files() -> list[Path]:
    changed = []
    me = Path(__file__).resolve()
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in sorted(filter(None, tracked.split("\0"))):
        rel, path = Path(name), ROOT / name
        if (
            rel.parts[0] in SKIP
            or path.suffix not in SUFFIXES
            or not path.is_file()
            or path.is_symlink()
            or path.resolve() == me
        ):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(rel)
    return changed


def main() -> int:
    move_files()
    changed = rewrite_files()
    print(f"redesign_moves: rewrote {len(changed)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
