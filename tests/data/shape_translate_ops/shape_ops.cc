// Ops written for tests/shapes/test_shape_translate_oracle.py: each declares its shape function as
// a C++ lambda (or a function of this file) using one idiom of TF's InferenceContext API.
// Compiled against the TF wheel, TF's graph mode runs these functions; opgen translates
// them into Python for its embedded runtime; the test compares the two on many shapes.
// No kernels: shape inference happens when a node is built. Every Dim() index is checked
// first: TF's DimKnownRank does not bound-check (an out-of-range index crashes TF).
#include <vector>

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// A project shape function passed by name.
Status PairRowsShape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  DimensionHandle rows;
  TF_RETURN_IF_ERROR(c->Merge(c->Dim(a, 0), c->Dim(b, 0), &rows));
  DimensionHandle cols;
  TF_RETURN_IF_ERROR(c->Add(c->Dim(a, 1), c->Dim(b, 1), &cols));
  c->set_output(0, c->Matrix(rows, cols));
  return OkStatus();
}

// A project function with parameters after the context, called from a lambda.
Status RankedInput(InferenceContext* c, int input, int64_t rank, const std::string& what) {
  ShapeHandle s;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(input), rank, &s));
  if (c->Value(c->Dim(s, 1)) == 0) return errors::InvalidArgument(what, " must not be empty");
  c->set_output(0, s);
  return OkStatus();
}

Status FirstInputShape(InferenceContext* c);

Status FirstInputShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("StRank3ToMatrix")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, &s));
      c->set_output(0, c->Matrix(c->Dim(s, 0), 2));
      return OkStatus();
    });

REGISTER_OP("StAtLeast2LastDim")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &s));
      c->set_output(0, c->Vector(c->Dim(s, -1)));
      return OkStatus();
    });

REGISTER_OP("StAtMost2")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), 2, &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StMergeTwo")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StMergePrefix")
    .Input("x: float")
    .Input("prefix: float")
    .Output("y: float")
    .Output("p: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      ShapeHandle p;
      TF_RETURN_IF_ERROR(c->MergePrefix(c->input(0), c->input(1), &s, &p));
      c->set_output(0, s);
      c->set_output(1, p);
      return OkStatus();
    });

REGISTER_OP("StDropLast")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->Subshape(c->input(0), 0, -1, &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StDropFirst")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->Subshape(c->input(0), 1, &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StMiddle")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->Subshape(c->input(0), 1, -1, &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StConcatShapes")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->Concatenate(c->input(0), c->input(1), &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StReplaceFirst")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->ReplaceDim(c->input(0), 0, c->MakeDim(7), &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StReplaceLast")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->ReplaceDim(c->input(0), -1, c->UnknownDim(), &s));
      c->set_output(0, s);
      return OkStatus();
    });

REGISTER_OP("StAddDims")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Add(c->Dim(s, 0), c->Dim(s, 1), &d));
      c->set_output(0, c->Vector(d));
      return OkStatus();
    });

REGISTER_OP("StSubtractDims")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Subtract(c->Dim(s, 0), c->Dim(s, 1), &d));
      c->set_output(0, c->Vector(d));
      return OkStatus();
    });

REGISTER_OP("StMultiplyDims")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Multiply(c->Dim(s, 0), c->Dim(s, 1), &d));
      c->set_output(0, c->Vector(d));
      return OkStatus();
    });

REGISTER_OP("StDivideEven")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &s));
      DimensionHandle half;
      TF_RETURN_IF_ERROR(c->Divide(c->Dim(s, 0), 2, true, &half));
      c->set_output(0, c->Vector(half));
      return OkStatus();
    });

REGISTER_OP("StDivideByDim")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      DimensionHandle q;
      TF_RETURN_IF_ERROR(c->Divide(c->Dim(s, 0), c->Dim(s, 1), false, &q));
      c->set_output(0, c->Vector(q));
      return OkStatus();
    });

REGISTER_OP("StAddConstant")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Add(c->Dim(x, 0), 3, &d));
      c->set_output(0, c->Matrix(d, c->Dim(x, 0)));
      return OkStatus();
    });

REGISTER_OP("StWithValue")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->WithValue(c->Dim(s, 1), 3, &d));
      c->set_output(0, c->MakeShape({c->Dim(s, 0), d, 1}));
      return OkStatus();
    });

REGISTER_OP("StMergeDims")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      ShapeHandle y;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &y));
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Merge(c->Dim(x, -1), c->Dim(y, 0), &d));
      c->set_output(0, c->Vector(d));
      return OkStatus();
    });

REGISTER_OP("StScalarOut")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

REGISTER_OP("StRankVector")
    .Input("x: float")
    .Output("y: int32")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Vector(c->Rank(c->input(0))));
      return OkStatus();
    });

REGISTER_OP("StNumElements")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Vector(c->NumElements(c->input(0))));
      return OkStatus();
    });

REGISTER_OP("StRankBranch")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      if (!c->RankKnown(x)) {
        c->set_output(0, c->UnknownShape());
        return OkStatus();
      }
      if (c->Rank(x) == 0) {
        c->set_output(0, c->Vector(1));
      } else if (c->Rank(x) == 1) {
        c->set_output(0, c->Matrix(c->Dim(x, 0), 1));
      } else {
        c->set_output(0, x);
      }
      return OkStatus();
    });

REGISTER_OP("StRankError")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      if (c->RankKnown(x) && c->Rank(x) > 3) {
        return errors::InvalidArgument("StRankError wants rank <= 3, got rank ", c->Rank(x),
                                       " for shape ", c->DebugString(x));
      }
      c->set_output(0, x);
      return OkStatus();
    });

REGISTER_OP("StDimError")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      DimensionHandle last = c->Dim(x, -1);
      if (c->ValueKnown(last) && c->Value(last) % 2 != 0) {
        return errors::InvalidArgument("last dimension must be even, got ", c->Value(last),
                                       " (", c->DebugString(last), ")");
      }
      c->set_output(0, x);
      return OkStatus();
    });

REGISTER_OP("StReverseDims")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      if (!c->RankKnown(x)) {
        c->set_output(0, c->UnknownShape());
        return OkStatus();
      }
      std::vector<DimensionHandle> dims;
      for (int i = c->Rank(x) - 1; i >= 0; --i) {
        dims.push_back(c->Dim(x, i));
      }
      c->set_output(0, c->MakeShape(dims));
      return OkStatus();
    });

REGISTER_OP("StSumDims")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      DimensionHandle total = c->MakeDim(0);
      for (int i = 0; i < c->Rank(x); i++) {
        TF_RETURN_IF_ERROR(c->Add(total, c->Dim(x, i), &total));
      }
      c->set_output(0, c->Vector(total));
      return OkStatus();
    });

REGISTER_OP("StIntArithmetic")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &x));
      const int64_t n = c->Value(c->Dim(x, 0));
      if (n == InferenceContext::kUnknownDim) {
        c->set_output(0, c->UnknownShapeOfRank(2));
        return OkStatus();
      }
      c->set_output(0, c->Matrix(n / 3 + 1, (n * 2 - 1) % 5));
      return OkStatus();
    });

REGISTER_OP("StTernary")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      const int rank = c->Rank(c->input(0));
      c->set_output(0, c->Vector(rank < 0 ? -1 : rank * 2));
      return OkStatus();
    });

REGISTER_OP("StFullyDefined")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      if (c->FullyDefined(c->input(0))) {
        c->set_output(0, c->input(0));
      } else {
        c->set_output(0, c->UnknownShape());
      }
      return OkStatus();
    });

REGISTER_OP("StIntAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("n: int = 3")
    .SetShapeFn([](InferenceContext* c) {
      int64_t n;
      TF_RETURN_IF_ERROR(c->GetAttr("n", &n));
      if (n < 0) {
        return errors::InvalidArgument("n must be non-negative, got ", n);
      }
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &s));
      c->set_output(0, c->MakeShape({c->Dim(s, 0), n}));
      return OkStatus();
    });

// Read into 32-bit ints: GetNodeAttr checks the range (node_def_util.cc, DEFINE_GET_ATTR(int32_t)).
REGISTER_OP("StInt32Attr")
    .Input("x: float")
    .Output("y: float")
    .Attr("n: int = 3")
    .Attr("sizes: list(int) = [2]")
    .SetShapeFn([](InferenceContext* c) {
      int n;
      TF_RETURN_IF_ERROR(c->GetAttr("n", &n));
      std::vector<int32> sizes;
      TF_RETURN_IF_ERROR(c->GetAttr("sizes", &sizes));
      c->set_output(0, c->Matrix(n, sizes.size()));
      return OkStatus();
    });

// Vector forms: sized constructors, element assignment, vector<bool>, a const reference.
REGISTER_OP("StVectorForms")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      const auto& x = c->input(0);
      const ShapeHandle& same = x;
      std::vector<bool> known(2);
      std::vector<int64_t> sizes(2, 5);
      std::vector<int> more(3);
      if (c->RankKnown(same)) {
        known[1] = true;
        sizes[0] = c->Rank(same);
        sizes[1] += 2;
        more[2] = 4;
      }
      int64_t first = known[1] ? sizes[0] : -1;
      int64_t count = static_cast<int64_t>(more.size());
      c->set_output(0, c->MakeShape({first, sizes[1], more[2], count}));
      return OkStatus();
    });

REGISTER_OP("StBoolAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("keep_dims: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      bool keep_dims;
      TF_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &s));
      if (keep_dims) {
        c->set_output(0, c->Matrix(c->Dim(s, 0), 1));
      } else {
        c->set_output(0, c->Vector(c->Dim(s, 0)));
      }
      return OkStatus();
    });

REGISTER_OP("StStringAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) {
      std::string data_format;
      TF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &s));
      DimensionHandle channels = data_format == "NHWC" ? c->Dim(s, 3) : c->Dim(s, 1);
      c->set_output(0, c->Vector(channels));
      return OkStatus();
    });

REGISTER_OP("StListAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("perm: list(int) = [1, 0]")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<int64_t> perm;
      TF_RETURN_IF_ERROR(c->GetAttr("perm", &perm));
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), perm.size(), &s));
      std::vector<DimensionHandle> dims;
      for (int64_t p : perm) {
        if (p < 0 || p >= static_cast<int64_t>(perm.size())) {
          return errors::InvalidArgument("perm entry ", p, " out of range");
        }
        dims.push_back(c->Dim(s, p));
      }
      c->set_output(0, c->MakeShape(dims));
      return OkStatus();
    });

REGISTER_OP("StListAttrSize")
    .Input("x: float")
    .Output("y: float")
    .Attr("sizes: list(int) = [2, 3]")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<int64_t> sizes;
      TF_RETURN_IF_ERROR(c->GetAttr("sizes", &sizes));
      std::vector<DimensionHandle> dims;
      for (size_t i = 0; i < sizes.size(); ++i) {
        dims.push_back(c->MakeDim(sizes[i]));
      }
      ShapeHandle batch;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &batch));
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->Concatenate(c->Vector(c->Dim(batch, 0)), c->MakeShape(dims), &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StNamedUnchanged")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) { return shape_inference::UnchangedShape(c); });

REGISTER_OP("StNamedThenCheck")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      TF_RETURN_IF_ERROR(shape_inference::UnchangedShape(c));
      ShapeHandle unused;
      return c->WithRankAtMost(c->input(0), 3, &unused);
    });

REGISTER_OP("StProjectFunction")
    .Input("a: float")
    .Input("b: float")
    .Output("y: float")
    .SetShapeFn(PairRowsShape);

REGISTER_OP("StProjectFunctionDeclaredFirst")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(FirstInputShape);

REGISTER_OP("StMultiOutput")
    .Input("x: float")
    .Output("y: float")
    .Output("n: int32")
    .Output("r: int32")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      ShapeHandle batch;
      TF_RETURN_IF_ERROR(c->Subshape(x, 0, 1, &batch));
      c->set_output(0, batch);
      c->set_output(1, c->Scalar());
      c->set_output(2, c->Vector(c->Rank(x)));
      return OkStatus();
    });

REGISTER_OP("StListInput")
    .Input("xs: N * float")
    .Output("y: float")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        TF_RETURN_IF_ERROR(c->Merge(out, c->input(i), &out));
      }
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StBatchMatMulLike")
    .Input("a: float")
    .Input("b: float")
    .Output("c: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle a;
      ShapeHandle b;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, &a));
      TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, &b));
      DimensionHandle batch;
      TF_RETURN_IF_ERROR(c->Merge(c->Dim(a, 0), c->Dim(b, 0), &batch));
      DimensionHandle inner;
      TF_RETURN_IF_ERROR(c->Merge(c->Dim(a, 2), c->Dim(b, 1), &inner));
      c->set_output(0, c->MakeShape({batch, c->Dim(a, 1), c->Dim(b, 2)}));
      return OkStatus();
    });

REGISTER_OP("StFlattenInner")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &x));
      ShapeHandle inner;
      TF_RETURN_IF_ERROR(c->Subshape(x, 1, &inner));
      c->set_output(0, c->Matrix(c->Dim(x, 0), c->NumElements(inner)));
      return OkStatus();
    });

REGISTER_OP("StBreakLoop")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      int first_unknown = -1;
      if (c->RankKnown(x)) {
        for (int i = 0; i < c->Rank(x); ++i) {
          if (!c->ValueKnown(c->Dim(x, i))) {
            first_unknown = i;
            break;
          }
        }
      }
      c->set_output(0, c->Vector(first_unknown + 2));
      return OkStatus();
    });

REGISTER_OP("StTrailingReturnType")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* ctx) -> absl::Status {
      ::tensorflow::shape_inference::ShapeHandle s;
      TF_RETURN_IF_ERROR(ctx->WithRankAtLeast(ctx->input(0), 1, &s));
      if (!ctx->RankKnown(s)) {
        ctx->set_output(0, ctx->UnknownShape());
        return absl::OkStatus();
      }
      ctx->set_output(0, ctx->UnknownShapeOfRank(ctx->Rank(s)));
      return absl::OkStatus();
    });

REGISTER_OP("StBoolLogic")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      const bool both = c->RankKnown(c->input(0)) && c->RankKnown(c->input(1));
      const bool same = both && c->Rank(c->input(0)) == c->Rank(c->input(1));
      if (!both || same) {
        c->set_output(0, c->input(0));
      } else {
        c->set_output(0, c->input(1));
      }
      return OkStatus();
    });

REGISTER_OP("StShapeTensor")
    .Input("shape: int32")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StConstantInput")
    .Input("x: float")
    .Input("k: int32")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      const Tensor* k = c->input_tensor(1);
      if (k == nullptr) {
        c->set_output(0, c->UnknownShapeOfRank(2));
        return OkStatus();
      }
      if (k->dims() != 0) {
        return errors::InvalidArgument("k must be a scalar, got ", k->NumElements(), " values");
      }
      const int32 n = k->scalar<int32>()();
      if (n < 0) return errors::InvalidArgument("k must be >= 0 but is ", n);
      c->set_output(0, c->Matrix(c->Dim(x, 0), n));
      return OkStatus();
    });

REGISTER_OP("StConstantVector")
    .Input("sizes: int32")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
      const Tensor* sizes = c->input_tensor(0);
      if (!sizes) {
        c->set_output(0, c->UnknownShape());
        return OkStatus();
      }
      std::vector<DimensionHandle> dims;
      for (int64_t i = 0; i < sizes->NumElements(); ++i) {
        dims.push_back(c->MakeDim(sizes->flat<int32>()(i) * 2));
      }
      c->set_output(0, c->MakeShape(dims));
      return OkStatus();
    });

REGISTER_OP("StShapeAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("shape: shape")
    .SetShapeFn([](InferenceContext* c) {
      PartialTensorShape shape;
      TF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
      TF_RETURN_IF_ERROR(c->Merge(out, c->input(0), &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StHelperWithArgs")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      if (c->Rank(c->input(0)) == 3) return RankedInput(c, 0, 3, "a cube");
      return RankedInput(c, 0, 2, "a matrix");
    });

// A float attr compared with float and double literals and printed (StrCat's six digits).
REGISTER_OP("StFloatAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("alpha: float = 1.0")
    .SetShapeFn([](InferenceContext* c) {
      float alpha;
      TF_RETURN_IF_ERROR(c->GetAttr("alpha", &alpha));
      if (alpha < 0.1f || alpha == -2.5) {
        return errors::InvalidArgument("alpha must be at least 0.1 but is ", alpha);
      }
      if (alpha > 2) {
        c->set_output(0, c->Vector(c->Rank(c->input(0))));
        return OkStatus();
      }
      c->set_output(0, c->input(0));
      return OkStatus();
    });

REGISTER_OP("StTypeAttr")
    .Input("x: float")
    .Output("y: out_type")
    .Attr("out_type: {float, int32, int64, string} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      DataType out_type;
      TF_RETURN_IF_ERROR(c->GetAttr("out_type", &out_type));
      if (out_type == DT_STRING) {
        return errors::InvalidArgument("out_type must be numeric, not ", DataTypeString(out_type));
      }
      if (out_type == DataType::DT_INT32 || out_type == DT_INT64) {
        c->set_output(0, c->Scalar());
      } else {
        c->set_output(0, c->input(0));
      }
      return OkStatus();
    });

REGISTER_OP("StTypeListAttr")
    .Input("x: float")
    .Output("y: float")
    .Attr("types: list(type) >= 0 = []")
    .SetShapeFn([](InferenceContext* c) {
      DataTypeVector types;
      TF_RETURN_IF_ERROR(c->GetAttr("types", &types));
      int floats = 0;
      for (DataType t : types) {
        if (t == DT_FLOAT) ++floats;
      }
      c->set_output(0, c->Matrix(floats, static_cast<int>(types.size())));
      return OkStatus();
    });

REGISTER_OP("StShapeListAttr")
    .Input("x: float")
    .Output("y: float")
    .Output("z: float")
    .Attr("shapes: list(shape) = []")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<PartialTensorShape> shapes;
      TF_RETURN_IF_ERROR(c->GetAttr("shapes", &shapes));
      if (shapes.empty()) return shape_inference::UnknownShape(c);
      for (int i = 0; i < c->num_outputs(); ++i) {
        ShapeHandle s = c->UnknownShape();
        if (i < static_cast<int>(shapes.size())) {
          TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &s));
        }
        TF_RETURN_IF_ERROR(c->Merge(s, c->input(0), &s));
        c->set_output(i, s);
      }
      return OkStatus();
    });

// Shapes of named input and output args of any length (TF's NameRangesForNode).
REGISTER_OP("StNamedArgs")
    .Input("xs: N * float")
    .Output("ys: N * float")
    .Output("first: float")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<ShapeHandle> xs;
      TF_RETURN_IF_ERROR(c->input("xs", &xs));
      std::vector<ShapeHandle> ranked;
      for (ShapeHandle s : xs) {
        if (c->Rank(s) != 0) ranked.push_back(s);
      }
      TF_RETURN_IF_ERROR(c->set_output("ys", ranked));
      std::vector<ShapeHandle> ys;
      TF_RETURN_IF_ERROR(c->output("ys", &ys));
      c->set_output(c->num_outputs() - 1, ys[0]);
      return OkStatus();
    });

// TF's common functions taking arguments after the context.
REGISTER_OP("StUnchangedRank3")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) { return shape_inference::UnchangedShapeWithRank(c, 3); });

REGISTER_OP("StUnchangedAtLeast2")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) { return shape_inference::UnchangedShapeWithRankAtLeast(c, 2); });

REGISTER_OP("StUnchangedAtMost1")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) { return shape_inference::UnchangedShapeWithRankAtMost(c, 1); });

REGISTER_OP("StBroadcastSecondOutput")
    .Input("x: float")
    .Input("y: float")
    .Output("flag: bool")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      TF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFn(c, 1));
      return OkStatus();
    });

REGISTER_OP("StBroadcastHelper")
    .Input("x: float")
    .Input("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out;
      TF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
          c, c->input(1), c->input(0), true, &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("StShapeTensorOrScalar")
    .Input("shape: int32")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle out;
      TF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
      c->set_output(0, out);
      return OkStatus();
    });

// Statements a shape function may hold that decide no shape: a using-declaration (which
// spells InvalidArgument unqualified), log lines, debug checks; and DimensionOrConstant.
REGISTER_OP("StLoggedChecks")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      using errors::InvalidArgument;
      VLOG(1) << "StLoggedChecks: " << c->DebugString(c->input(0));
      DCHECK(c->num_inputs() == 1);
      DCHECK_EQ(c->num_outputs(), 1);
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      if (c->Rank(x) > 3) return InvalidArgument("rank ", c->Rank(x), " is above 3");
      DimensionHandle d;
      TF_RETURN_IF_ERROR(c->Add(c->Dim(x, 0), shape_inference::DimensionOrConstant(2), &d));
      c->set_output(0, c->Vector(d));
      return OkStatus();
    });

// Not translatable: resource handle data. opgen warns and leaves the shape unknown.
REGISTER_OP("StHandleData")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      if (c->input_handle_shapes_and_types(0) == nullptr) {
        c->set_output(0, c->UnknownShape());
      }
      return OkStatus();
    });

// A switch: cases grouped, one in braces, one returning, default before the last case.
REGISTER_OP("StSwitchRank")
    .Input("x: float")
    .Output("y: float")
    .Attr("n: int = 0")
    .SetShapeFn([](InferenceContext* c) {
      int64_t n;
      TF_RETURN_IF_ERROR(c->GetAttr("n", &n));
      switch (c->Rank(c->input(0)) + n) {
        case 0:
          c->set_output(0, c->Scalar());
          break;
        case 1:
        case 2: {
          ShapeHandle s;
          TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &s));
          c->set_output(0, c->Vector(c->Dim(s, 0)));
          break;
        }
        default:
          return absl::InvalidArgumentError(absl::StrCat("rank plus n is ", c->Rank(c->input(0)) + n));
        case -1:
          c->set_output(0, c->UnknownShape());
      }
      return OkStatus();
    });

REGISTER_OP("StSwitchType")
    .Input("x: float")
    .Output("y: float")
    .Attr("out_type: type = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      DataType t;
      TF_RETURN_IF_ERROR(c->GetAttr("out_type", &t));
      switch (t) {
        case DT_FLOAT:
        case DT_DOUBLE:
          c->set_output(0, c->Scalar());
          return OkStatus();
        case DT_INT32:
          for (int i = 0; i < 3; ++i) {
            if (i == c->Rank(c->input(0))) break;
          }
          c->set_output(0, c->Vector(c->Rank(c->input(0))));
          break;
        default:
          break;
      }
      return OkStatus();
    });

// std::max / std::min / std::abs, a vector's front() and back().
REGISTER_OP("StStdMath")
    .Input("x: float")
    .Output("y: float")
    .Attr("sizes: list(int) = [1, 2]")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle s;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &s));
      std::vector<int64_t> sizes;
      TF_RETURN_IF_ERROR(c->GetAttr("sizes", &sizes));
      if (sizes.empty()) return errors::InvalidArgument("sizes is empty, ", strings::StrCat("rank ", c->Rank(s)));
      const int64_t first = std::max<int64_t>(c->Value(c->Dim(s, 0)), 2);
      const int64_t last = std::abs(c->Value(c->Dim(s, -1)));
      c->set_output(0, c->Matrix(first + std::min({c->Rank(s), 3, 5}) + last,
                                 std::max(sizes.front(), sizes.back()) * 10 + std::min(sizes.front(), sizes.back())));
      return OkStatus();
    });

// Narrowing into 32 bits: an int64 stored into an int32, `+=` of an int64 into one, a
// static_cast<int32> (the low 32 bits, signed).
REGISTER_OP("StNarrow")
    .Input("x: float")
    .Output("y: float")
    .Attr("m: int = 3")
    .SetShapeFn([](InferenceContext* c) {
      int64_t m;
      TF_RETURN_IF_ERROR(c->GetAttr("m", &m));
      int32 k = m;
      k += m;
      const int64_t cast = static_cast<int32>(m * 3);
      if (k < 0 || cast < 0) return errors::InvalidArgument("narrowed to ", k, " and ", cast);
      c->set_output(0, c->Matrix(k, cast + std::min<int>(m, 100)));  // the template narrows m too
      return OkStatus();
    });


// 64-bit unsigned locals (trial31 #1): arithmetic wraps modulo 2**64, a comparison with one is
// unsigned, and the value converted back to int64 (Vector's argument) has the same bits.
REGISTER_OP("StSizeTLocal")
    .Input("x: float")
    .Output("y: float")
    .Output("z: float")
    .Attr("sizes: list(int) = [2, 3]")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<int64_t> sizes;
      TF_RETURN_IF_ERROR(c->GetAttr("sizes", &sizes));
      size_t n = 0;
      n = n - 1;
      int64_t out = n > 5 ? 1 : 2;
      size_t product = 1;
      for (size_t i = 0; i < sizes.size(); ++i) {
        product *= static_cast<size_t>(sizes[i]);
      }
      if (product == 0) out += 10;
      if (product > 100) out += 20;
      unsigned long long less = product - 1;
      if (less < 1000) out += 40;
      std::size_t k = sizes.size();
      k -= 2;
      if (k < 3) out += 80;
      auto s = sizes.size();
      if (-s > 0) out += 160;
      uint64_t m = s;
      --m;
      if (!m) out += 320;
      c->set_output(0, c->Vector(out));
      size_t width = k == static_cast<size_t>(-1) ? k : product < 50 ? product : 7;
      c->set_output(1, c->Vector(width));
      return OkStatus();
    });

// A 32-bit unsigned local: its arithmetic (modulo 2**32, an int operand converted to
// unsigned) is not modelled, so it is refused (trial31 #1).
REGISTER_OP("StUnsignedInt")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      unsigned u = 0;
      u -= 1;
      c->set_output(0, c->Vector(u > 5 ? 1 : 2));
      return OkStatus();
    });

// TF Addons' spelling of the constants, qualified with the namespaces (trial32 #2: only
// `kUnknownDim` and `InferenceContext::kUnknownDim` translated).
REGISTER_OP("StQualifiedConstants")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      const int64_t n = c->Value(c->Dim(x, 0));
      if (n == shape_inference::InferenceContext::kUnknownDim ||
          c->Rank(x) == ::tensorflow::shape_inference::InferenceContext::kUnknownRank) {
        c->set_output(0, c->Vector(::tensorflow::shape_inference::InferenceContext::kUnknownDim));
        return OkStatus();
      }
      c->set_output(0, c->Vector(n + 1));
      return OkStatus();
    });

// Function templates named by SetShapeFn with their template arguments (trial35 #2: custom-op's
// ApplyDeformationShapeFunction<k2SpatialDims>), declared before the ops and defined after them:
// each instantiation is translated with its non-type parameters (an enum, an int, a bool, an
// enum class, with defaults) bound to its arguments; an explicit specialization is its own
// function; the unit's enumerators and constants read in the body have their values.
enum StSpatialDims { kSt2SpatialDims = 2, kSt3SpatialDims, kStAfterSpatialDims };
enum class StMode { kPass = 1, kFail = 4 };
enum StOperationInputIndices { kStInputIndex = 0 };
constexpr int kStChannels = kStAfterSpatialDims + 1;

template <StSpatialDims>
Status StDeformationShape(InferenceContext* c);

template <int kMinRank, bool kKeep = true, StMode kMode = StMode::kPass>
Status StRankAtLeast(InferenceContext* c);
template <>
Status StRankAtLeast<0>(InferenceContext* c);

REGISTER_OP("StTemplate2D").Input("x: float").Output("y: float").SetShapeFn(StDeformationShape<kSt2SpatialDims>);
REGISTER_OP("StTemplate3D")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(StDeformationShape<StSpatialDims::kSt3SpatialDims>);
REGISTER_OP("StTemplateDefaults").Input("x: float").Output("y: float").SetShapeFn(StRankAtLeast<2>);
REGISTER_OP("StTemplateArgs")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(StRankAtLeast<kSt2SpatialDims - 1, false, StMode::kFail>);
REGISTER_OP("StTemplateSpecialized").Input("x: float").Output("y: float").SetShapeFn(&StRankAtLeast<0>);

template <StSpatialDims spatial_dims>
Status StDeformationShape(InferenceContext* c) {
  // One more dimension for the channels.
  static const int kTensorRank = spatial_dims + 1;
  ShapeHandle input;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(kStInputIndex), kTensorRank, &input));
  ShapeHandle output = input;
  if (spatial_dims == kSt3SpatialDims) {
    TF_RETURN_IF_ERROR(c->ReplaceDim(output, spatial_dims, c->MakeDim(kStChannels), &output));
  }
  c->set_output(0, output);
  return OkStatus();
}

template <int kMinRank, bool kKeep, StMode kMode>
Status StRankAtLeast(InferenceContext* c) {
  ShapeHandle x;
  TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), kMinRank, &x));
  if (kMode == StMode::kFail && c->Rank(x) > kMinRank) {
    return errors::InvalidArgument("rank ", c->Rank(x), " is past ", kMinRank);
  }
  c->set_output(0, kKeep ? x : c->Vector(kMinRank));
  return OkStatus();
}

template <>
Status StRankAtLeast<0>(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return OkStatus();
}

// Copies of a vector (trial38 #1: translated as Python aliasing, so writes to a copy changed the
// original): copy-initialization, a const copy, assignment, a range-for's variable written, and
// the original written after all of them.
REGISTER_OP("StVectorCopies")
    .Input("x: float")
    .Output("a: float")
    .Output("b: float")
    .Output("c: float")
    .Attr("m: list(int) = [3]")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<int64_t> m;
      TF_RETURN_IF_ERROR(c->GetAttr("m", &m));
      std::vector<int64_t> copy = m;
      const std::vector<int64_t> kept = m;
      std::vector<int64_t> assigned;
      assigned = m;
      for (auto v : m) {
        v = v + 1000;
      }
      if (!copy.empty()) copy[0] = 1;
      assigned.push_back(5);
      m.push_back(c->Rank(c->input(0)));
      c->set_output(0, c->Vector(m[0]));
      c->set_output(1, c->Vector(kept.size()));
      c->set_output(2, c->Matrix(assigned.size(), copy.empty() ? -1 : copy[0]));
      return OkStatus();
    });

// A vector of shapes copied, the copy changed (trial38 #1: the original changed with it).
REGISTER_OP("StShapeVectorCopy")
    .Input("xs: N * float")
    .Output("ys: N * float")
    .Output("first: float")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<ShapeHandle> shapes;
      TF_RETURN_IF_ERROR(c->input("xs", &shapes));
      std::vector<ShapeHandle> outs = shapes;
      outs[0] = c->Scalar();
      for (size_t i = 1; i < outs.size(); ++i) outs[i] = shapes[0];
      TF_RETURN_IF_ERROR(c->set_output("ys", outs));
      c->set_output(c->num_outputs() - 1, shapes[0]);
      return OkStatus();
    });

namespace {
// A vector parameter by value is the function's own copy (trial38 #1: its writes changed the
// caller's vector); one by const reference reads the caller's.
Status StBumpFirst(InferenceContext* c, std::vector<DimensionHandle> dims, int64_t by) {
  dims[0] = c->MakeDim(by);
  dims.push_back(c->UnknownDim());
  c->set_output(1, c->MakeShape(dims));
  return OkStatus();
}

Status StSetFromDims(InferenceContext* c, const std::vector<DimensionHandle>& dims, int output) {
  c->set_output(output, c->MakeShape(dims));
  return OkStatus();
}

// Overloads (trial38 #3: a call took the first one whatever its arguments): C++ calls the one
// taking that many arguments, or the one whose parameters are exactly the arguments' types.
Status StExpectRank(InferenceContext* c, int64_t rank) {
  ShapeHandle unused;
  return c->WithRank(c->input(0), rank, &unused);
}

Status StExpectRank(InferenceContext* c, bool scalar_ok) {
  ShapeHandle unused;
  return c->WithRankAtMost(c->input(0), scalar_ok ? 0 : 1, &unused);
}

Status StExpectRank(InferenceContext* c, const std::string& what, int64_t rank) {
  if (c->Rank(c->input(0)) > rank) return errors::InvalidArgument(what, " has a rank above ", rank);
  return OkStatus();
}
}  // namespace

REGISTER_OP("StVectorByValue")
    .Input("x: float")
    .Output("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &x));
      std::vector<DimensionHandle> dims;
      dims.push_back(c->Dim(x, 0));
      dims.push_back(c->Dim(x, 1));
      TF_RETURN_IF_ERROR(StBumpFirst(c, dims, 99));
      return StSetFromDims(c, dims, 0);
    });

// A const reference to a local reads what later writes store in the local (trial38 #2: it was
// translated as a copy); one bound to a temporary keeps the value it was bound to.
REGISTER_OP("StConstReferences")
    .Input("x: float")
    .Output("y: float")
    .Output("z: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      const ShapeHandle& s = x;
      int64_t n = 1;
      const int64_t& r = n;
      const auto& same = r;
      std::vector<int64_t> v(2, 3);
      const std::vector<int64_t>& w = v;
      const int64_t& sum = n + 1;
      if (c->RankKnown(x)) {
        n = c->Rank(x);
        x = c->Scalar();
        v.push_back(n);
      }
      n += 2;
      c->set_output(0, s);
      c->set_output(1, c->MakeShape({r, same, sum, static_cast<int64_t>(w.size())}));
      return OkStatus();
    });

REGISTER_OP("StOverloads")
    .Input("x: float")
    .Output("y: float")
    .Attr("flag: bool = true")
    .SetShapeFn([](InferenceContext* c) {
      bool flag;
      TF_RETURN_IF_ERROR(c->GetAttr("flag", &flag));
      TF_RETURN_IF_ERROR(StExpectRank(c, "x", 3));
      if (flag) {
        TF_RETURN_IF_ERROR(StExpectRank(c, false));
      } else {
        const int64_t two = 2;
        TF_RETURN_IF_ERROR(StExpectRank(c, two));
      }
      c->set_output(0, c->input(0));
      return OkStatus();
    });

// An overload chosen by an argument whose C++ type opgen does not compute (`n + 1` is an
// int64_t): refused, not guessed.
REGISTER_OP("StOverloadUnresolved")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      int64_t n = 1;
      TF_RETURN_IF_ERROR(StExpectRank(c, n + 1));
      c->set_output(0, c->input(0));
      return OkStatus();
    });

// `continue` (trial38 #7): in a for loop translated as a while loop it runs the step first (the
// dims of x that are not 1, every other one from index `from`); in a range-for and from a switch.
REGISTER_OP("StContinue")
    .Input("x: float")
    .Output("kept: float")
    .Output("every_other: float")
    .Output("sum: float")
    .Attr("m: list(int) = [3, -1, 2]")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x = c->input(0);
      std::vector<DimensionHandle> kept;
      for (int i = 0; i < c->Rank(x); ++i) {
        if (c->Value(c->Dim(x, i)) == 1) continue;
        kept.push_back(c->Dim(x, i));
      }
      c->set_output(0, c->MakeShape(kept));
      std::vector<DimensionHandle> every_other;
      for (int i = 0; i < c->Rank(x); i += 2) {
        for (int j = 0; j < 2; j++) {
          if (j == 0) continue;
          if (i + j >= c->Rank(x)) {
            continue;
          }
          every_other.push_back(c->Dim(x, i + j));
        }
        if (c->ValueKnown(c->Dim(x, i))) continue;
        every_other.push_back(c->Dim(x, i));
      }
      c->set_output(1, c->MakeShape(every_other));
      std::vector<int64_t> m;
      TF_RETURN_IF_ERROR(c->GetAttr("m", &m));
      int64_t sum = 0;
      for (int64_t v : m) {
        if (v < 0) continue;
        sum += v;
      }
      for (size_t k = 0; k < m.size(); ++k) {
        switch (m[k]) {
          case 2:
            continue;
          case 5:
            sum += 100;
            break;
          default:
            sum += 1;
        }
        sum += 10;
      }
      c->set_output(2, c->Vector(sum));
      return OkStatus();
    });

// Brace-initialized vectors (trial38 #7): `{a, b}` and `= {a, b}` are lists of those items (`{n}`
// is one item, not n of them), `{v}` of a vector is a copy of it, `v = {...}` replaces v's items.
REGISTER_OP("StBracedVectors")
    .Input("x: float")
    .Output("dims: float")
    .Output("sizes: float")
    .Output("shapes: float")
    .Attr("n: int = 2")
    .SetShapeFn([](InferenceContext* c) {
      int64_t n;
      TF_RETURN_IF_ERROR(c->GetAttr("n", &n));
      ShapeHandle x;
      TF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &x));
      std::vector<DimensionHandle> dims{c->Dim(x, 0), c->MakeDim(n)};
      std::vector<int64_t> one{n};
      std::vector<int64_t> pair = {n, c->Rank(x)};
      std::vector<int64_t> copy{pair};
      std::vector<int64_t> none = {};
      std::vector<bool> flags{n > 2, false};
      copy[0] = 7;
      if (flags[0]) {
        pair = {1, 2, 3};
        none.push_back(n);
      }
      std::vector<ShapeHandle> shapes = {x, c->Vector(n)};
      c->set_output(0, c->MakeShape(dims));
      c->set_output(1, c->MakeShape({c->MakeDim(one.size()), c->MakeDim(pair[0]), c->MakeDim(pair.size()),
                                     c->MakeDim(copy[0] + copy[1]), c->MakeDim(none.size())}));
      c->set_output(2, shapes[n > 3 ? 0 : 1]);
      return OkStatus();
    });

// A status kept in a variable and returned by the next statement (trial38 #7): the same as
// TF_RETURN_IF_ERROR of its call (or `return` of it).
Status StStatusReturned(InferenceContext* c) {
  ShapeHandle y;
  Status s = c->WithRankAtLeast(c->input(1), 1, &y);
  return s;
}

REGISTER_OP("StStatusVariable")
    .Input("x: float")
    .Input("y: float")
    .Output("merged: float")
    .Output("first: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle x;
      Status s = c->WithRankAtMost(c->input(0), 3, &x);
      if (!s.ok()) return s;
      ShapeHandle y;
      absl::Status merged = c->Merge(x, c->input(1), &y);
      TF_RETURN_IF_ERROR(merged);
      c->set_output(0, y);
      DimensionHandle d = c->UnknownDim();
      if (c->RankKnown(y) && c->Rank(y) > 0) {
        ::tensorflow::Status dim_ok = c->WithValue(c->Dim(y, 0), 2, &d);
        if (!dim_ok.ok()) {
          return dim_ok;
        }
      }
      c->set_output(1, c->Vector(d));
      Status returned = StStatusReturned(c);
      TF_RETURN_IF_ERROR(returned);
      return OkStatus();
    });

// A value-initialized number (`int64_t n{};`) is 0.
REGISTER_OP("StValueInitialized")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](InferenceContext* c) {
      int64_t n{};
      bool b{};
      n += c->Rank(c->input(0));
      c->set_output(0, c->Vector(b ? 1 : n + 2));
      return OkStatus();
    });

}  // namespace tensorflow
