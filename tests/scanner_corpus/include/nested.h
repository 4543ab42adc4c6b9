#pragma once
#define FROM_NESTED Attr("nested: int = 1")
REGISTER_OP("FromHeader").Output("y: float");
