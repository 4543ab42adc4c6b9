#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if 1
