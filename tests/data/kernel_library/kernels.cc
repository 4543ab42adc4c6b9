// A kernel library for the differential test of `opgen kernels` (tests/gather/test_kernels_oracle.py):
// compiled with g++ against the TF wheel (with and without -DGOOGLE_CUDA=1), loaded, and
// TF's registered KernelDefs per op compared with what opgen reads from this file.
// Kernels compute nothing: only their registrations are under test.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

namespace tensorflow {

REGISTER_OP("OpgenKlReduce")
    .Input("input: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32");

REGISTER_OP("OpgenKlCast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: {float, double, int32, bool}")
    .Attr("DstT: {float, double, int32, bool}");

REGISTER_OP("OpgenKlShape")
    .Input("x: T")
    .Output("shape: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32");

REGISTER_OP("OpgenKlLabelled").Input("x: float").Output("y: float");

REGISTER_OP("OpgenKlSystem").Output("y: int32");

REGISTER_OP("OpgenKlAttrs")
    .Input("x: N * float")
    .Output("y: float")
    .Attr("N: int >= 1")
    .Attr("mode: {'fast', 'exact'} = 'fast'")
    .Attr("flag: bool = false");

struct CpuTag {};
struct GpuTag {};

template <typename Device, typename T, typename Index = int32_t>
class OpgenKlKernel : public OpKernel {
 public:
  explicit OpgenKlKernel(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

// Templated kernels stamped once per type by TF_CALL_* macros, two index types each.
#define REGISTER_REDUCE(D, DEV, type)                                                      \
  REGISTER_KERNEL_BUILDER(                                                                 \
      Name("OpgenKlReduce").Device(DEV).TypeConstraint<type>("T").TypeConstraint<int32>("Tidx") \
          .HostMemory("axis"),                                                             \
      OpgenKlKernel<D, type, int32>);                                                      \
  REGISTER_KERNEL_BUILDER(                                                                 \
      Name("OpgenKlReduce").Device(DEV).TypeConstraint<type>("T").TypeConstraint<int64_t>("Tidx") \
          .HostMemory("axis"),                                                             \
      OpgenKlKernel<D, type, int64_t>);
#define REGISTER_REDUCE_CPU(type) REGISTER_REDUCE(CpuTag, DEVICE_CPU, type)
TF_CALL_REAL_NUMBER_TYPES(REGISTER_REDUCE_CPU);
TF_CALL_COMPLEX_TYPES(REGISTER_REDUCE_CPU);
#undef REGISTER_REDUCE_CPU

#if GOOGLE_CUDA || TENSORFLOW_USE_ROCM
#define REGISTER_REDUCE_GPU(type) REGISTER_REDUCE(GpuTag, DEVICE_GPU, type)
TF_CALL_GPU_NUMBER_TYPES(REGISTER_REDUCE_GPU);
#undef REGISTER_REDUCE_GPU
#endif

// A type list and a single DataType.
REGISTER_KERNEL_BUILDER(Name("OpgenKlCast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", {DT_FLOAT, DT_DOUBLE, DT_INT32})
                            .TypeConstraint("DstT", DT_BOOL),
                        OpgenKlKernel<CpuTag, float>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlCast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", DataTypeToEnum<bool>::v())
                            .TypeConstraint("DstT", {DT_FLOAT, DT_DOUBLE}),
                        OpgenKlKernel<CpuTag, bool>);
#ifdef GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("OpgenKlCast")
                            .Device(DEVICE_GPU)
                            .TypeConstraint("SrcT", {DT_FLOAT})
                            .TypeConstraint("DstT", {DT_FLOAT, DT_INT32})
                            .Priority(2),
                        OpgenKlKernel<GpuTag, float>);
#endif

// Host memory on the output, every type through TF_CALL_ALL_TYPES, one kernel per index type.
#define REGISTER_SHAPE(type)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("OpgenKlShape").Device(DEVICE_CPU).TypeConstraint<type>("T") \
                              .TypeConstraint<int32>("out_type").HostMemory("shape"),          \
                          OpgenKlKernel<CpuTag, type>);
TF_CALL_ALL_TYPES(REGISTER_SHAPE);
TF_CALL_QUANTIZED_TYPES(REGISTER_SHAPE);
#undef REGISTER_SHAPE
#if GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("OpgenKlShape")
                            .Device(DEVICE_GPU)
                            .HostMemory("x")
                            .HostMemory("shape")
                            .TypeConstraint<int64_t>("out_type"),
                        OpgenKlKernel<GpuTag, int64_t>);
#endif

// Labels (a string constant and a literal) and priorities.
constexpr char kFastLabel[] = "fast";
REGISTER_KERNEL_BUILDER(Name("OpgenKlLabelled").Device(DEVICE_CPU), OpgenKlKernel<CpuTag, float>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlLabelled").Device(DEVICE_CPU).Label(kFastLabel).Priority(1),
                        OpgenKlKernel<CpuTag, double>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlLabelled").Device(DEVICE_CPU).Label("exact" "_v2").Priority(-1),
                        OpgenKlKernel<CpuTag, int32_t>);

REGISTER_SYSTEM_KERNEL_BUILDER(Name("OpgenKlSystem").Device(DEVICE_CPU), OpgenKlKernel<CpuTag, int32_t>);
REGISTER_SYSTEM_KERNEL_BUILDER(Name("OpgenKlSystem").Device(DEVICE_DEFAULT), OpgenKlKernel<CpuTag, int64_t>);

// AttrConstraint on int, string and bool attrs (a list or one value).
REGISTER_KERNEL_BUILDER(Name("OpgenKlAttrs").Device(DEVICE_CPU).AttrConstraint<int64_t>("N", {2, 3}),
                        OpgenKlKernel<CpuTag, float>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlAttrs")
                            .Device(DEVICE_CPU)
                            .AttrConstraint<std::string>("mode", {"exact"})
                            .AttrConstraint("flag", true)
                            .Label("exact"),
                        OpgenKlKernel<CpuTag, double>);
REGISTER_KERNEL_BUILDER(Name("OpgenKlAttrs").Device(DEVICE_CPU).AttrConstraint<int64_t>("N", 5).Label("five"),
                        OpgenKlKernel<CpuTag, int32_t>);

}  // namespace tensorflow
