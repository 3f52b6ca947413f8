// A host-only source file of the program.
#include "multi.h"
float host_helper(float v) { return v * 2.0f; }
