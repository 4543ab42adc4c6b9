#include "cyc_a.h"
