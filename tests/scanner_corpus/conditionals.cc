// defines: WITH_GPU OPS_VERSION=3
#include "tensorflow/core/framework/op.h"

#define LEVEL (OPS_VERSION * 2 + 1)

#if defined(WITH_GPU) && LEVEL >= 7 && !defined(NO_SUCH_MACRO)
REGISTER_OP("GpuOnly").Output("y: float");
#elif OPS_VERSION > 1
REGISTER_OP("NotTaken").Output("y: float");
#else
REGISTER_OP("NotTakenEither").Output("y: float");
#endif

#ifdef NO_SUCH_MACRO
REGISTER_OP("Undefined");
#elif (OPS_VERSION << 2) == 12 ? 1 : 0
REGISTER_OP("Shifted").Output("y: float");
#endif

#ifndef WITH_GPU
REGISTER_OP("CpuOnly");
#else
#  if OPS_VERSION >= 3 || UNKNOWN_IDENT
REGISTER_OP("Nested").Output("y: float");
#  endif
#endif

#if 0
#  if this is never evaluated
#  error not reached
#  endif
#elif 0x10 == 16 && 010 == 8 && 0b11 == 3 && 'A' == 65 && 1'000 == 1000L && true
REGISTER_OP("Literals").Output("y: float");
#endif

#if __cplusplus >= 201703L
REGISTER_OP("Cxx17").Output("y: float");
#endif

REGISTER_OP("MidChain")
    .Input("x: T")
#ifdef WITH_GPU
    .Attr("T: {half, float}")
#else
    .Attr("T: {float}")
#endif
    .Output("y: T");

#define ATTRS(a, b) Attr(a).Attr(b)
REGISTER_OP("ArgDirectives").Output("y: float").ATTRS(
#ifdef WITH_GPU
    "g: int = 1",
#else
    "c: int = 1",
#endif
    "both: int = 2");
