#include "tensorflow/core/framework/op.h"

// GNU comma elision: `, ## __VA_ARGS__` drops the comma only when the variadic argument
// is left out (g++ -std=c++17 keeps it for an empty argument); a non-empty argument
// follows the comma unpasted, whatever its first token.
#define TYPE_LIST(...) #__VA_ARGS__
#define TYPES(first, ...) "T: {" TYPE_LIST(first, ## __VA_ARGS__) "}"
#define NAMED_TYPES(first, rest...) "U: {" TYPE_LIST(first, ##rest) "}"
#define LOG_CALL(fmt, ...) Log(fmt, ##__VA_ARGS__)

// C++20 __VA_OPT__: its content only when the variadic argument expands to tokens.
#define WITH_DEFAULT(spec, ...) spec __VA_OPT__(" = " #__VA_ARGS__)
#define NOTHING
#define SUFFIXED(name, ...) #name __VA_OPT__(TYPE_LIST(_ ## __VA_ARGS__ ## _v))

// A parenthesised op name, built by a macro.
#define PREFIXED(N) ("Prefix" ">" #N)

// A raw string in a multi-line #define keeps its line splices.
#define SPLICED_DOC R"doc(Summary line. \
\
x: the input \
y: the output)doc"

void Kernel(int x) {
  LOG_CALL("plain");
  LOG_CALL("%d", const_cast<int&>(x));
}

REGISTER_OP(PREFIXED(Find))
    .Input("x: T")
    .Output("y: T")
    .Attr(TYPES(float))
    .Attr(TYPES(float, double, int32))
    .Attr(NAMED_TYPES(int64))
    .Attr(NAMED_TYPES(int64, int32))
    .Doc(SPLICED_DOC);

REGISTER_OP(("Paren"))
    .Attr(WITH_DEFAULT("a: int"))
    .Attr(WITH_DEFAULT("b: int", 2))
    .Attr(WITH_DEFAULT("c: int", NOTHING))
    .Attr(SUFFIXED(d))
    .Attr(SUFFIXED(d, x));

REGISTER_OP((("Double" "Paren")));
