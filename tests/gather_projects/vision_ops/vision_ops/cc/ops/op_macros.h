// Macros of the project's op sources, included from the project root
// ("vision_ops/cc/ops/op_macros.h") and from next door ("op_macros.h").
#ifndef VISION_OPS_CC_OPS_OP_MACROS_H_
#define VISION_OPS_CC_OPS_OP_MACROS_H_

#include <cstdio>

#include "re2/re2.h"

// Op names under the project's namespace: TF registers "Vision>Find".
#define VISION_OP_NAME(N) ("Vision" ">" #N)

// GNU comma elision: the comma goes when the variadic argument is left out.
#define VISION_TYPE_LIST(...) #__VA_ARGS__
#define VISION_TYPES(first, ...) "T: {" VISION_TYPE_LIST(first, ##__VA_ARGS__) "}"
#define VISION_LOG(fmt, ...) std::fprintf(stderr, fmt, ##__VA_ARGS__)

// C++20 __VA_OPT__: a default only when one is given.
#define VISION_ATTR(spec, ...) spec __VA_OPT__(" = " #__VA_ARGS__)

#endif  // VISION_OPS_CC_OPS_OP_MACROS_H_
