// Stands in for a third-party checkout the compiler needs and opgen never reads.
#ifndef RE2_RE2_H_
#define RE2_RE2_H_
namespace re2 {
inline bool FullMatch(const char* text, const char* pattern) { return text == pattern; }
}  // namespace re2
#endif  // RE2_RE2_H_
