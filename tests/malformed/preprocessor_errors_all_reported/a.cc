#include "tensorflow/core/framework/op.h"
#include "shared.h"

// Independent preprocessing errors: each is reported, reading goes on after it.
#define 1BAD x
#if
REGISTER_OP("NotTaken");
#else
REGISTER_OP("NotTakenEither");
#endif
#frobnicate
#define PASTE(a, b) a ## b
PASTE(+, -)
REGISTER_OP("Fine");
#if 1
