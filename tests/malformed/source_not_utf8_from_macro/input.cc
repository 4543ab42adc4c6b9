// Author: Jürgen
#define SUFFIX "ü"
REGISTER_OP("Foo").Attr("a: string = \"x" SUFFIX "\"");
