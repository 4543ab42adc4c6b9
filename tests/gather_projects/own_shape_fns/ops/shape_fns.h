#ifndef OWN_SHAPE_FNS_H_
#define OWN_SHAPE_FNS_H_
#include "tensorflow/core/framework/shape_inference.h"

namespace own_ops {
// Declared here, defined in reduce_ops.cc (a name close to TF's UnchangedShape).
::tensorflow::Status UnchangedShapes(::tensorflow::shape_inference::InferenceContext* c);
}  // namespace own_ops

#endif  // OWN_SHAPE_FNS_H_
