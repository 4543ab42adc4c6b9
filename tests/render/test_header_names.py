"""`emit.header_names_read`, the scan that decides a module header's imports without parsing,
agrees with Python's own scoping (`emit.free_globals`) on odd code, on random code made of
the pieces a scan could misread, and on every chunk the shipped templates render for
TensorFlow's registry and for this repo's generated modules; the scan answers alone for
every TensorFlow chunk (no `free_globals` fallback)."""

from __future__ import annotations

import ast
import symtable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import REPO

from opgen.overrides.apidef import default_api_model
from opgen.python_api.function import SkippedOp, function_api
from opgen.render import emit

# Each snippet puts a header name where a scan could mistake a binding or a string for a read.
ODD_CHUNKS = {
    "parameter": "def f(collections=None):\n    return collections.x\n",
    "bare parameter": "def f(Any, b):\n    return Any\n",
    "keyword argument": "x = f(Any=1)\n",
    "list target": "[Any, b] = 1, 2\nc = Any\n",
    "tuple target": "a, Any = 1, 2\n",
    "for target": "for Any in range(2):\n    pass\n",
    "comprehension": "y = [Any for Any in range(2)]\n",
    "with target": "with f() as Any:\n    pass\n",
    "walrus": "if (Any := 3):\n    pass\n",
    "lambda": "g = lambda Any: Any\n",
    "global": "def f():\n    global Any\n    Any = 1\n",
    "del": "del _execute\n",
    "import": "import collections.abc\nx = collections.abc\n",
    "match": 'match x:\n    case {"k": Any}:\n        pass\n',
    "type parameters": "def f[Any](x: Any) -> Any:\n    return x\n",
    "f-string field": 'x = f"{_execute.x} {Any!r}"\n',
    "f-string nested quote": "x = f\"{d['_execute']}\"\n",
    "f-docstring": 'def f():\n    f"""Any _execute."""\n',
    "string": 's = "_registry.register_op_list"\nt = \'Any\'\n',
    "escaped quote": 's = "a\\" _execute.x"\n',
    "continued string": 's = "a\\\n_execute.x"\n',
    "comment": "x = 1  # _execute.y\n",
    "docstring": 'def f():\n    """Uses _dtypes.float32 and Any rank."""\n    return _execute.x\n',
    "other triple quotes": "def f():\n    '''Any _execute.'''\n",
    "annotation": "def f(x: Annotated[Any, T], y: List[int] = None) -> Any:\n    return _execute.x(x)\n",
    "condition": "if TYPE_CHECKING:\n    pass\n",
    "base class": "class C(NamedTuple):\n    a: int\n",
    "longer names": "x = TV_Any + _executed + my_execute.x + o.Any\n",
    "local assignment": "def f():\n    _execute = 1\n    return _execute\n",
    "nested function": "def f(Any):\n    def g(x: Any) -> Any:\n        return x\n    return g\n",
    "statement after a colon": "if x: Any = 1\n",
    "tuple target after a colon": "if x: Any, b = 1, 2\n",
    "annotated target after a colon": "if x: Any: int = 1\n",
    "unparenthesized walrus": "if Any := 3:\n    pass\n",
    "walrus in a subscript": "y = x[Any := 1]\n",
    "function named like a header name": "def Any(x):\n    return x\n",
    "class named like a header name": "class collections(object):\n    pass\n",
    "class keyword": "class C(Any=1):\n    pass\n",
    "for list target": "for[Any] in x:\n    pass\n",
    "del list": "del[Any]\n",
    "spaced attribute": "y = (x.\n    _execute.z)\n",
    "triple quotes in a comment": 'x = 1  # """\ny = Any\n# """\n',
    "triple quotes in a string": "x = '\"\"\"' + Any.x + '\"\"\"'\n",
    "escaped triple quotes": 's = """a\\""" + Any + """; t = Any; u = """b"""\n',
    "comment ended by a carriage return": "x = 1  # c\rAny = 2\ny = Any.x\n",
    "NFKC twin": "y = \uff21ny.x\n",
    "type parameter": "class C[Any]:\n    x: Any\n",
    "type alias": "type Any = int\n",
    "split class header": "class C(\n    NamedTuple\n):\n    a: int\n",
    "case as a name": "def case(x: Any) -> Any:\n    return _execute.x\n",
    "case pattern": "match x:\n    case Any.y:\n        pass\n    case [Any]:\n        pass\n",
    "import in a string": 'def lookup_table_import():\n    raise RuntimeError("import") from _execute.x\n',
}


@pytest.mark.parametrize("name", sorted(ODD_CHUNKS))
def test_odd_chunks_read_what_python_scoping_says(name):
    code = ODD_CHUNKS[name]
    assert emit.header_names_read(code) == emit.free_globals(code) & emit.HEADER_NAMES


# Pieces of code a scan could misread (bindings, strings, comments, f-strings, keywords); a
# random sequence of them that parses must read what Python's scoping says.
_PIECES = [
    "Any", "_execute", "collections", "NamedTuple", "TYPE_CHECKING", "List", "_dispatch", "_dispatcher", "x", "y",
    "f", "t", "\n", "\n    ", " ", "\t", "\f", "=", ":=", "+=", "==", ",", ":", ";", ".", ". ", ".x", "(", ")",
    "[", "]", "{", "}", "*", "**", "->", "@", "\\\n", "t[", "x[", "X(", "TypeVar(", "Annotated[", "_atypes.Int32",
    "if ", "else", "elif ", "while ", "for ", " in ", " is ", " and ", " or ", "del ", "as ", "with ", "def ",
    "async ", "class ", "lambda ", "lambda: ", "return ", "global ", "nonlocal ", "import ", "from ", "not ",
    "type ", "assert ", "yield ", "await ", "try:", "except ", "match x:\n    case ", "case ", "pass",
    '"s"', "'s'", '"""d"""', "'''d'''", 'r"""d"""', 'f"""{Any}"""', "# c", "#", 'f"{Any}"', 'f"{_execute.x}"',
    "f'{x[Any]}'", 'f"{Any!r}"', 'f"{Any:>3}"', 'Rf"{Any.x}"', 'rb"x"', 'b"x"', '"\\""', "'\\''", '"\\\\"',
    "\u00e9", "\uff21ny",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_random_code_reads_what_python_scoping_says(pieces):
    code = "".join(pieces)
    try:
        symtable.symtable(code, "<chunk>", "exec")
    except (SyntaxError, ValueError):
        return  # the scan's answer counts only for code that parses
    assert emit.header_names_read(code) == emit.free_globals(code) & emit.HEADER_NAMES


def _function_chunks(op_list) -> list[str]:
    templates = emit.Templates.load(None)
    api_model = default_api_model(op_list)
    apis = [function_api(op, api_model.get(op)) for op in op_list.op]
    return [emit.render_function(templates, api)[0] for api in apis if not isinstance(api, SkippedOp)]


def _assert_agrees(chunks: list[str]) -> None:
    wrong = [c for c in chunks if emit.header_names_read(c) != emit.free_globals(c) & emit.HEADER_NAMES]
    assert not wrong, wrong[0]


def test_generated_modules_read_what_python_scoping_says():
    modules = sorted((REPO / "generated").glob("*.py"))
    assert modules
    chunks = []
    for module in modules:  # the whole module (header imports included), then each statement
        text = module.read_text()
        lines = text.splitlines(keepends=True)
        chunks.append(text)
        for node in ast.parse(text).body:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            chunks.append("".join(lines[first - 1 : node.end_lineno]))
    _assert_agrees(chunks)


@pytest.mark.oracle
def test_every_chunk_of_tfs_registry_reads_what_python_scoping_says(tf):
    from oracle.tf_registry import tf_op_list

    chunks = _function_chunks(tf_op_list())
    _assert_agrees(chunks)
    assert [c for c in chunks if emit._scanned_header_names(c) is None] == []
