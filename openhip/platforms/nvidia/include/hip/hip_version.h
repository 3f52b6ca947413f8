#pragma once
#include <hip/hip_common.h>
