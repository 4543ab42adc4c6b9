REGISTER_OP("Foo").Doc("café");
