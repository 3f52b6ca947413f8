// Second translation unit of trap_test: the weak hidden abort/__assert_fail definitions of
// intrinsics.h appear in both units and must link without clashes.
#include <cassert>
#include "openhip_cpu/intrinsics.h"

void kernel_body(int which, int i) {
  if (which == 1) __trap();
  if (which == 2) abort();
  if (which == 3) assert(i != 37);
}
