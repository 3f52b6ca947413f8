// openhip (NVIDIA): NVRTC declares memcpy/memset for device code itself.
#pragma once
