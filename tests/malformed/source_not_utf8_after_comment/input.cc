// Author: Jürgen Müller
REGISTER_OP("Foo").Output("y: float");
REGISTER_OP("Bar").Attr("a: string = \"Müller\"");
