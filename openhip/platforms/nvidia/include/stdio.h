// openhip (NVIDIA): NVRTC declares printf for device code itself; kernels may still include this.
#pragma once
