#include "cyc_b.h"
