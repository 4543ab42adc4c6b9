#include "tensorflow/core/framework/op.h"

// Two headers without include guards include each other: the error names the cycle.
#include "cyc_a.h"
REGISTER_OP("Foo").Output("y: float");
