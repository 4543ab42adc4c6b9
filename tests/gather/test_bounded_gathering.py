"""Input that would make gathering or rendering run away fails with a located limit error, or
is handled in linear time: `#include` fan-out without guards, deeply nested `?:` in `#if`,
huge list defaults (opgen/limits.py, README "Limits")."""

from __future__ import annotations

import black
import pytest

from opgen.limits import MAX_IF_NESTING, MAX_INCLUDES, MAX_TRANSLATION_UNIT_TOKENS
from opgen.overrides.apidef import default_api_model
from opgen.python_api import literals
from opgen.python_api.function import FunctionApi, function_api
from opgen.render import emit
from opgen.spec.builder import build_op_def, registration
from opgen.spec.gather import GatherErrors, gather
from opgen_runtime.proto import op_def_pb2


def _gather_errors(tmp_path, files: dict[str, str]) -> str:
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(GatherErrors) as e:
        gather([str(tmp_path / "a.cc")])
    return e.value.format()


def test_include_fan_out_without_guards_stops_at_the_limit_naming_the_chain(tmp_path):
    """40 headers, each including the next twice: 2^40 inclusions without the limit."""
    files = {f"h{i}.h": f'#include "h{i + 1}.h"\n#include "h{i + 1}.h"\nint x{i};\n' for i in range(39)}
    files["h39.h"] = "int x39;\n"
    files["a.cc"] = '#include "h0.h"\nREGISTER_OP("A").Output("y: float");\n'
    err = _gather_errors(tmp_path, files)
    [first, hint, summary] = err.splitlines()
    assert f"error: more than {MAX_INCLUDES} #include expansions in this translation unit (opgen's limit)" in first
    # located at the #include beyond the limit; the chain runs from the translation unit to it
    location, _, chain = first.partition("include chain: ")
    assert chain.startswith(f"{tmp_path / 'a.cc'}:1:2 -> {tmp_path / 'h0.h'}:1:2 -> ")
    assert location.startswith(chain.rsplit(" -> ", 1)[1] + ": error:")
    assert "more ..." in chain  # a long chain keeps its ends
    assert "#pragma once" in hint and summary == "1 error in 1 file"


def test_guarded_headers_included_many_times_stay_within_the_limit(tmp_path):
    files = {f"h{i}.h": f'#pragma once\n#include "h{i + 1}.h"\n#include "h{i + 1}.h"\n' for i in range(39)}
    files["h39.h"] = '#ifndef H39\n#define H39\n#define NAME "A"\n#endif\n'
    files["a.cc"] = '#include "h0.h"\nREGISTER_OP(NAME).Output("y: float");\n'
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert [op.name for op in gather([str(tmp_path / "a.cc")]).op_list.op] == ["A"]


def test_tokens_beyond_the_translation_unit_limit_are_a_located_error(tmp_path):
    """The files of a translation unit share the token limit (a header's count with its includer's):
    the error points at the first token beyond it, in the header here (read after a.cc is lexed)."""
    half = MAX_TRANSLATION_UNIT_TOKENS // 2
    err = _gather_errors(tmp_path, {"a.cc": '#include "h.h"\n' * 3 + ";" * (half + 1) + "\n", "h.h": ";" * half})
    [first, hint, summary] = err.splitlines()
    # a.cc holds 9 + half + 1 tokens, so the header's token `half - 10` (0-based) is one too many; the
    # error is reported once, the other #includes are not read
    assert first == (f"{tmp_path / 'h.h'}:1:{half - 9}: error: more than {MAX_TRANSLATION_UNIT_TOKENS} tokens in "
                     "this translation unit (opgen's limit)")
    assert "split the source" in hint and summary == "1 error in 1 file"


@pytest.mark.parametrize("expression", [
    "1 ? " * 3000 + "1" + " : 0" * 3000,  # nested in the `then` branch
    "0 ? 0 : " * 3000 + "1",  # an else-if chain
    "(1 ? " * 200 + "1" + " : 0)" * 200,  # parentheses and `?:` count together
])
def test_deeply_nested_conditional_in_if_is_a_located_limit_error(tmp_path, expression):
    err = _gather_errors(tmp_path, {"a.cc": f"\n#if {expression}\n#endif\n"})
    assert "a.cc:2:" in err and f"error: #if expression nests more than {MAX_IF_NESTING} deep (opgen's limit)" in err


def test_conditional_nesting_at_the_limit_is_evaluated(tmp_path):
    depth = MAX_IF_NESTING
    (tmp_path / "a.cc").write_text(
        f"#if {'0 ? 0 : ' * depth}1\nREGISTER_OP(\"A\").Output(\"y: float\");\n#endif\n"
        f"#if {'1 ? ' * depth}0{' : 1' * depth}\nREGISTER_OP(\"B\").Output(\"y: float\");\n#endif\n")
    (tmp_path / "pyproject.toml").write_text("")
    assert [op.name for op in gather([str(tmp_path / "a.cc")]).op_list.op] == ["A"]


def _function(op_name: str, attrs: list[str]) -> FunctionApi:
    op_def, _ = build_op_def(registration(op_name, [("Input", ("x: float",)), ("Output", ("y: float",)),
                                                    *[("Attr", (a,)) for a in attrs]]))
    ops = op_def_pb2.OpList(op=[op_def])
    api = function_api(op_def, default_api_model(ops).get(op_def))
    assert isinstance(api, FunctionApi)
    return api


def _ints(n: int) -> str:
    return ", ".join(str(i * 7919 % 100003) for i in range(n))


def _shape(rank: int) -> str:
    return "{ " + " ".join(f"dim {{ size: {i * 7919 % 100003} }}" for i in range(rank)) + " }"


LIST_DEFAULTS = {
    "ints that fit on the inner line": [f"l: list(int) = [{_ints(12)}]"],
    "ints one per line": [f"l: list(int) = [{_ints(40)}]"],
    "floats and strings": [
        "f: list(float) = [" + ", ".join(f"{i}.5" for i in range(30)) + "]",
        "s: list(string) = [" + ", ".join(f'"item number {i}"' for i in range(12)) + "]",
    ],
    "types and bools": [
        "t: list(type) = [" + ", ".join(["DT_FLOAT", "DT_INT32", "DT_STRING"] * 8) + "]",
        "b: list(bool) = [" + ", ".join(["true", "false"] * 20) + "]",
    ],
    "shapes nest": ["sh: list(shape) = [" + ", ".join(_shape(k) for k in (0, 3, 30, 2)) + ", { unknown_rank: true }]"],
    "one long shape": [f"one: list(shape) = [{_shape(50)}]"],
    "named dims": [
        "nd: list(shape) = [{ " + " ".join(f'dim {{ size: {i} name: "dim_{i}" }}' for i in range(12)) + " }]"
    ],
    "a long name with a short list": [
        "an_attribute_name_forty_characters_long: list(int) = [" + ", ".join(map(str, range(16))) + "]"
    ],
}


@pytest.mark.parametrize("name", sorted(LIST_DEFAULTS))
def test_list_defaults_are_laid_out_as_black_lays_them_out(name):
    api = _function("ListDefaults", LIST_DEFAULTS[name])
    text, lines = emit.render_function(emit.Templates.load(None), api)
    assert lines == []  # no formatter needed
    assert black.format_str(text, mode=black.Mode()) == text


def test_a_list_default_of_100k_values_needs_no_formatter():
    """black takes minutes over one collection of 100k items; the templates lay it out themselves."""
    api = _function("BigList", [f"l: list(int) = [{_ints(100_000)}]"])
    text, lines = emit.render_function(emit.Templates.load(None), api)
    assert lines == emit.residual_lines(text, literals.docstring_literal(api.docstring, "    ")) == []
    assert "\n        7919,\n" in text and "\n            7919,\n" in text  # the signature's, `l = [`'s
