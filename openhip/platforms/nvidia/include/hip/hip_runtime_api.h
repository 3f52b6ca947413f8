// openhip (NVIDIA): device-side view of the runtime API header (kernels need no host API).
#pragma once
#include <hip/hip_common.h>
#include <stddef.h>
#include <stdint.h>
