// Stands in for a header protoc generates during the project's build.
#ifndef VISION_OPS_CC_PROTO_CONFIG_PB_H_
#define VISION_OPS_CC_PROTO_CONFIG_PB_H_
namespace vision_ops {
struct Config {
  int max_boxes() const { return 16; }
};
}  // namespace vision_ops
#endif  // VISION_OPS_CC_PROTO_CONFIG_PB_H_
