"""Adversarial corpus: hostile input on every surface (C++ sources, OpList files in three
formats, override files, config, CLI paths, the output tree), each case run through the real
CLI (`opgen.cli.main`) in a sandbox project and checked for opgen's promises:

* the exit status is 0 or the one the case expects (2 for bad input), never a traceback;
* a failure prints located errors (`path[:line[:col]]: error: ...`), no raw control characters;
* nothing outside `--out` is written or deleted (the chunk cache and the files a case names
  with `-o`/`--depfile` aside), and no canary file appears;
* when the input is accepted, every generated module compiles and imports in a fresh
  interpreter (where hostile names would run their payloads).

Most cases are generated (payload x position x surface); the rest are hand-made.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from google.protobuf import text_format
from support.paths import REPO

from opgen.cli import main
from opgen.proto import op_gen_overrides_pb2
from opgen.spec.oplist_io import dump_op_list
from opgen_runtime.proto import op_def_pb2

# Names that try to run code, escape a string or comment, collide under NFKC, shadow a
# builtin or a body local, drive the terminal, or are just not identifiers.
PAYLOADS = [
    "T = 0\nimport os; os.system('touch CANARY')\nU",
    "x=open('CANARY','w')",
    "__import__('os').system('touch CANARY')",
    'a"); open("CANARY", "w"); ("',
    "x\\\nopen('CANARY','w')",
    "y:open('CANARY','w')",
    "ｆoo",
    "__ｄｅｂｕｇ__",
    "é",
    "x\u200b",
    "list",
    "len",
    "isinstance",
    "tuple",
    "float",
    "TypeError",
    "locals",
    "NotImplemented",
    "lambda",
    "None",
    "__debug__",
    "name",
    "_attr_k",
    "_result",
    "_op",
    "a\x1b[2Jb",
    "a b",
    "1abc",
    "",
    "a" * 300,
    "Collections",
    "collections",
]

_OUTPUT_ROOT = "gen"
_CANARY = "CANARY"
# a located error, opgen's own one-liners, or the gather summary ("3 errors in 2 files, 1 warning")
_LOCATED = re.compile(r"^[^\s].*?: error: |^opgen: |^\d+ errors?( in \d+ files?)?(, \d+ warnings?)?$")


@dataclass
class Case:
    id: str
    files: dict[str, bytes | str]  # relative to the project root
    argv: list[str] = field(default_factory=lambda: ["build"])
    exits: tuple[int, ...] = (0, 2)
    may_write: tuple[str, ...] = ()  # project-relative files the case may create outside --out
    setup: object = None  # callable(project_root) run before the command (plants, links, ...)
    located: bool = True  # a failure must print located errors
    post: object = None  # callable(project_root) asserting what must still hold inside --out


# overrides: the default, when it exists; core_ops: hostile names may be TF's ("None", "A")
_PYPROJECT = '[tool.opgen]\nsources = ["specs"]\nout = "gen"\ncore_ops = ["*"]\n'

_BASE_CC = (
    'REGISTER_OP("{op}").Input("{x}: {T}").Input("{xs}: {N} * float").Output("{y}: {T}")'
    '.Attr("{T}: {{float, double}}").Attr("{N}: int >= 1").Attr("{k}: int = 3");\n'
)
_NAMES = {"op": "Victim", "x": "x", "xs": "xs", "y": "y", "T": "T", "N": "N", "k": "k"}


def _cc_escape(text: str) -> str:
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.extend(f"\\{b:03o}" for b in c.encode("utf-8"))
    return "".join(out)


def _op_def(names: dict[str, str]) -> op_def_pb2.OpDef:
    op = op_def_pb2.OpDef(name=names["op"])
    op.input_arg.add(name=names["x"], type_attr=names["T"])
    op.input_arg.add(name=names["xs"], type=1, number_attr=names["N"])
    op.output_arg.add(name=names["y"], type_attr=names["T"])
    t = op.attr.add(name=names["T"], type="type")
    t.allowed_values.list.type.extend([1, 2])
    op.attr.add(name=names["N"], type="int", has_minimum=True, minimum=1)
    k = op.attr.add(name=names["k"], type="int")
    k.default_value.i = 3
    return op


def _generated_cases() -> list[Case]:
    cases: list[Case] = []
    for i, payload in enumerate(PAYLOADS):
        for position in _NAMES:
            names = {**_NAMES, position: payload}
            cc = _BASE_CC.format(**{k: _cc_escape(v) for k, v in names.items()})
            cases.append(Case(f"cc-{position}-{i}", {"specs/ops.cc": cc}))
            op_list = op_def_pb2.OpList(op=[_op_def(names)])
            for fmt in ("pbtxt", "json", "pb"):
                cases.append(Case(f"oplist-{fmt}-{position}-{i}", {f"specs/ops.{fmt}": dump_op_list(op_list, fmt)},
                                  argv=["build", f"specs/ops.{fmt}"]))
        good = "specs/ops.cc", _BASE_CC.format(**_NAMES)
        for kind in ("rename_to", "alias", "input_rename", "attr_rename", "output_rename"):
            override = op_gen_overrides_pb2.OpGenOverride(name="Victim")
            if kind == "rename_to":
                override.rename_to = payload
            elif kind == "alias":
                override.alias.append(payload)
            else:
                getattr(override, kind).add(**{"from": {"input_rename": "x", "attr_rename": "k",
                                                        "output_rename": "y"}[kind], "to": payload})
            text = text_format.MessageToString(op_gen_overrides_pb2.OpGenOverrides(op=[override]), as_utf8=True)
            cases.append(Case(f"override-{kind}-{i}", {good[0]: good[1], "overrides/o.pbtxt": text}))
        # `opgen specs --skip-inexpressible` writes the op name into a C++ comment
        op_list = op_def_pb2.OpList(op=[_op_def({**_NAMES, "x": "X bad"})])
        op_list.op[0].name = "_" + payload if payload else "_"
        cases.append(Case(f"specs-comment-{i}", {"in.pb": dump_op_list(op_list, "pb")},
                          argv=["specs", "in.pb", "-o", "out/ops.cc", "--skip-inexpressible"],
                          setup=_make("dir", "out"), may_write=("out",), post=_only_comments))
    return cases


def _nested(depth: int) -> str:
    return ("op { name: \"A\" output_arg { name: \"y\" type: DT_FLOAT } attr { name: \"s\" type: \"shape\" "
            "default_value " + "{ list " * depth + "}" * depth + " } }\n")


def _plant_journal(entries: dict) -> object:
    def setup(root: Path) -> None:
        out = root / _OUTPUT_ROOT
        out.mkdir(exist_ok=True)
        (out / ".opgen-journal.json").write_text(json.dumps(entries))
        staging = out / ".opgen-staging"
        staging.mkdir(exist_ok=True)
        (staging / "x.py").write_text("import os\nopen('CANARY', 'w')\n")
    return setup


def _symlink(name: str, target: str) -> object:
    def setup(root: Path) -> None:
        out = root / _OUTPUT_ROOT
        out.mkdir(exist_ok=True)
        (out / name).symlink_to(target)
    return setup


def _link_out(target: str) -> object:
    def setup(root: Path) -> None:
        (root / _OUTPUT_ROOT).symlink_to(target)
    return setup


def _make(kind: str, rel: str) -> object:
    def setup(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.write_text(kind)
    return setup


def _hand_made_cases() -> list[Case]:
    good = {"specs/ops.cc": _BASE_CC.format(**_NAMES)}
    digits = "9" * 5000
    cases = [
        # C++ front end
        Case("cc-if-digits", {"specs/a.cc": f"#if {digits}\n#endif\n"}, exits=(2,)),
        Case("cc-if-shift-neg", {"specs/a.cc": "#if 1 << -1\n#endif\n"}, exits=(2,)),
        Case("cc-if-shift-huge", {"specs/a.cc": "#if 1 << 100000000000\n#endif\n"}, exits=(2,)),
        Case("cc-if-parens", {"specs/a.cc": "#if " + "(" * 5000 + "1" + ")" * 5000 + "\n#endif\n"}, exits=(2,)),
        Case("cc-if-unary", {"specs/a.cc": "#if " + "-" * 5000 + "1\n#endif\n"}, exits=(2,)),
        Case(
            "cc-macro-nest",
            {"specs/a.cc": "#define F(x) x\nint y = " + "F(" * 500 + "1" + ")" * 500 + ";\n"},
            exits=(2,),
        ),
        Case(
            "cc-laughs",
            {
                "specs/a.cc": "#define L0 a a\n"
                + "".join(f"#define L{i} L{i - 1} L{i - 1}\n" for i in range(1, 31))
                + "int x = L30;\n"
            },
            exits=(2,),
        ),
        Case(
            "cc-min-digits",
            {"specs/a.cc": f'REGISTER_OP("A").Attr("n: int >= {digits}").Output("y: float");\n'},
            exits=(2,),
        ),
        Case(
            "cc-default-digits",
            {"specs/a.cc": f'REGISTER_OP("A").Attr("n: int = {digits}").Output("y: float");\n'},
            exits=(2,),
        ),
        Case(
            "cc-dim-digits",
            {"specs/a.cc": f'REGISTER_OP("A").Attr("s: shape = {{ dim {{ size: {digits} }} }}").Output("y: float");\n'},
            exits=(2,),
        ),
        Case(
            "cc-deprecated-digits",
            {"specs/a.cc": f'REGISTER_OP("A").Deprecated({digits}, "x").Output("y: float");\n'},
            exits=(2,),
        ),
        Case(
            "cc-digraph-if",
            {
                "specs/a.cc": '%:if 0\nREGISTER_OP("Hidden").Output("y: float");\n%:endif\n'
                'REGISTER_OP("Shown").Output("y: float");\n'
            },
            exits=(0,),
            post=_module_lacks("gen/gen_a.py", "def hidden("),
        ),
        Case("cc-error-control", {"specs/a.cc": "#error \x1b[2J\x07bell\n"}, exits=(2,)),
        Case("cc-not-utf8", {"specs/a.cc": b'REGISTER_OP("A\xff").Output("y: float");\n'}, exits=(2,)),
        Case("cc-fifo", {}, setup=_make("fifo", "specs/f.cc"), exits=(2,)),
        Case("cc-fifo-named", {}, argv=["build", "specs/f.cc"], setup=_make("fifo", "specs/f.cc"), exits=(2,)),
        Case("cc-include-fifo", {"specs/a.cc": '#include "f.h"\n'}, setup=_make("fifo", "specs/f.h"), exits=(2,)),
        Case("cc-include-dir", {"specs/a.cc": '#include "d.h"\n'}, setup=_make("dir", "specs/d.h"), exits=(2,)),
        Case(
            "cc-dt-invalid-default",
            {"specs/a.cc": 'REGISTER_OP("A").Attr("T: type = DT_INVALID").Output("y: T");\n'},
            exits=(2,),
        ),
        # OpList files
        Case("oplist-nested", {"specs/a.pbtxt": _nested(40)}, argv=["build", "specs/a.pbtxt"], exits=(2,)),
        Case(
            "oplist-int-digits",
            {
                "specs/a.pbtxt": 'op { name: "A" output_arg { name: "y" type: DT_FLOAT } '
                f'attr {{ name: "n" type: "int" default_value {{ i: {digits} }} }} }}\n'
            },
            argv=["build", "specs/a.pbtxt"],
            exits=(2,),
        ),
        Case(
            "oplist-missing-attr",
            {"specs/a.pbtxt": 'op { name: "A" input_arg { name: "x" type_attr: "T" } }\n'},
            argv=["build", "specs/a.pbtxt"],
            exits=(2,),
        ),
        Case(
            "oplist-bad-enum",
            {"specs/a.pbtxt": 'op { name: "A" output_arg { name: "y" type: 999 } }\n'},
            argv=["build", "specs/a.pbtxt"],
            exits=(2,),
        ),
        Case(
            "oplist-dt-invalid-default",
            {
                "specs/a.pbtxt": 'op { name: "A" output_arg { name: "y" type_attr: "T" } '
                'attr { name: "T" type: "type" default_value { type: DT_INVALID } } }\n'
            },
            argv=["build", "specs/a.pbtxt"],
            exits=(2,),
        ),
        Case(
            "oplist-enum-999-default",
            {
                "specs/a.pbtxt": 'op { name: "A" output_arg { name: "y" type_attr: "T" } '
                'attr { name: "T" type: "type" default_value { type: 999 } } }\n'
            },
            argv=["build", "specs/a.pbtxt"],
            exits=(2,),
        ),
        Case(
            "oplist-json-nested",
            {"specs/a.json": '{"op": [' + '{"op": [' * 200 + "]}" * 200 + "]}"},
            argv=["build", "specs/a.json"],
            exits=(2,),
        ),
        Case(
            "oplist-pb-garbage", {"specs/a.pb": b"\x0a\xff\xff\xff\xff\x0f"}, argv=["build", "specs/a.pb"], exits=(2,)
        ),
        Case("oplist-not-utf8", {"specs/a.pbtxt": b'op { name: "\xff" }'}, argv=["build", "specs/a.pbtxt"], exits=(2,)),
        Case(
            "oplist-internal-hostile",
            {"specs/a.pbtxt": 'op { name: "_x\\nimport os" output_arg { name: "y" type: DT_FLOAT } }\n'},
            argv=["build", "--include-internal", "specs/a.pbtxt"],
            exits=(2,),
        ),
        # override files
        Case("override-nested", {**good, "overrides/o.pbtxt": "op { " * 300 + "}" * 300}, exits=(2,)),
        Case(
            "override-not-utf8", {**good, "overrides/o.pbtxt": b'op { name: "Victim" rename_to: "\xff" }'}, exits=(2,)
        ),
        Case("override-fifo", good, setup=_make("fifo", "overrides/o.pbtxt"), exits=(2,)),
        # config
        Case("config-tool-int", {**good, "pyproject.toml": "tool = 5\n"}, exits=(2,)),  # no [tool.opgen]: op_specs
        Case("config-opgen-int", {**good, "pyproject.toml": "[tool]\nopgen = 5\n"}, exits=(2,)),
        Case("config-not-utf8", {**good, "pyproject.toml": b'[tool.opgen]\nout = "\xff"\n'}, exits=(2,)),
        Case("config-bad-toml", {**good, "pyproject.toml": "[tool.opgen\n"}, exits=(2,)),
        Case("config-jobs", {**good, "pyproject.toml": _PYPROJECT + "jobs = -1\n"}, exits=(2,)),
        Case("config-unknown", {**good, "pyproject.toml": _PYPROJECT + "outt = 1\n"}, exits=(2,)),
        Case("config-api-module", {**good, "pyproject.toml": _PYPROJECT + 'api = "gen/gen_ops.py"\n'}, exits=(2,)),
        Case(
            "config-api-sourcemap",
            {**good, "pyproject.toml": _PYPROJECT + 'api = "gen/opgen_sourcemap.json"\n'},
            exits=(2,),
        ),
        Case(
            "config-api-missing-dir",
            {**good, "pyproject.toml": _PYPROJECT + 'api = "gen/docs/deep/API.md"\n'},
            exits=(0,),
        ),
        Case("config-api-outside", {**good, "pyproject.toml": _PYPROJECT + 'api = "API.md"\n'}, exits=(2,)),
        Case(
            "config-api-internal",
            {**good, "pyproject.toml": _PYPROJECT + 'api = "gen/.opgen-journal.json"\n'},
            exits=(2,),
        ),
        Case("config-deep-toml", {**good, "pyproject.toml": "a = " + "[" * 100000 + "]" * 100000 + "\n"}, exits=(2,)),
        Case("tree-out-symlink-root", good, setup=_link_out("/"), exits=(2,)),
        Case("tree-out-symlink-parent", good, setup=_link_out(".."), exits=(2,)),
        Case("tree-out-symlink-project", good, setup=_link_out("."), exits=(2,)),
        Case("tree-out-symlink-specs", good, setup=_link_out("specs"), exits=(2,)),
        Case("tree-deep-manifest", {**good, "gen/.opgen-manifest.json": "[" * 100000 + "]" * 100000}, exits=(0,)),
        # a planted source map is not opgen's: never overwritten (tree_writer.plan), a located error
        Case("tree-deep-sourcemap", {**good, "gen/opgen_sourcemap.json": "[" * 100000 + "]" * 100000}, exits=(2,)),
        Case("tree-deep-journal", {**good, "gen/.opgen-journal.json": "[" * 100000 + "]" * 100000}, exits=(2,)),
        Case(
            "diff-deep-snapshot",
            {"a.json": '{"format": "opgen-api-snapshot/1", "x": ' + "[" * 100000 + "]" * 100000 + "}"},
            argv=["diff", "a.json", "a.json"],
            exits=(2,),
        ),
        Case(
            "diff-malformed-snapshot",
            {"a.json": '{"format": "opgen-api-snapshot/1", "ops": 5}'},
            argv=["diff", "a.json", "a.json"],
            exits=(2,),
        ),
        Case(
            "config-modules-nul",
            {**good, "pyproject.toml": _PYPROJECT + '[tool.opgen.modules]\n"V*" = "a\\u0000"\n'},
            exits=(2,),
        ),
    ]
    for module in ("opgen", "os", "sys", "__init__", "__main__", "collections", "typing", "a.b", "../x", "",
                   "ｇen", "class", "gen_ops\n", "google", "numpy", "tensorflow", "ml_dtypes", "keras"):
        cases.append(
            Case(
                f"config-module-{module.encode().hex()}",
                {**good, "pyproject.toml": _PYPROJECT + f'[tool.opgen.modules]\n"V*" = {json.dumps(module)}\n'},
                exits=(2,),
            )
        )
    for argv in (["build", "--depfile", "specs/ops.cc"], ["build", "--depfile", "pyproject.toml"],
                 ["build", "--depfile", "gen/.opgen-manifest.json"], ["oplist", "-o", "specs/ops.cc"],
                 ["build", "--depfile", "d.d", "--out", "gen"]):
        cases.append(Case(f"written-{'-'.join(argv).encode().hex()}", {**good}, argv=argv,
                          exits=(0,) if argv[2] == "d.d" else (2,), may_write=("d.d",)))
    for name in ("x.md;touch CANARY;y.md", "a\nb.md", "a$(shell touch CANARY).md", "a`touch CANARY`.md"):
        for depfile_format in ("make", "ninja"):
            cases.append(Case(f"depfile-{depfile_format}-{name.encode().hex()}", {**good, f"overrides/{name}": ""},
                              argv=["build", "--depfile", "d.d", "--depfile-format", depfile_format],
                              may_write=("d.d",)))
    for out in ("/", "..", ".", "../..", "specs", "overrides", "specs/sub", "overrides/x", "pyproject.toml",
                "specs/ops.cc", "gen/../..", "/tmp/../"):
        exits = (0,) if out == "specs/sub" else (2,)  # inside a source dir is fine: no C++ is written there
        cases.append(
            Case(
                f"config-out-{out.encode().hex()}",
                {
                    **good,
                    "overrides/.keep": "",
                    "pyproject.toml": _PYPROJECT.replace('out = "gen"', f"out = {json.dumps(out)}"),
                },
                exits=exits,
                may_write=("specs/sub",),
            )
        )
        cases.append(
            Case(
                f"cli-out-{out.encode().hex()}",
                {**good, "overrides/.keep": ""},
                argv=["build", "--out", out],
                exits=exits,
                may_write=("specs/sub",),
            )
        )
    # hostile source file names reach the module header and the source map
    for i, fname in enumerate(['a"""b', "a\nb", "a\\", "é", "a'b", "a\x1bb", "a\rb", "a b", "$x", "a{{b}}"]):
        cases.append(Case(f"filename-{i}", {f"specs/{fname}.cc": 'REGISTER_OP("Named").Output("y: float");\n'},
                          exits=(0,)))
    # CLI paths
    cases += [
        Case("cli-out-is-file", good, argv=["build", "--out", "afile"], setup=_make("x", "afile"), exits=(2,)),
        Case("cli-o-dir", good, argv=["oplist", "-o", "adir"], setup=_make("dir", "adir"), exits=(2,)),
        Case("cli-o-missing-dir", good, argv=["oplist", "-o", "no/such/dir/x.pbtxt"], exits=(2,)),
        Case("cli-depfile-missing-dir", good, argv=["build", "--depfile", "no/such/dir/x.d"], exits=(2,)),
        Case("cli-depfile-dir", good, argv=["build", "--depfile", "adir"], setup=_make("dir", "adir"), exits=(2,)),
        Case(
            "cli-depfile-newline",
            {"specs/a\nb.cc": 'REGISTER_OP("A").Output("y: float");\n'},
            argv=["build", "--depfile", "deps.d"],
            exits=(2,),
        ),
        Case(
            "cli-specs-o-dir",
            {"in.pbtxt": 'op { name: "A" output_arg { name: "y" type: DT_FLOAT } }\n'},
            argv=["specs", "in.pbtxt", "-o", "adir"],
            setup=_make("dir", "adir"),
            exits=(2,),
        ),
        Case(
            "cli-allow-fifo", good, argv=["build", "--allow", "allow.txt"], setup=_make("fifo", "allow.txt"), exits=(2,)
        ),
        Case("cli-missing-source", good, argv=["build", "nope.cc"], exits=(2,)),
        Case("cli-missing-overrides", good, argv=["build", "--overrides", "nope"], exits=(2,)),
        Case("cli-templates-missing", good, argv=["build", "--templates", "nope"], exits=(2,)),
        Case(
            "cli-templates-raise",
            {**good, **_templates("{{ (1/0) if f.name else '' }}")},
            argv=["build", "--templates", "tpl"],
            exits=(2,),
        ),
        Case(
            "cli-templates-syntax", {**good, **_templates("{% if %}")}, argv=["build", "--templates", "tpl"], exits=(2,)
        ),
        Case(
            "cli-templates-bad-python",
            {**good, **_templates("def (((")},
            argv=["build", "--templates", "tpl"],
            exits=(2,),
        ),
        # output tree: planted journals, links and leftovers
        Case(
            "tree-journal-delete-parent",
            good,
            setup=_plant_journal(
                {"generator": "opgen", "write": {}, "delete": {"../victim.txt": ""}, "manifest": None}
            ),
            exits=(2,),
        ),
        Case(
            "tree-journal-delete-abs",
            good,
            setup=_plant_journal(
                {"generator": "opgen", "write": {}, "delete": {"/etc/hostname": ""}, "manifest": None}
            ),
            exits=(2,),
        ),
        Case(
            "tree-journal-write-parent",
            good,
            setup=_plant_journal({"generator": "opgen", "write": {"../x.py": ""}, "delete": {}, "manifest": None}),
            exits=(2,),
        ),
        Case(
            "tree-journal-old-format",
            good,
            setup=_plant_journal({"write": ["x.py"], "delete": ["../victim.txt"]}),
            exits=(2,),
        ),
        Case(
            "tree-journal-delete-handwritten",
            {**good, "gen/mine.py": "x = 1\n"},
            setup=_plant_journal({"generator": "opgen", "write": {}, "delete": {"mine.py": ""}, "manifest": None}),
            exits=(2,),
            post=_exists("gen/mine.py"),
        ),
        Case("tree-journal-garbage", good, setup=_plant_journal(["not", "a", "journal"]), exits=(2,)),  # type: ignore[arg-type]
        Case("tree-journal-fifo", good, setup=_make("fifo", "gen/.opgen-journal.json"), exits=(2,)),
        Case("tree-manifest-fifo", good, setup=_make("fifo", "gen/.opgen-manifest.json"), exits=(2,)),
        Case("tree-sourcemap-fifo", good, setup=_make("fifo", "gen/opgen_sourcemap.json"), exits=(2,)),
        Case("tree-manifest-symlink", good, setup=_symlink(".opgen-manifest.json", "../victim.txt"), exits=(2,)),
        Case("tree-journal-symlink", good, setup=_symlink(".opgen-journal.json", "../victim.txt"), exits=(2,)),
        Case("tree-lock-symlink", good, setup=_symlink(".opgen-lock", "../victim.txt"), exits=(2,)),
        Case("tree-staging-symlink", good, setup=_symlink(".opgen-staging", "../victimdir"), exits=(0,)),
        Case("tree-module-is-dir", good, setup=_make("dir", "gen/gen_ops.py"), exits=(2,)),
        Case("tree-module-symlink", good, setup=_symlink("gen_ops.py", "../victim.txt"), exits=(2,)),
        Case(
            "tree-handwritten-marker",
            {**good, "gen/gen_old_ops.py": '"""Generated by opgen 0.1.0 from x. Do not edit."""\n'},
            exits=(0,),
            post=_exists("gen/gen_old_ops.py"),
        ),
        Case(
            "tree-manifest-parent",
            {
                **good,
                "gen/.opgen-manifest.json": json.dumps(
                    {"generator": "opgen", "files": {"../victim.txt": hashlib.sha256(b"victim\n").hexdigest()}}
                ),
            },
            exits=(0,),
        ),
        Case(
            "tree-sourcemap-parent",
            {
                **good,
                "gen/opgen_sourcemap.json": json.dumps(
                    {"generator": "opgen", "modules": {"../victim.txt": {}, "/etc/hostname": {}}}
                ),
            },
            exits=(2,),
        ),
        Case(
            "tree-symlinked-subdir",
            {**good, "pyproject.toml": _PYPROJECT + 'api = "gen/docs/API.md"\n'},
            setup=_symlink("docs", "../victimdir"),
            exits=(2,),
        ),
    ]
    return cases


def _module_lacks(rel: str, text: str) -> object:
    def post(root: Path) -> None:
        assert text not in (root / rel).read_text(encoding="utf-8")
        assert "def shown(" in (root / rel).read_text(encoding="utf-8")
    return post


def _only_comments(root: Path) -> None:
    """The C++ `opgen specs` wrote for inexpressible ops registers nothing: each name stayed
    inside its one-line comment."""
    from opgen.spec.gather import gather

    path = root / "out" / "ops.cc"
    if not path.exists():
        return
    text = path.read_text(encoding="ascii")  # the comment spelling is printable ASCII
    assert all(not line.rstrip().endswith("\\") for line in text.splitlines())
    assert len(gather([str(path)], include_internal=True).op_list.op) == 0


def _exists(rel: str) -> object:
    def post(root: Path) -> None:
        assert (root / rel).exists(), f"{rel} was deleted"
    return post


def _templates(first_line: str) -> dict[str, str]:
    files = {f"tpl/{p.name}": p.read_text(encoding="utf-8") for p in (REPO / "templates").glob("*.j2")}
    files["tpl/function.py.j2"] = first_line + "\n" + files["tpl/function.py.j2"]
    return files


CASES = _generated_cases() + _hand_made_cases()


def test_corpus_size():
    assert len(CASES) >= 500
    assert len({c.id for c in CASES}) == len(CASES)


def _snapshot(root: Path, skip: set[Path]) -> dict[str, str]:
    """Every entry under `root` (but `skip`): content hash, symlink target or `dir`."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d not in skip]
        for name in [*dirnames, *filenames]:
            p = here / name
            if p in skip:
                continue
            if p.is_symlink():
                seen[str(p)] = "-> " + os.readlink(p)
            elif p.is_dir():
                seen[str(p)] = "dir"
            elif p.is_file():
                seen[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                seen[str(p)] = "special"
    return seen


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_adversarial(case: Case, tmp_path, monkeypatch, capsys):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text(_PYPROJECT)
    (tmp_path / "victim.txt").write_text("victim\n")
    (tmp_path / "victimdir").mkdir()
    (tmp_path / "victimdir" / "keep.txt").write_text("keep\n")
    (root / "victim.txt").write_text("victim\n")
    (root / "victimdir").mkdir()
    for rel, data in case.files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    if case.setup is not None:
        case.setup(root)  # type: ignore[operator]
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    out = root / _OUTPUT_ROOT
    skip = {out, cache, *(root / w for w in case.may_write)}
    before = _snapshot(tmp_path, skip)

    monkeypatch.chdir(root)
    status = main(list(case.argv))
    captured = capsys.readouterr()
    err = captured.err

    assert status in case.exits, f"exit {status}\n{err}"
    assert "Traceback" not in err + captured.out and "internal error" not in err, err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", err), f"raw control character on the terminal: {err!r}"
    if status == 2 and case.located:
        lines = [line for line in err.splitlines() if line and not line.startswith((" ", "\t"))]
        assert lines and all(_LOCATED.match(line) for line in lines), err
    after = _snapshot(tmp_path, skip)
    changed = sorted(set(after.items()) ^ set(before.items()))
    assert not changed, f"changed outside --out: {changed[:6]}"
    assert not (root / _CANARY).exists()
    if case.post is not None:
        case.post(root)  # type: ignore[operator]
    if status == 0 and out.is_dir():
        modules = sorted(p.stem for p in out.glob("*.py"))
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        code = f"import sys; sys.path.insert(0, {str(out)!r})\n" + "".join(f"import {m}\n" for m in modules)
        r = subprocess.run([sys.executable, "-c", code], cwd=run_dir, capture_output=True, text=True, check=False,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
        assert r.returncode == 0, r.stderr[-2000:]
        assert not (run_dir / _CANARY).exists() and not (out / _CANARY).exists()


def test_from_library_oplist_is_validated(tmp_path, monkeypatch, capsys):
    """`opgen oplist --from-library` validates what the library registers like any OpList."""
    from opgen.spec import op_library

    hostile = op_def_pb2.OpList(op=[_op_def({**_NAMES, "op": "Bad\nName"})])
    monkeypatch.setattr(op_library, "op_list_from_library", lambda path: hostile)
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "--from-library", "lib.so"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lib.so: error: OpList entry 1: Invalid name: Bad\\nName"), err


_BOMBS = {
    # 2**31 tokens if expanded: each level doubles the one below
    "object-like": "#define L0 a a\n"
    + "".join(f"#define L{i} L{i - 1} L{i - 1}\n" for i in range(1, 31))
    + "int x = L30;\n",
    # function-like: each level passes its argument twice
    "function-like": "#define F0(x) x x\n"
    + "".join(f"#define F{i}(x) F{i - 1}(F{i - 1}(x))\n" for i in range(1, 31))
    + "int x = F30(a);\n",
    # nested in #if: expansion happens while evaluating the condition
    "in-#if": "#define L0 1 + 1\n"
    + "".join(f"#define L{i} L{i - 1} + L{i - 1}\n" for i in range(1, 31))
    + "#if L30\n#endif\n",
}


@pytest.mark.parametrize("name", sorted(_BOMBS))
def test_macro_bombs_stop_within_bounded_memory(tmp_path, name):
    """A billion-laughs nest fails with opgen's located limit error under a 1 GiB address-space
    cap (it ran out of memory at 2.8 GB before the limit existed)."""
    (tmp_path / "bomb.cc").write_text(_BOMBS[name])
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from opgen.cli import main; sys.exit(main(['oplist', 'bomb.cc']))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == 2, r.stderr[-2000:]
    assert r.stderr.startswith("bomb.cc:") and "opgen's limit" in r.stderr, r.stderr



# ------------------------------------------------------------ first-pass residue, located


def _residue_project(tmp_path: Path, monkeypatch, pyproject: str, cc: str = _BASE_CC.format(**_NAMES)) -> Path:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "ops.cc").write_text(cc)
    (root / "pyproject.toml").write_text(pyproject)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(root)
    return root


def test_negative_zero_defaults_keep_their_sign(tmp_path, monkeypatch, capsys):
    """`-0` (TF's spelling) is the int 0 in Python: `help()` showed `0` and the call passed +0.0."""
    import inspect
    import math

    cc = 'REGISTER_OP("Z").Attr("l: list(float) = [-0.0, 1.5]").Attr("f: float = -0.0").Output("y: float");\n'
    root = _residue_project(tmp_path, monkeypatch, _PYPROJECT, cc)
    assert main(["build", "-q"]) == 0
    import importlib.util

    spec = importlib.util.spec_from_file_location("negative_zero_gen_ops", root / "gen" / "gen_ops.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)  # its own name: another test's gen_ops may be imported
    spec.loader.exec_module(module)
    params = inspect.signature(module.z).parameters
    assert str(params["l"]).endswith("= [-0.0, 1.5]") and str(params["f"]).endswith("= -0.0")
    assert math.copysign(1, params["l"].default[0]) == -1 == math.copysign(1, params["f"].default)
    from opgen_runtime import Graph

    with Graph().as_default():  # the embedded runtime: TF (imported by another test) has no op Z
        module.z()  # call what is generated


@pytest.mark.parametrize("define, message", [
    ('A=\\"x', "unterminated string literal"), ("A=/*", "unterminated comment"), ('A=R\\"(', "unterminated raw string"),
    ("A='", "unterminated character literal"), ("F(x)=#y", "'#' is not followed by a macro parameter"),
    ("1A", "macro names must be identifiers"),
])
def test_a_bad_defines_entry_is_located_at_its_entry(tmp_path, monkeypatch, capsys, define, message):
    _residue_project(tmp_path, monkeypatch, _PYPROJECT + f'defines = ["OK", "{define}"]\n')
    assert main(["oplist"]) == 2
    err = capsys.readouterr().err
    line = _PYPROJECT.count("\n") + 1
    assert (
        err.startswith(f"pyproject.toml:{line}:18: error: [tool.opgen] defines entry ")
        and message in err
    ), err
    assert "<command-line>" not in err


@pytest.mark.parametrize("pyproject", ["tool = 1\n", 'x = 1\ntool = "opgen"\n', "tool = []\n"])
def test_a_tool_that_is_not_a_table_is_an_error(tmp_path, monkeypatch, capsys, pyproject):
    _residue_project(tmp_path, monkeypatch, pyproject)
    assert main(["oplist"]) == 2
    line = pyproject.count("\n")
    assert f"pyproject.toml:{line}:1: error: [tool] must be a table" in capsys.readouterr().err


def test_helpers_take_qualified_keys_and_the_hint_names_a_key_that_works(tmp_path, monkeypatch, capsys):
    cc = 'REGISTER_OP("H").Attr(ns::A()).Attr(::ns::B()).Attr(C()).Output("y: float");\n'
    _residue_project(tmp_path, monkeypatch, _PYPROJECT, cc)
    assert main(["oplist"]) == 2
    assert '[tool.opgen.helpers] in pyproject.toml ("ns::A" = "..." or A = "...")' in capsys.readouterr().err
    with open("pyproject.toml", "a") as f:
        f.write('[tool.opgen.helpers]\n"ns::A" = "a: int"\n"::ns::B" = "b: int = 2"\nC = "c: float"\n'
                '"other::A" = "wrong: int"\n')
    assert main(["oplist", "--format", "json"]) == 0
    assert [a["name"] for a in json.loads(capsys.readouterr().out)["op"][0]["attr"]] == ["a", "b", "c"]
    with open("pyproject.toml", "a") as f:
        f.write('"ns A" = "x: int"\n')
    assert main(["oplist"]) == 2
    line = _PYPROJECT.count("\n") + 6
    error = f"pyproject.toml:{line}:1: error: [tool.opgen.helpers] key 'ns A' is not a C++ name"
    assert error in capsys.readouterr().err
