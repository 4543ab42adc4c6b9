#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#if defined(__linux__) && defined(__x86_64__)
REGISTER_OP("PlatformLinux").Input("x: float").Output("y: float");
#endif

#if __GNUC__ >= 7 && __STDC_HOSTED__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && __SIZEOF_POINTER__ == 8
REGISTER_OP("PlatformGnu64").Input("x: float").Output("y: float");
#endif

#if defined(_WIN32) || defined(__APPLE__) || defined(__ANDROID__)
REGISTER_OP("PlatformOther").Input("x: float").Output("y: float");
#endif

#ifdef __cpp_exceptions
REGISTER_OP("PlatformExceptions").Output("y: int32");
#endif

}  // namespace tensorflow
