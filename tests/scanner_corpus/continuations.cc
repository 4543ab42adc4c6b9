// Line continuations: spliced everywhere except inside raw strings.
#include "tensorflow/core/framework/op.h"

#define MULTI_LINE() \
  Input("x: float") \
  .Output("y: float")

// a line comment continued \
REGISTER_OP("Hidden");

REGISTER_OP("Continued").MULTI_LINE()
    .Doc("one \
two")
    .Attr("a: int = 1")
    .Doc(R"doc(raw \
keeps the backslash)doc");
RE\
GISTER_OP("SplitKeyword").Output("z: int32");
