// A sibling project's header: found by the compiler (-I tests/gather_projects), not by
// opgen, whose include search stops at vision_ops' root.
#ifndef COMMON_LIB_STATUS_MACROS_H_
#define COMMON_LIB_STATUS_MACROS_H_
#define COMMON_RETURN_IF_NEGATIVE(x) \
  if ((x) < 0) return -1
#endif  // COMMON_LIB_STATUS_MACROS_H_
