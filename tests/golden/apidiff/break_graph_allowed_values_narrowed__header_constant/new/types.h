#pragma once
namespace myco {
// The types the element-wise ops take.
constexpr char kElementTypes[] =
    "T: {float, double}";
}  // namespace myco
