// abort(), assert() and __trap() in "kernel" code reach openhip::detail::device_trap (defined here
// as the engine would), not the C library's abort.  argv[1] selects which.
#include <stdio.h>
#include <stdlib.h>
#include "openhip_cpu/intrinsics.h"
#include <cassert>

namespace openhip {
namespace detail {
[[noreturn]] void device_trap(const char* message) {
  printf("trapped: %s\n", message);
  fflush(stdout);
  _Exit(0);
}
}  // namespace detail
}  // namespace openhip

void kernel_body(int which, int i);

int main(int argc, char** argv) {
  kernel_body(argc > 1 ? atoi(argv[1]) : 0, 37);
  printf("no trap\n");
  return 0;
}
