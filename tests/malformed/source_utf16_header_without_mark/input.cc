#include "wide.h"
REGISTER_OP("Narrow").Output("y: float");
