"""String constants in C++ namespaces (trial31 #1): `Attr(a::kT)` and `REGISTER_OP(b::kName)`
mean the constant C++ name lookup finds where they are written (the namespace, its enclosing
ones, their using-directives and -declarations; `::` from the global one), as TF's compiled
library shows; a
name several namespaces could supply is a located error, not the last one defined."""

from __future__ import annotations

import pytest
from oracle.tf_library import library_op_list

from opgen.spec.gather import GatherErrors, gather

SOURCE = """\
#include "tensorflow/core/framework/op.h"
namespace a { constexpr char kT[] = "T: {float}"; constexpr char kName[] = "NsFromA"; }
namespace b { constexpr char kT[] = "T: {int32}"; constexpr char kName[] = "NsFromB"; }
namespace c { constexpr char kT[] = "T: {int64}";
REGISTER_OP("NsInC").Input("x: T").Output("y: T").Attr(kT);
}
namespace a { namespace inner { constexpr char kT[] = "T: {half}";
REGISTER_OP("NsInner").Input("x: T").Output("y: T").Attr(kT);
REGISTER_OP("NsOuter").Input("x: T").Output("y: T").Attr(a::kT);
REGISTER_OP("NsGlobal").Input("x: T").Output("y: T").Attr(::b::kT);
} }
REGISTER_OP(a::kName).Input("x: T").Output("y: T").Attr(a::kT);
REGISTER_OP(b::kName).Input("x: T").Output("y: T").Attr(b::kT);
namespace tensorflow {
namespace decl { using a::kT;
REGISTER_OP("NsUsingDecl").Input("x: T").Output("y: T").Attr(kT);
}
namespace e { constexpr char kShadow[] = "T: {double}"; }
constexpr char kShadow[] = "T: {bool}";
namespace e { REGISTER_OP("NsShadowInner").Input("x: T").Output("y: T").Attr(kShadow); }
REGISTER_OP("NsShadowOuter").Input("x: T").Output("y: T").Attr(kShadow);
}  // namespace tensorflow
namespace f::inline g { constexpr char kT[] = "T: {uint8}"; }
REGISTER_OP("NsNestedInline").Input("x: T").Output("y: T").Attr(f::g::kT);
using namespace b;
REGISTER_OP("NsUsing").Input("x: T").Output("y: T").Attr(kT);
"""

EXPECTED = {"NsInC": ["DT_INT64"], "NsInner": ["DT_HALF"], "NsOuter": ["DT_FLOAT"], "NsGlobal": ["DT_INT32"],
            "NsFromA": ["DT_FLOAT"], "NsFromB": ["DT_INT32"], "NsUsing": ["DT_INT32"], "NsUsingDecl": ["DT_FLOAT"],
            "NsShadowInner": ["DT_DOUBLE"], "NsShadowOuter": ["DT_BOOL"], "NsNestedInline": ["DT_UINT8"]}


def _types(op_list) -> dict[str, list[str]]:
    from opgen_runtime.proto import types_pb2
    return {op.name: [types_pb2.DataType.Name(t) for t in op.attr[0].allowed_values.list.type] for op in op_list.op}


def test_a_constant_means_the_one_its_namespace_finds(tmp_path):
    source = tmp_path / "ns_ops.cc"
    source.write_text(SOURCE)
    assert _types(gather([str(source)]).op_list) == EXPECTED


@pytest.mark.oracle
def test_as_tf_builds_the_library(tmp_path):
    source = tmp_path / "ns_ops.cc"
    source.write_text(SOURCE)
    theirs = library_op_list([source])
    assert _types(theirs) == EXPECTED
    assert sorted(gather([str(source)]).op_list.op, key=lambda op: op.name) == sorted(theirs.op, key=lambda op: op.name)


def test_a_name_several_namespaces_supply_is_an_error_at_the_use(tmp_path):
    source = tmp_path / "amb_ops.cc"
    source.write_text('namespace a { constexpr char kT[] = "T: {float}"; }\n'
                      'namespace b { constexpr char kT[] = "T: {int32}"; }\n'
                      'REGISTER_OP("Amb").Input("x: T").Output("y: T").Attr(kT);\n')
    with pytest.raises(GatherErrors) as e:
        gather([str(source)])
    [error] = e.value.errors
    assert error.format() == (f"{source}:3:54: error: 'kT' in Attr() is ambiguous: it may mean a::kT or b::kT\n"
                              "  hint: qualify it with its namespace")
