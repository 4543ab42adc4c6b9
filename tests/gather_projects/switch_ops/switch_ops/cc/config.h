// The project's own configuration: found (from the project root), so nothing is missing.
#ifndef SWITCH_OPS_CONFIG_H_
#define SWITCH_OPS_CONFIG_H_
#define SWITCH_OPS_VERSION 3
#define SWITCH_REGISTER_OP(name) REGISTER_OP(name)
#endif  // SWITCH_OPS_CONFIG_H_
