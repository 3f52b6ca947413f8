// openhip (NVIDIA): NVRTC declares malloc/free for device code itself; abort() comes with
// hip/hip_runtime.h (it traps).
#pragma once
