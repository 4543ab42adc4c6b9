// Stands in for a third-party checkout the compiler needs and opgen never reads.
#ifndef GRPCPP_GRPCPP_H_
#define GRPCPP_GRPCPP_H_
namespace grpc {
struct Status {};
}  // namespace grpc
#endif  // GRPCPP_GRPCPP_H_
