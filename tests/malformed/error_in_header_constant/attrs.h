#pragma once
namespace myco {
// The attr specs several ops share.
constexpr char kFloatTypes[] = "T: {flot, double}";
}  // namespace myco
