// Oracle harness: runs TensorFlow's own OpDefBuilder / ValidateOpDef / OpDefCompatible /
// OpRegistry on specs read at run time, so tests can compare opgen against TF without
// compiling one shared library per spec.
//
// Protocol (stdin -> stdout, binary, little endian): every message is
//   u32 field_count, then field_count x (u32 length, bytes).
// Requests (field 0 is the command) and their replies:
//   ping                                   -> ok
//   finalize  n  SPEC*n                    -> (stage, payload)*n
//   validate  op_def                       -> status
//   compat    old_op_def new_op_def        -> compat_status  defaults_status
//   register  include_internal(0|1) n SPEC*n -> status*n  op_list
// SPEC   := op_name  call_count  CALL*call_count
// CALL   := method  arg_count  arg*arg_count       (integers as decimal text)
// stage  := "ok" (payload = serialized OpDef) | "finalize" | "validate" (payload = message)
//           | "error" (payload = harness error, e.g. unknown method)
// status := "" for OK, else the status message text.
// A malformed request gets the one-field reply ("protocol_error: ...") and the process exits.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/core/framework/full_type.pb.h"
#include "tensorflow/core/framework/full_type_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_def.pb.h"
#include "tensorflow/core/framework/op_def_builder.h"
#include "tensorflow/core/framework/op_def_util.h"

namespace tensorflow {
// OpDefBuilder::ControlOutput is private and reachable only from this friend (in TF it is
// FunctionDefHelper in function.h, which the harness does not include).
class FunctionDefHelper {
 public:
  static void ControlOutput(OpDefBuilder& builder, std::string name) {
    builder.ControlOutput(std::move(name));
  }
};
}  // namespace tensorflow

namespace {

using tensorflow::FullTypeId;
using tensorflow::OpDefBuilder;
using tensorflow::OpTypeConstructor;
namespace full_type = tensorflow::full_type;

struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Fields = std::vector<std::string>;

bool ReadExact(void* dst, size_t n) {
  return std::fread(dst, 1, n, stdin) == n;
}

uint32_t ReadU32() {
  unsigned char b[4];
  if (!ReadExact(b, 4)) throw ProtocolError("truncated message");
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 |
         uint32_t(b[3]) << 24;
}

// Returns false on clean end of input before a message starts.
bool ReadMessage(Fields* fields) {
  unsigned char b[4];
  size_t got = std::fread(b, 1, 4, stdin);
  if (got == 0) return false;
  if (got != 4) throw ProtocolError("truncated message header");
  uint32_t n = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 |
               uint32_t(b[3]) << 24;
  fields->assign(n, std::string());
  for (auto& f : *fields) {
    uint32_t len = ReadU32();
    f.resize(len);
    if (len && !ReadExact(&f[0], len)) throw ProtocolError("truncated field");
  }
  return true;
}

void WriteU32(uint32_t v) {
  unsigned char b[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                        static_cast<unsigned char>(v >> 16),
                        static_cast<unsigned char>(v >> 24)};
  std::fwrite(b, 1, 4, stdout);
}

void WriteMessage(const Fields& fields) {
  WriteU32(fields.size());
  for (const auto& f : fields) {
    WriteU32(f.size());
    std::fwrite(f.data(), 1, f.size(), stdout);
  }
  std::fflush(stdout);
}

class Reader {
 public:
  explicit Reader(const Fields& fields) : fields_(fields) {}
  const std::string& Next() {
    if (pos_ >= fields_.size()) throw ProtocolError("request has too few fields");
    return fields_[pos_++];
  }
  long long NextInt() { return ParseInt(Next()); }
  static long long ParseInt(const std::string& s) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size()) throw ProtocolError("not an integer: '" + s + "'");
    return v;
  }
  bool Done() const { return pos_ == fields_.size(); }

 private:
  const Fields& fields_;
  size_t pos_ = 0;
};

struct Call {
  std::string method;
  std::vector<std::string> args;
};

struct Spec {
  std::string name;
  std::vector<Call> calls;
};

Spec ReadSpec(Reader& r) {
  Spec spec;
  spec.name = r.Next();
  long long ncalls = r.NextInt();
  for (long long i = 0; i < ncalls; ++i) {
    Call call;
    call.method = r.Next();
    long long nargs = r.NextInt();
    for (long long j = 0; j < nargs; ++j) call.args.push_back(r.Next());
    spec.calls.push_back(std::move(call));
  }
  return spec;
}

// An error in the spec itself (not TF's): unknown method, wrong argument count...
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

FullTypeId ParseTypeId(const std::string& text) {
  FullTypeId id;
  if (tensorflow::FullTypeId_Parse(text, &id)) return id;
  long long v;
  try {
    v = Reader::ParseInt(text);
  } catch (const ProtocolError&) {
    throw SpecError("unknown FullTypeId '" + text + "'");
  }
  return static_cast<FullTypeId>(v);
}

bool IsTypeIdName(const std::string& text) {
  FullTypeId id;
  return tensorflow::FullTypeId_Parse(text, &id);
}

void ExpectArgs(const Call& call, size_t n) {
  if (call.args.size() != n)
    throw SpecError(call.method + " takes " + std::to_string(n) + " argument(s), got " +
                    std::to_string(call.args.size()));
}

// One of TF 2.21's full_type:: helpers (tensorflow/core/framework/full_type_util.h).
OpTypeConstructor MakeTypeConstructor(const Call& call) {
  const auto& a = call.args;
  if (a.empty()) throw SpecError("SetTypeConstructor needs a full_type:: helper name");
  const std::string& helper = a[0];
  auto want = [&](size_t n) {
    if (a.size() != n + 1)
      throw SpecError("full_type::" + helper + " takes " + std::to_string(n) +
                      " argument(s), got " + std::to_string(a.size() - 1));
  };
  if (helper == "NoOp") {
    want(0);
    return full_type::NoOp();
  }
  if (helper == "NoOutputs") {
    want(0);
    return full_type::NoOutputs();
  }
  if (helper == "Nullary") {
    want(1);
    return full_type::Nullary(ParseTypeId(a[1]));
  }
  if (helper == "Unary") {
    want(2);
    return full_type::Unary(ParseTypeId(a[1]), a[2]);
  }
  if (helper == "UnaryGeneric") {
    want(1);
    return full_type::UnaryGeneric(ParseTypeId(a[1]));
  }
  if (helper == "UnaryTensorContainer") {
    want(2);
    // Overloads: (FullTypeId t, FullTypeId dtype) and (FullTypeId t, string var_name).
    if (IsTypeIdName(a[2])) return full_type::UnaryTensorContainer(ParseTypeId(a[1]), ParseTypeId(a[2]));
    return full_type::UnaryTensorContainer(ParseTypeId(a[1]), a[2]);
  }
  if (helper == "VariadicTensorContainer") {
    want(2);
    return full_type::VariadicTensorContainer(ParseTypeId(a[1]), a[2]);
  }
  throw SpecError("unknown full_type:: helper '" + helper + "'");
}

// Calls the builder methods exactly as a REGISTER_OP chain would.
void Apply(OpDefBuilder& b, const Call& call) {
  const std::string& m = call.method;
  const auto& a = call.args;
  if (m == "Attr") {
    ExpectArgs(call, 1);
    b.Attr(a[0]);
  } else if (m == "Input") {
    ExpectArgs(call, 1);
    b.Input(a[0]);
  } else if (m == "Output") {
    ExpectArgs(call, 1);
    b.Output(a[0]);
  } else if (m == "ControlOutput") {
    ExpectArgs(call, 1);
    tensorflow::FunctionDefHelper::ControlOutput(b, a[0]);
  } else if (m == "Doc") {
    ExpectArgs(call, 1);
    b.Doc(a[0]);
  } else if (m == "SetIsCommutative") {
    ExpectArgs(call, 0);
    b.SetIsCommutative();
  } else if (m == "SetIsAggregate") {
    ExpectArgs(call, 0);
    b.SetIsAggregate();
  } else if (m == "SetIsStateful" || m == "SetDoNotOptimize") {
    // OpDefBuilderWrapper::SetDoNotOptimize() calls SetIsStateful().
    ExpectArgs(call, 0);
    b.SetIsStateful();
  } else if (m == "SetAllowsUninitializedInput") {
    ExpectArgs(call, 0);
    b.SetAllowsUninitializedInput();
  } else if (m == "SetIsDistributedCommunication") {
    ExpectArgs(call, 0);
    b.SetIsDistributedCommunication();
  } else if (m == "AllowAttrTypeAny") {
    ExpectArgs(call, 0);
    b.AllowAttrTypeAny();
  } else if (m == "Deprecated") {
    ExpectArgs(call, 2);
    long long version;
    try {
      version = Reader::ParseInt(a[0]);
    } catch (const ProtocolError& e) {
      throw SpecError(std::string("Deprecated version: ") + e.what());
    }
    b.Deprecated(static_cast<int>(version), a[1]);
  } else if (m == "SetShapeFn") {
    // The function itself never reaches the OpDef; arguments (its source text) are ignored.
    b.SetShapeFn([](tensorflow::shape_inference::InferenceContext*) { return absl::OkStatus(); });
  } else if (m == "SetForwardTypeFn") {
    b.SetForwardTypeFn([](const tensorflow::TypeRefVector&,
                          const tensorflow::FunctionTypeInferrer&)
                           -> absl::StatusOr<tensorflow::FullTypeDef> {
      return tensorflow::FullTypeDef();
    });
  } else if (m == "SetTypeConstructor") {
    b.SetTypeConstructor(MakeTypeConstructor(call));
  } else {
    throw SpecError("unknown builder method '" + m + "'");
  }
}

// Builds a factory as REGISTER_OP does: the chain runs eagerly, Finalize runs later.
std::shared_ptr<OpDefBuilder> Build(const Spec& spec) {
  auto builder = std::make_shared<OpDefBuilder>(spec.name);
  for (const auto& call : spec.calls) Apply(*builder, call);
  return builder;
}

std::string StatusText(const absl::Status& s) {
  return s.ok() ? std::string() : std::string(s.message());
}

void FinalizeOne(const Spec& spec, Fields* out) {
  std::shared_ptr<OpDefBuilder> builder;
  try {
    builder = Build(spec);
  } catch (const SpecError& e) {
    out->push_back("error");
    out->push_back(e.what());
    return;
  }
  tensorflow::OpRegistrationData data;
  absl::Status s = builder->Finalize(&data);
  if (!s.ok()) {
    out->push_back("finalize");
    out->push_back(std::string(s.message()));
    return;
  }
  s = tensorflow::ValidateOpDef(data.op_def);
  if (!s.ok()) {
    out->push_back("validate");
    out->push_back(std::string(s.message()));
    return;
  }
  out->push_back("ok");
  out->push_back(data.op_def.SerializeAsString());
}

tensorflow::OpDef ParseOpDef(const std::string& bytes) {
  tensorflow::OpDef op_def;
  if (!op_def.ParseFromString(bytes)) throw ProtocolError("cannot parse OpDef bytes");
  return op_def;
}

void Register(Reader& r, Fields* out) {
  bool include_internal = r.NextInt() != 0;
  long long n = r.NextInt();
  std::vector<Spec> specs;
  for (long long i = 0; i < n; ++i) specs.push_back(ReadSpec(r));

  tensorflow::OpRegistry registry;  // starts un-initialized: registrations are deferred
  std::vector<std::string> statuses;
  // The watcher sees each registration's outcome (in order) and turns failures into OK so
  // that every spec gets processed; TF itself would stop at the first failure.
  absl::Status ws = registry.SetWatcher(
      [&statuses](const absl::Status& s, const tensorflow::OpDef&) {
        statuses.push_back(StatusText(s));
        return absl::OkStatus();
      });
  if (!ws.ok()) throw ProtocolError("SetWatcher: " + StatusText(ws));
  std::vector<std::string> build_errors(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    std::shared_ptr<OpDefBuilder> builder;
    try {
      builder = Build(specs[i]);
    } catch (const SpecError& e) {
      build_errors[i] = e.what();
      builder = std::make_shared<OpDefBuilder>(specs[i].name);
    }
    registry.Register([builder](tensorflow::OpRegistrationData* d) { return builder->Finalize(d); });
  }
  absl::Status ps = registry.ProcessRegistrations();
  if (!ps.ok()) throw ProtocolError("ProcessRegistrations: " + StatusText(ps));
  if (statuses.size() != specs.size()) throw ProtocolError("watcher missed registrations");
  for (size_t i = 0; i < specs.size(); ++i)
    out->push_back(build_errors[i].empty() ? statuses[i] : "harness error: " + build_errors[i]);
  (void)registry.SetWatcher(nullptr);
  tensorflow::OpList ops;
  registry.Export(include_internal, &ops);
  out->push_back(ops.SerializeAsString());
}

Fields Handle(const Fields& request) {
  Reader r(request);
  const std::string& cmd = r.Next();
  Fields out;
  if (cmd == "ping") {
    out.push_back("ok");
  } else if (cmd == "finalize") {
    long long n = r.NextInt();
    for (long long i = 0; i < n; ++i) FinalizeOne(ReadSpec(r), &out);
  } else if (cmd == "validate") {
    out.push_back(StatusText(tensorflow::ValidateOpDef(ParseOpDef(r.Next()))));
  } else if (cmd == "compat") {
    tensorflow::OpDef old_op = ParseOpDef(r.Next());
    tensorflow::OpDef new_op = ParseOpDef(r.Next());
    out.push_back(StatusText(tensorflow::OpDefCompatible(old_op, new_op)));
    out.push_back(StatusText(tensorflow::OpDefAttrDefaultsUnchanged(old_op, new_op)));
  } else if (cmd == "register") {
    Register(r, &out);
  } else {
    throw ProtocolError("unknown command '" + cmd + "'");
  }
  if (!r.Done()) throw ProtocolError("request has extra fields");
  return out;
}

}  // namespace

int main() {
  Fields request;
  try {
    while (ReadMessage(&request)) WriteMessage(Handle(request));
  } catch (const ProtocolError& e) {
    WriteMessage({std::string("protocol_error: ") + e.what()});
    return 1;
  }
  return 0;
}
