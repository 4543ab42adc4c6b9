// Local headers (twice: the guard and #pragma once keep one copy), system and TF headers skipped.
#include <vector>
#include "include/op_macros.h"
#include "include/op_macros.h"
#include "include/nested.h"
#define HEADER "include/op_macros.h"
#include HEADER

REGISTER_OP("UsesHeaderMacros").FLOAT_UNARY().FROM_NESTED;
