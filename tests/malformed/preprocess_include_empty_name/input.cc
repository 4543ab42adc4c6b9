#include ""
REGISTER_OP("MyOp").Output("y: float");
