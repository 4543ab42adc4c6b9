// Included by every op file; its #if reads a flag of a generated header.
#pragma once
#include "gen/build_flags.h"
#if SHARED_FAST_PATH
#define SHARED_DOC "Runs the fast path."
#else
#define SHARED_DOC "Runs the slow path."
#endif
