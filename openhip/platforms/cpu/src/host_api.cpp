// openhip CPU platform: the HIP host API of whole programs (include/openhip_cpu/host_api.h),
// over the runtime library's exported functions (runtime.cpp, linked into the same program).
//
//   * one device (0), described as the Python side describes it (platform.py);
//   * memory from ohcpu_malloc (red zones; a kernel writing past a buffer is reported by the
//     next synchronisation); host allocations come from the same allocator and are remembered
//     so that hipPointerGetAttributes can tell them apart;
//   * streams and events are the runtime's; the null stream follows CUDA's legacy semantics:
//     work queued on it waits for the blocking streams' earlier work and theirs for its, through
//     one internal event per stream;
//   * a stream callback (hipStreamAddCallback, hipLaunchHostFunc) is a one-block launch of an
//     entry point that calls it, so it runs in stream order like any other command;
//   * errors: every call sets the thread's last error (hipGetLastError); a fault in a kernel
//     leaves the device failed (the runtime's sticky state) and the first call that reports it
//     prints the runtime's description (kernel, block, thread, signal, address) to stderr.
#define OPENHIP_HOST_PROGRAM 1
#include <hip/hip_runtime.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

extern "C" {
int ohcpu_init(int threads, uint64_t stack_size, uint64_t dyn_shared_cap);
void ohcpu_install_fault_handlers();
void ohcpu_last_message(char* msg, int cap);
void* ohcpu_stream_create();
int ohcpu_stream_destroy(void* handle);
int ohcpu_stream_synchronize(void* handle, char* msg, int cap);
int ohcpu_stream_query(void* handle, char* msg, int cap);
int ohcpu_device_synchronize(char* msg, int cap);
int ohcpu_reset_device();
void ohcpu_shutdown();
void* ohcpu_event_create();
void ohcpu_event_destroy(void* e);
int ohcpu_event_record(void* event, void* stream);
int ohcpu_event_query(void* event);
int ohcpu_event_synchronize(void* event);
int ohcpu_event_elapsed(void* start, void* end, double* ms);
int ohcpu_stream_wait_event(void* stream, void* event);
void* ohcpu_malloc(uint64_t nbytes);
int ohcpu_free_checked(void* p, char* msg, int cap);
void ohcpu_register_kernel(void* entry, const char* name);
int ohcpu_memcpy(void* stream, void* dst, const void* src, uint64_t nbytes, int async);
int ohcpu_memset(void* stream, void* dst, int value, uint64_t nbytes, int async);
int ohcpu_launch(void* stream, void* entry, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx,
                 uint32_t by, uint32_t bz, uint64_t shared_mem, const unsigned char* buffer,
                 uint64_t nbytes, const void* const* pointers, uint32_t nargs);
int ohcpu_launch_cooperative(void* stream, void* entry, uint32_t gx, uint32_t gy, uint32_t gz,
                             uint32_t bx, uint32_t by, uint32_t bz, uint64_t shared_mem,
                             const unsigned char* buffer, uint64_t nbytes,
                             const void* const* pointers, uint32_t nargs);
}

namespace {

constexpr int kMsgCap = 1024;
constexpr uint64_t kDynSharedCapacity = 64ull << 20;  // as runtime_lib.py
constexpr size_t kSharedPerBlock = 64 * 1024;          // the device limit (platform.py)

thread_local hipError_t t_last = hipSuccess;

int cpu_threads() {
  const char* v = getenv("OPENHIP_CPU_THREADS");
  if (v != nullptr && *v) {
    const int n = atoi(v);
    if (n > 0) return n;
  }
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

uint64_t stack_size_bytes() {
  const char* v = getenv("OPENHIP_CPU_STACK_SIZE");
  if (v == nullptr || !*v) return 64 * 1024;
  char* end = nullptr;
  uint64_t n = strtoull(v, &end, 10);
  if (end != nullptr && (*end == 'k' || *end == 'K')) n <<= 10;
  if (end != nullptr && (*end == 'm' || *end == 'M')) n <<= 20;
  return n >= 16 * 1024 ? n : 64 * 1024;
}

std::once_flag g_init_once;
int g_threads = 1;
int g_device = 0;

void at_exit() { ohcpu_shutdown(); }

void init() {
  std::call_once(g_init_once, [] {
    g_threads = cpu_threads();
    ohcpu_init(g_threads, stack_size_bytes(), kDynSharedCapacity);
    ohcpu_install_fault_handlers();
    atexit(at_exit);
  });
}

// The runtime's report of a fault, printed once per failed state (the program's own check
// prints only the error's name).
std::mutex g_report_mu;
std::string g_reported;

void report(hipError_t rc, const char* routine, const char* msg) {
  if (rc != hipErrorIllegalAddress && rc != hipErrorLaunchFailure && rc != hipErrorAssert &&
      rc != hipErrorLaunchTimeOut && rc != hipErrorCooperativeLaunchTooLarge &&
      rc != hipErrorInvalidDeviceFunction)
    return;
  if (msg == nullptr || !*msg) return;
  std::lock_guard<std::mutex> lock(g_report_mu);
  // The sticky state's later reports repeat the first fault's text inside a longer message.
  if (!g_reported.empty() && strstr(msg, g_reported.c_str()) != nullptr) return;
  g_reported = msg;
  fprintf(stderr, "openhip: %s: %s: %s\n", routine, hipGetErrorName(rc), msg);
  fflush(stderr);
}

hipError_t ret(int rc) {
  if (rc != 0) t_last = static_cast<hipError_t>(rc);
  return static_cast<hipError_t>(rc);
}

// rc with the runtime's message for this thread's last call reported.
hipError_t ret_msg(int rc, const char* routine) {
  if (rc != 0) {
    char msg[kMsgCap];
    ohcpu_last_message(msg, kMsgCap);
    report(static_cast<hipError_t>(rc), routine, msg);
  }
  return ret(rc);
}

hipError_t ret_buf(int rc, const char* routine, const char* msg) {
  if (rc != 0) report(static_cast<hipError_t>(rc), routine, msg);
  return ret(rc);
}

// ---- memory bookkeeping --------------------------------------------------------------------------
struct Allocation {
  size_t size;
  hipMemoryType type;
  unsigned flags;
};
std::mutex g_mem_mu;
std::map<uintptr_t, Allocation> g_allocs;  // base -> allocation
// __device__/__constant__ variables: address -> size (filled by static initialisers, so
// constructed on first use)
std::map<uintptr_t, uint64_t>& globals() {
  static std::map<uintptr_t, uint64_t> table;
  return table;
}
std::mutex& globals_mu() {
  static std::mutex mu;
  return mu;
}

void* allocate(size_t size, hipMemoryType type, unsigned flags) {
  init();
  void* p = ohcpu_malloc(size);
  if (p == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(g_mem_mu);
  g_allocs[reinterpret_cast<uintptr_t>(p)] = Allocation{size ? size : 1, type, flags};
  return p;
}

// The allocation holding p (nullptr: none), its base in *base.
const Allocation* find_alloc(const void* p, uintptr_t* base) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.size) return nullptr;
  *base = it->first;
  return &it->second;
}

hipError_t release(void* p, bool host, const char* routine) {
  if (p == nullptr) return hipSuccess;
  init();
  {
    std::lock_guard<std::mutex> lock(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == g_allocs.end()) return ret(hipErrorInvalidValue);
    if (host != (it->second.type == hipMemoryTypeHost)) return ret(hipErrorInvalidValue);
    g_allocs.erase(it);
  }
  // As on a GPU, freeing waits for the work that may still use the memory.
  char msg[kMsgCap] = {0};
  const int sync = ohcpu_device_synchronize(msg, kMsgCap);
  if (sync != 0) report(static_cast<hipError_t>(sync), routine, msg);
  const int rc = ohcpu_free_checked(p, msg, kMsgCap);
  if (rc == 700) {
    fprintf(stderr, "openhip: %s: %s\n", routine, msg);
    return ret(hipErrorIllegalAddress);
  }
  return sync != 0 ? ret(sync) : ret(rc == 0 ? 0 : hipErrorInvalidValue);
}

// ---- streams ---------------------------------------------------------------------------------------
struct StreamInfo {
  unsigned flags;
  void* event;  // internal: orders it against the null stream
};
std::mutex g_streams_mu;
std::unordered_map<void*, StreamInfo> g_streams;
void* g_null_event = nullptr;

void* handle(hipStream_t s) { return reinterpret_cast<void*>(s); }

bool known_stream(hipStream_t s) {
  if (s == nullptr) return true;
  std::lock_guard<std::mutex> lock(g_streams_mu);
  return g_streams.count(handle(s)) != 0;
}

// Before work is queued on `s`: the legacy null stream's ordering (see the top of the file).
void order_before(hipStream_t s) {
  std::lock_guard<std::mutex> lock(g_streams_mu);
  if (g_streams.empty()) return;
  if (s == nullptr) {
    for (auto& kv : g_streams) {
      if (kv.second.flags & hipStreamNonBlocking) continue;
      ohcpu_event_record(kv.second.event, kv.first);
      ohcpu_stream_wait_event(nullptr, kv.second.event);
    }
  } else {
    auto it = g_streams.find(handle(s));
    if (it == g_streams.end() || (it->second.flags & hipStreamNonBlocking)) return;
    if (g_null_event == nullptr) g_null_event = ohcpu_event_create();
    ohcpu_event_record(g_null_event, nullptr);
    ohcpu_stream_wait_event(handle(s), g_null_event);
  }
}

// ---- retired runtime events ------------------------------------------------------------------------
// A destroyed event (the program's, or a destroyed stream's internal one) may still be named by
// a wait command queued on some stream: the runtime's object is kept until every stream has
// drained (a device synchronisation), then freed.
std::mutex g_retired_mu;
std::vector<void*> g_retired;

void retire_event(void* e) {
  std::lock_guard<std::mutex> lock(g_retired_mu);
  g_retired.push_back(e);
}

// The events retired so far; free them once a device synchronisation that started after this
// call has returned (every command queued before it has then run).
std::vector<void*> take_retired() {
  std::vector<void*> taken;
  std::lock_guard<std::mutex> lock(g_retired_mu);
  taken.swap(g_retired);
  return taken;
}
void free_retired(const std::vector<void*>& taken) {
  for (void* e : taken) ohcpu_event_destroy(e);
}

// ---- events ----------------------------------------------------------------------------------------
struct EventInfo {
  void* event;
  unsigned flags;
};

EventInfo* event_of(hipEvent_t e) { return reinterpret_cast<EventInfo*>(e); }

// ---- kernels --------------------------------------------------------------------------------------
struct KernelInfo {
  openhip_entry_fn entry;
  const char* name;
  std::vector<uint64_t> sizes;
};
std::mutex& kernels_mu() {
  static std::mutex mu;
  return mu;
}
std::unordered_map<const void*, KernelInfo>& kernels() {
  static std::unordered_map<const void*, KernelInfo> table;  // filled by static initialisers
  return table;
}
std::mutex g_named_mu;
std::unordered_set<void*> g_named;  // entries whose name the runtime knows (red-zone reports)

hipError_t check_config(dim3 grid, dim3 block, size_t shared) {
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535 || shared > kSharedPerBlock)
    return hipErrorInvalidConfiguration;
  return hipSuccess;
}

// The callback command: a one-block "kernel" that calls the host function.
struct HostCall {
  hipHostFn_t fn;
  hipStreamCallback_t callback;
  hipStream_t stream;
  void* data;
};
int host_call_entry(const openhip_launch* L, openhip_worker*, uint64_t, uint64_t) {
  HostCall call;
  memcpy(&call, L->args[0], sizeof call);
  if (call.fn != nullptr) {
    call.fn(call.data);
  } else {
    call.callback(call.stream, hipSuccess, call.data);
  }
  return 0;
}

hipError_t queue_host_call(hipStream_t stream, const HostCall& call) {
  init();
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  order_before(stream);
  const void* pointers[1] = {&call};
  return ret_msg(ohcpu_launch(handle(stream), reinterpret_cast<void*>(&host_call_entry), 1, 1, 1,
                              1, 1, 1, 0, reinterpret_cast<const unsigned char*>(&call),
                              sizeof call, pointers, 1),
                 "hipLaunchHostFunc");
}

// ---- device description ---------------------------------------------------------------------------
std::string read_file_line(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) return "";
  char buf[256] = {0};
  if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
  fclose(f);
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string cpuinfo_field(const char* key) {
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) return "";
  char line[512];
  std::string out;
  const size_t n = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncasecmp(line, key, n) == 0) {
      const char* colon = strchr(line, ':');
      if (colon) {
        out = colon + 1;
        while (!out.empty() && (out.front() == ' ' || out.front() == '\t')) out.erase(0, 1);
        while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
      }
      break;
    }
  }
  fclose(f);
  return out;
}

size_t cache_bytes(int index) {
  char path[128];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
  const std::string s = read_file_line(path);
  if (s.empty()) return 0;
  size_t v = strtoull(s.c_str(), nullptr, 10);
  if (s.back() == 'K') v <<= 10;
  if (s.back() == 'M') v <<= 20;
  return v;
}

const hipDeviceProp_t& properties() {
  static hipDeviceProp_t p = [] {
    hipDeviceProp_t d;
    memset(&d, 0, sizeof d);
    std::string name = cpuinfo_field("model name");
    if (name.empty()) name = cpuinfo_field("Hardware");
    if (name.empty()) name = "CPU";
    snprintf(d.name, sizeof d.name, "%s", name.c_str());
    snprintf(d.gcnArchName, sizeof d.gcnArchName, "openhip-cpu");
    const uint64_t phys = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
    d.totalGlobalMem = phys;
    d.sharedMemPerBlock = kSharedPerBlock;
    d.sharedMemPerBlockOptin = kSharedPerBlock;
    d.sharedMemPerMultiprocessor = kSharedPerBlock;
    d.maxSharedMemoryPerMultiProcessor = kSharedPerBlock;
    d.regsPerBlock = 65536;
    d.regsPerMultiprocessor = 65536;
    d.warpSize = 32;
    d.memPitch = 2147483647;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsDim[0] = 1024;
    d.maxThreadsDim[1] = 1024;
    d.maxThreadsDim[2] = 64;
    d.maxGridSize[0] = 2147483647;
    d.maxGridSize[1] = 65535;
    d.maxGridSize[2] = 65535;
    // clockRate is the rate of the device's clock() (CUDA code waits for clockRate * ms
    // ticks): on the CPU platform that is the C library's clock(), CLOCKS_PER_SEC;
    // clock64() counts CPU cycles, at clockInstructionRate.
    const double mhz = atof(cpuinfo_field("cpu MHz").c_str());
    d.clockRate = int(CLOCKS_PER_SEC / 1000);
    d.clockInstructionRate = mhz > 0 ? int(mhz * 1000) : 2000000;
    d.totalConstMem = 65536;
    d.major = 8;  // reported as a CUDA compute capability 8.0 device (sample code checks it)
    d.minor = 0;
    d.textureAlignment = 256;
    d.texturePitchAlignment = 256;
    d.surfaceAlignment = 256;
    d.deviceOverlap = 1;
    d.asyncEngineCount = 1;
    d.multiProcessorCount = g_threads;
    d.maxThreadsPerMultiProcessor = 1024;
    d.maxBlocksPerMultiProcessor = 1;
    d.kernelExecTimeoutEnabled = 0;
    d.integrated = 1;  // device memory is host memory
    d.canMapHostMemory = 1;
    d.computeMode = hipComputeModeDefault;
    d.concurrentKernels = 1;
    d.unifiedAddressing = 1;
    d.managedMemory = 1;
    d.concurrentManagedAccess = 1;
    d.pageableMemoryAccess = 1;
    d.pageableMemoryAccessUsesHostPageTables = 1;
    d.directManagedMemAccessFromHost = 1;
    d.hostNativeAtomicSupported = 1;
    d.canUseHostPointerForRegisteredMem = 1;
    d.hostRegisterSupported = 1;
    d.cooperativeLaunch = 1;
    d.cooperativeMultiDeviceLaunch = 0;
    d.globalL1CacheSupported = 1;
    d.localL1CacheSupported = 1;
    d.singleToDoublePrecisionPerfRatio = 2;
    d.memoryClockRate = 3200000;
    d.memoryBusWidth = 128;
    size_t l2 = cache_bytes(3);
    if (l2 == 0) l2 = cache_bytes(2);
    d.l2CacheSize = int(l2);
    d.gcnArch = 0;
    d.arch.hasGlobalInt32Atomics = d.arch.hasGlobalFloatAtomicExch = 1;
    d.arch.hasSharedInt32Atomics = d.arch.hasSharedFloatAtomicExch = 1;
    d.arch.hasFloatAtomicAdd = d.arch.hasGlobalInt64Atomics = d.arch.hasSharedInt64Atomics = 1;
    d.arch.hasDoubles = d.arch.hasWarpVote = d.arch.hasWarpBallot = d.arch.hasWarpShuffle = 1;
    d.arch.hasFunnelShift = d.arch.hasThreadFenceSystem = d.arch.hasSyncThreadsExt = 1;
    d.arch.has3dGrid = 1;
    return d;
  }();
  return p;
}

const char* const kNames[][3] = {
    // value, name, description
    {"0", "hipSuccess", "no error"},
    {"1", "hipErrorInvalidValue", "invalid argument"},
    {"2", "hipErrorOutOfMemory", "out of memory"},
    {"3", "hipErrorNotInitialized", "initialization error"},
    {"4", "hipErrorDeinitialized", "driver shutting down"},
    {"5", "hipErrorProfilerDisabled", "profiler disabled"},
    {"9", "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {"12", "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {"13", "hipErrorInvalidSymbol", "invalid device symbol"},
    {"17", "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {"21", "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {"35", "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {"52", "hipErrorMissingConfiguration", "__global__ function call is not configured"},
    {"98", "hipErrorInvalidDeviceFunction", "invalid device function"},
    {"100", "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {"101", "hipErrorInvalidDevice", "invalid device ordinal"},
    {"200", "hipErrorInvalidImage", "device kernel image is invalid"},
    {"201", "hipErrorInvalidContext", "invalid device context"},
    {"209", "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {"218", "hipErrorInvalidKernelFile", "invalid kernel file"},
    {"300", "hipErrorInvalidSource", "device kernel image is invalid"},
    {"301", "hipErrorFileNotFound", "file not found"},
    {"302", "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {"303", "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {"304", "hipErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {"400", "hipErrorInvalidHandle", "invalid resource handle"},
    {"401", "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {"500", "hipErrorNotFound", "named symbol not found"},
    {"600", "hipErrorNotReady", "device not ready"},
    {"700", "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {"701", "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {"702", "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {"704", "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {"705", "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {"710", "hipErrorAssert", "device-side assert triggered"},
    {"712", "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {"713", "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {"719", "hipErrorLaunchFailure", "unspecified launch failure"},
    {"720", "hipErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {"801", "hipErrorNotSupported", "operation not supported"},
    {"900", "hipErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {"999", "hipErrorUnknown", "unknown error"},
    {"1052", "hipErrorRuntimeOther", "runtime error"},
};

const char* const* error_entry(hipError_t e) {
  for (const auto& row : kNames) {
    if (atoi(row[0]) == int(e)) return row;
  }
  return nullptr;
}

hipError_t copy(void* dst, const void* src, size_t bytes, hipStream_t stream, bool async,
                const char* routine) {
  init();
  if (bytes == 0) return hipSuccess;
  if (dst == nullptr || src == nullptr) return ret(hipErrorInvalidValue);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  order_before(stream);
  int rc = ohcpu_memcpy(handle(stream), dst, src, bytes, 1);
  if (rc != 0) return ret_msg(rc, routine);
  if (!async) {
    char msg[kMsgCap] = {0};
    rc = ohcpu_stream_synchronize(handle(stream), msg, kMsgCap);
    return ret_buf(rc, routine, msg);
  }
  return hipSuccess;
}

hipError_t fill(void* dst, int value, size_t bytes, hipStream_t stream, bool async,
                const char* routine) {
  init();
  if (bytes == 0) return hipSuccess;
  if (dst == nullptr) return ret(hipErrorInvalidValue);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  order_before(stream);
  const int rc = ohcpu_memset(handle(stream), dst, value & 0xff, bytes, 1);
  if (rc != 0) return ret_msg(rc, routine);
  if (!async) {
    // hipMemset is asynchronous to the host for device memory, but the program may read the
    // memory from the host next (device memory is host memory here): wait.
    char msg[kMsgCap] = {0};
    return ret_buf(ohcpu_stream_synchronize(handle(stream), msg, kMsgCap), routine, msg);
  }
  return hipSuccess;
}

hipError_t sync_all(const char* routine) {
  init();
  char msg[kMsgCap] = {0};
  const std::vector<void*> retired = take_retired();
  const int rc = ohcpu_device_synchronize(msg, kMsgCap);
  free_retired(retired);
  return ret_buf(rc, routine, msg);
}

}  // namespace

// ---- devices ---------------------------------------------------------------------------------------
hipError_t hipInit(unsigned flags) {
  init();
  return flags == 0 ? hipSuccess : ret(hipErrorInvalidValue);
}
hipError_t hipGetDeviceCount(int* count) {
  init();
  if (count == nullptr) return ret(hipErrorInvalidValue);
  *count = 1;
  return hipSuccess;
}
hipError_t hipSetDevice(int device) {
  init();
  if (device != 0) return ret(hipErrorInvalidDevice);
  g_device = device;
  return hipSuccess;
}
hipError_t hipGetDevice(int* device) {
  if (device == nullptr) return ret(hipErrorInvalidValue);
  *device = g_device;
  return hipSuccess;
}
hipError_t hipSetDeviceFlags(unsigned) { return hipSuccess; }
hipError_t hipGetDeviceFlags(unsigned* flags) {
  if (flags == nullptr) return ret(hipErrorInvalidValue);
  *flags = 0;
  return hipSuccess;
}
hipError_t hipChooseDevice(int* device, const hipDeviceProp_t*) {
  if (device == nullptr) return ret(hipErrorInvalidValue);
  *device = 0;
  return hipSuccess;
}
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  init();
  if (prop == nullptr) return ret(hipErrorInvalidValue);
  if (device != 0) return ret(hipErrorInvalidDevice);
  *prop = properties();
  return hipSuccess;
}
hipError_t hipDeviceGetName(char* name, int len, int device) {
  if (name == nullptr || len <= 0) return ret(hipErrorInvalidValue);
  if (device != 0) return ret(hipErrorInvalidDevice);
  init();
  snprintf(name, size_t(len), "%s", properties().name);
  return hipSuccess;
}
hipError_t hipDeviceTotalMem(size_t* bytes, int device) {
  if (bytes == nullptr) return ret(hipErrorInvalidValue);
  if (device != 0) return ret(hipErrorInvalidDevice);
  init();
  *bytes = properties().totalGlobalMem;
  return hipSuccess;
}
hipError_t hipDeviceComputeCapability(int* major, int* minor, int device) {
  if (major == nullptr || minor == nullptr) return ret(hipErrorInvalidValue);
  if (device != 0) return ret(hipErrorInvalidDevice);
  init();
  *major = properties().major;
  *minor = properties().minor;
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
  init();
  if (value == nullptr) return ret(hipErrorInvalidValue);
  if (device != 0) return ret(hipErrorInvalidDevice);
  const hipDeviceProp_t& p = properties();
  switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case hipDeviceAttributeSharedMemPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case hipDeviceAttributeTotalConstantMemory: *value = int(p.totalConstMem); break;
    case hipDeviceAttributeWarpSize: *value = p.warpSize; break;
    case hipDeviceAttributeMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case hipDeviceAttributeClockRate: *value = p.clockRate; break;
    case hipDeviceAttributeMemoryClockRate: *value = p.memoryClockRate; break;
    case hipDeviceAttributeMemoryBusWidth: *value = p.memoryBusWidth; break;
    case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; break;
    case hipDeviceAttributeComputeMode: *value = p.computeMode; break;
    case hipDeviceAttributeL2CacheSize: *value = p.l2CacheSize; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
    case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; break;
    case hipDeviceAttributePciBusId: *value = p.pciBusID; break;
    case hipDeviceAttributePciDeviceId: *value = p.pciDeviceID; break;
    case hipDeviceAttributePciDomainID: *value = p.pciDomainID; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
      *value = int(p.sharedMemPerMultiprocessor);
      break;
    case hipDeviceAttributeIsMultiGpuBoard: *value = 0; break;
    case hipDeviceAttributeIntegrated: *value = p.integrated; break;
    case hipDeviceAttributeCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch: *value = 0; break;
    case hipDeviceAttributeMaxPitch: *value = int(p.memPitch); break;
    case hipDeviceAttributeTextureAlignment: *value = int(p.textureAlignment); break;
    case hipDeviceAttributeTexturePitchAlignment: *value = int(p.texturePitchAlignment); break;
    case hipDeviceAttributeKernelExecTimeout: *value = 0; break;
    case hipDeviceAttributeCanMapHostMemory: *value = 1; break;
    case hipDeviceAttributeEccEnabled: *value = 0; break;
    case hipDeviceAttributeManagedMemory: *value = 1; break;
    case hipDeviceAttributeDirectManagedMemAccessFromHost: *value = 1; break;
    case hipDeviceAttributeConcurrentManagedAccess: *value = 1; break;
    case hipDeviceAttributePageableMemoryAccess: *value = 1; break;
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables: *value = 1; break;
    case hipDeviceAttributeUnifiedAddressing: *value = 1; break;
    case hipDeviceAttributeAsyncEngineCount: *value = p.asyncEngineCount; break;
    case hipDeviceAttributeStreamPrioritiesSupported: *value = 0; break;
    case hipDeviceAttributeGlobalL1CacheSupported: *value = 1; break;
    case hipDeviceAttributeLocalL1CacheSupported: *value = 1; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor: *value = p.maxBlocksPerMultiProcessor; break;
    case hipDeviceAttributeHostNativeAtomicSupported: *value = 1; break;
    case hipDeviceAttributeComputePreemptionSupported: *value = 0; break;
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem: *value = 1; break;
    case hipDeviceAttributeMemoryPoolsSupported: *value = 0; break;
    case hipDeviceAttributeHostRegisterSupported: *value = 1; break;
    case hipDeviceAttributeTccDriver: *value = 0; break;
    case hipDeviceAttributeSingleToDoublePrecisionPerfRatio:
      *value = p.singleToDoublePrecisionPerfRatio;
      break;
    case hipDeviceAttributeDeviceOverlap: *value = 1; break;
    default: return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}
hipError_t hipDeviceSynchronize(void) { return sync_all("hipDeviceSynchronize"); }
hipError_t hipDeviceReset(void) {
  init();
  char msg[kMsgCap] = {0};
  const std::vector<void*> retired = take_retired();
  (void)ohcpu_device_synchronize(msg, kMsgCap);
  free_retired(retired);
  {
    std::lock_guard<std::mutex> lock(g_report_mu);
    g_reported.clear();
  }
  t_last = hipSuccess;
  return ret_msg(ohcpu_reset_device(), "hipDeviceReset");
}
hipError_t hipDeviceGetLimit(size_t* value, hipLimit_t limit) {
  if (value == nullptr) return ret(hipErrorInvalidValue);
  switch (limit) {
    case hipLimitStackSize: *value = stack_size_bytes(); break;
    case hipLimitPrintfFifoSize: *value = 1 << 20; break;
    case hipLimitMallocHeapSize: *value = properties().totalGlobalMem; break;
    default: return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}
// Limits are the host's: stack sizes come from OPENHIP_CPU_STACK_SIZE, printf writes directly.
hipError_t hipDeviceSetLimit(hipLimit_t limit, size_t) {
  return limit <= hipLimitMallocHeapSize ? hipSuccess : ret(hipErrorInvalidValue);
}
hipError_t hipDeviceSetCacheConfig(hipFuncCache_t) { return hipSuccess; }
hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* config) {
  if (config == nullptr) return ret(hipErrorInvalidValue);
  *config = hipFuncCachePreferNone;
  return hipSuccess;
}
hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig) { return hipSuccess; }
hipError_t hipDeviceCanAccessPeer(int* can, int device, int peer) {
  if (can == nullptr) return ret(hipErrorInvalidValue);
  if (device != 0 || peer != 0) return ret(hipErrorInvalidDevice);
  *can = 0;
  return hipSuccess;
}
hipError_t hipDeviceEnablePeerAccess(int, unsigned) { return ret(hipErrorInvalidDevice); }
hipError_t hipDeviceDisablePeerAccess(int) { return ret(hipErrorPeerAccessNotEnabled); }
hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return hipSuccess;
}
hipError_t hipDriverGetVersion(int* version) {
  if (version == nullptr) return ret(hipErrorInvalidValue);
  *version = HIP_VERSION;
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int* version) {
  if (version == nullptr) return ret(hipErrorInvalidValue);
  *version = HIP_VERSION;
  return hipSuccess;
}

// ---- errors ----------------------------------------------------------------------------------------
hipError_t hipGetLastError(void) {
  const hipError_t e = t_last;
  t_last = hipSuccess;
  return e;
}
hipError_t hipPeekAtLastError(void) { return t_last; }
const char* hipGetErrorName(hipError_t error) {
  const char* const* row = error_entry(error);
  return row ? row[1] : "hipErrorUnknown";
}
const char* hipGetErrorString(hipError_t error) {
  const char* const* row = error_entry(error);
  return row ? row[2] : "unknown error";
}
hipError_t __openhip_set_last_error(hipError_t error) { return ret(error); }

// ---- memory ----------------------------------------------------------------------------------------
hipError_t hipMalloc(void** ptr, size_t size) {
  if (ptr == nullptr) return ret(hipErrorInvalidValue);
  if (size == 0) {
    *ptr = nullptr;
    return hipSuccess;
  }
  *ptr = allocate(size, hipMemoryTypeDevice, 0);
  return *ptr ? hipSuccess : ret(hipErrorOutOfMemory);
}
hipError_t hipMallocManaged(void** ptr, size_t size, unsigned flags) {
  if (ptr == nullptr || size == 0) return ret(hipErrorInvalidValue);
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost) return ret(hipErrorInvalidValue);
  *ptr = allocate(size, hipMemoryTypeManaged, flags);
  return *ptr ? hipSuccess : ret(hipErrorOutOfMemory);
}
hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (ptr == nullptr || pitch == nullptr) return ret(hipErrorInvalidValue);
  *pitch = (width + 255) & ~size_t(255);
  if (*pitch * height == 0) {
    *ptr = nullptr;
    return hipSuccess;
  }
  *ptr = allocate(*pitch * height, hipMemoryTypeDevice, 0);
  return *ptr ? hipSuccess : ret(hipErrorOutOfMemory);
}
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned flags) {
  if (ptr == nullptr) return ret(hipErrorInvalidValue);
  if (size == 0) {
    *ptr = nullptr;
    return hipSuccess;
  }
  *ptr = allocate(size, hipMemoryTypeHost, flags);
  return *ptr ? hipSuccess : ret(hipErrorOutOfMemory);
}
hipError_t hipMallocHost(void** ptr, size_t size) { return hipHostMalloc(ptr, size, 0); }
hipError_t hipHostAlloc(void** ptr, size_t size, unsigned flags) {
  return hipHostMalloc(ptr, size, flags);
}
hipError_t hipFree(void* ptr) { return release(ptr, false, "hipFree"); }
hipError_t hipHostFree(void* ptr) { return release(ptr, true, "hipHostFree"); }
hipError_t hipFreeHost(void* ptr) { return release(ptr, true, "hipFreeHost"); }
// Registering host memory changes nothing: kernels reach any host address.
hipError_t hipHostRegister(void* ptr, size_t size, unsigned) {
  return ptr != nullptr && size != 0 ? hipSuccess : ret(hipErrorInvalidValue);
}
hipError_t hipHostUnregister(void* ptr) {
  return ptr != nullptr ? hipSuccess : ret(hipErrorInvalidValue);
}
hipError_t hipHostGetDevicePointer(void** dev, void* host, unsigned) {
  if (dev == nullptr || host == nullptr) return ret(hipErrorInvalidValue);
  *dev = host;
  return hipSuccess;
}
hipError_t hipHostGetFlags(unsigned* flags, void* host) {
  if (flags == nullptr) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_mem_mu);
  uintptr_t base = 0;
  const Allocation* a = find_alloc(host, &base);
  if (a == nullptr || a->type != hipMemoryTypeHost) return ret(hipErrorInvalidValue);
  *flags = a->flags;
  return hipSuccess;
}
hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  init();
  if (free_bytes == nullptr || total_bytes == nullptr) return ret(hipErrorInvalidValue);
  *total_bytes = properties().totalGlobalMem;
  size_t avail = *total_bytes;
  FILE* f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    while (fgets(line, sizeof line, f)) {
      unsigned long long kb;
      if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = size_t(kb) * 1024;
    }
    fclose(f);
  }
  *free_bytes = avail < *total_bytes ? avail : *total_bytes;
  return hipSuccess;
}
hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attr, const void* ptr) {
  if (attr == nullptr || ptr == nullptr) return ret(hipErrorInvalidValue);
  memset(attr, 0, sizeof *attr);
  std::lock_guard<std::mutex> lock(g_mem_mu);
  uintptr_t base = 0;
  const Allocation* a = find_alloc(ptr, &base);
  if (a == nullptr) {
    // Plain host memory (pageable): CUDA 11+ reports it unregistered, without an error.
    attr->type = hipMemoryTypeUnregistered;
    attr->device = -2;
    return hipSuccess;
  }
  attr->type = a->type;
  attr->device = 0;
  attr->devicePointer = const_cast<void*>(ptr);
  attr->hostPointer = const_cast<void*>(ptr);
  attr->isManaged = a->type == hipMemoryTypeManaged;
  attr->allocationFlags = a->flags;
  return hipSuccess;
}
hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  if (unsigned(kind) > hipMemcpyDefault) return ret(hipErrorInvalidMemcpyDirection);
  return copy(dst, src, bytes, nullptr, false, "hipMemcpy");
}
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind,
                          hipStream_t stream) {
  if (unsigned(kind) > hipMemcpyDefault) return ret(hipErrorInvalidMemcpyDirection);
  return copy(dst, src, bytes, stream, true, "hipMemcpyAsync");
}
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t bytes) {
  return copy(dst, src, bytes, nullptr, false, "hipMemcpyHtoD");
}
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  return copy(dst, src, bytes, nullptr, false, "hipMemcpyDtoH");
}
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  return copy(dst, src, bytes, nullptr, false, "hipMemcpyDtoD");
}
hipError_t hipMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                         size_t bytes) {
  if (dst_device != 0 || src_device != 0) return ret(hipErrorInvalidDevice);
  return copy(dst, src, bytes, nullptr, false, "hipMemcpyPeer");
}
hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                            size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream) {
  if (unsigned(kind) > hipMemcpyDefault) return ret(hipErrorInvalidMemcpyDirection);
  if (width > dpitch || width > spitch) return ret(hipErrorInvalidPitchValue);
  if (width == 0 || height == 0) return hipSuccess;
  if (dpitch == width && spitch == width)
    return copy(dst, src, width * height, stream, true, "hipMemcpy2D");
  for (size_t row = 0; row < height; ++row) {
    const hipError_t rc = copy(static_cast<char*>(dst) + row * dpitch,
                               static_cast<const char*>(src) + row * spitch, width, stream, true,
                               "hipMemcpy2D");
    if (rc != hipSuccess) return rc;
  }
  return hipSuccess;
}
hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind) {
  const hipError_t rc = hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, nullptr);
  if (rc != hipSuccess) return rc;
  char msg[kMsgCap] = {0};
  return ret_buf(ohcpu_stream_synchronize(nullptr, msg, kMsgCap), "hipMemcpy2D", msg);
}
hipError_t hipMemset(void* dst, int value, size_t bytes) {
  return fill(dst, value, bytes, nullptr, false, "hipMemset");
}
hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream) {
  return fill(dst, value, bytes, stream, true, "hipMemsetAsync");
}
hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count) {
  return fill(dst, value, count, nullptr, false, "hipMemsetD8");
}
namespace {
template <class T>
hipError_t fill_words(void* dst, T value, size_t count, const char* routine) {
  if (count == 0) return hipSuccess;
  if (dst == nullptr || reinterpret_cast<uintptr_t>(dst) % sizeof(T) != 0)
    return ret(hipErrorInvalidValue);
  const hipError_t rc = sync_all(routine);
  if (rc != hipSuccess) return rc;
  T* p = static_cast<T*>(dst);
  for (size_t i = 0; i < count; ++i) p[i] = value;
  return hipSuccess;
}
}  // namespace
hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count) {
  return fill_words<unsigned short>(dst, value, count, "hipMemsetD16");
}
hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  return fill_words<int>(dst, value, count, "hipMemsetD32");
}
hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  if (width > pitch) return ret(hipErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    const hipError_t rc = fill(static_cast<char*>(dst) + row * pitch, value, width, nullptr, true,
                               "hipMemset2D");
    if (rc != hipSuccess) return rc;
  }
  char msg[kMsgCap] = {0};
  return ret_buf(ohcpu_stream_synchronize(nullptr, msg, kMsgCap), "hipMemset2D", msg);
}
// Memory is the host's: nothing to move, nothing to advise.
hipError_t hipMemPrefetchAsync(const void*, size_t, int device, hipStream_t stream) {
  if (device != 0 && device != hipCpuDeviceId) return ret(hipErrorInvalidDevice);
  return known_stream(stream) ? hipSuccess : ret(hipErrorInvalidHandle);
}
hipError_t hipMemAdvise(const void* ptr, size_t, int, int) {
  return ptr != nullptr ? hipSuccess : ret(hipErrorInvalidValue);
}
hipError_t hipStreamAttachMemAsync(hipStream_t stream, void*, size_t, unsigned) {
  return known_stream(stream) ? hipSuccess : ret(hipErrorInvalidHandle);
}

void __openhip_register_global(const void* address, uint64_t size) {
  std::lock_guard<std::mutex> lock(globals_mu());
  globals()[reinterpret_cast<uintptr_t>(address)] = size;
}
hipError_t __openhip_symbol_lookup(const void* symbol, size_t* size) {
  std::lock_guard<std::mutex> lock(globals_mu());
  auto it = globals().find(reinterpret_cast<uintptr_t>(symbol));
  if (it == globals().end()) return hipErrorInvalidSymbol;
  *size = it->second;
  return hipSuccess;
}
hipError_t __openhip_symbol_copy(const void* symbol, size_t symbol_size, void* dst,
                                 const void* src, size_t bytes, size_t offset, int to_symbol,
                                 hipStream_t stream, int async) {
  if (symbol == nullptr) return ret(hipErrorInvalidSymbol);
  if (symbol_size == 0 && __openhip_symbol_lookup(symbol, &symbol_size) != hipSuccess)
    return ret(hipErrorInvalidSymbol);
  if (offset > symbol_size || bytes > symbol_size - offset) return ret(hipErrorInvalidValue);
  char* at = const_cast<char*>(static_cast<const char*>(symbol)) + offset;
  const char* routine = to_symbol ? "hipMemcpyToSymbol" : "hipMemcpyFromSymbol";
  return to_symbol ? copy(at, src, bytes, stream, async != 0, routine)
                   : copy(dst, at, bytes, stream, async != 0, routine);
}

// ---- streams and events ---------------------------------------------------------------------------
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned flags) {
  init();
  if (stream == nullptr || flags > hipStreamNonBlocking) return ret(hipErrorInvalidValue);
  void* h = ohcpu_stream_create();
  if (h == nullptr) return ret(hipErrorOutOfMemory);
  std::lock_guard<std::mutex> lock(g_streams_mu);
  g_streams[h] = StreamInfo{flags, ohcpu_event_create()};
  *stream = reinterpret_cast<hipStream_t>(h);
  return hipSuccess;
}
hipError_t hipStreamCreate(hipStream_t* stream) {
  return hipStreamCreateWithFlags(stream, hipStreamDefault);
}
hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned flags, int) {
  return hipStreamCreateWithFlags(stream, flags);
}
hipError_t hipStreamDestroy(hipStream_t stream) {
  init();
  if (stream == nullptr) return ret(hipErrorInvalidHandle);
  void* event = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    auto it = g_streams.find(handle(stream));
    if (it == g_streams.end()) return ret(hipErrorInvalidHandle);
    event = it->second.event;
    g_streams.erase(it);
  }
  const hipError_t rc = ret_msg(ohcpu_stream_destroy(handle(stream)), "hipStreamDestroy");
  retire_event(event);  // the null stream may still have a wait on it queued
  return rc;
}
hipError_t hipStreamSynchronize(hipStream_t stream) {
  init();
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  char msg[kMsgCap] = {0};
  if (stream == nullptr) {
    // the legacy null stream: its work waited for the blocking streams' earlier work
    order_before(nullptr);
  }
  return ret_buf(ohcpu_stream_synchronize(handle(stream), msg, kMsgCap), "hipStreamSynchronize",
                 msg);
}
hipError_t hipStreamQuery(hipStream_t stream) {
  init();
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  char msg[kMsgCap] = {0};
  const int rc = ohcpu_stream_query(handle(stream), msg, kMsgCap);
  if (rc == hipErrorNotReady) return hipErrorNotReady;  // not an error: not sticky
  return ret_buf(rc, "hipStreamQuery", msg);
}
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned flags) {
  init();
  if (event == nullptr || flags != 0) return ret(hipErrorInvalidValue);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  return ret_msg(ohcpu_stream_wait_event(handle(stream), event_of(event)->event),
                 "hipStreamWaitEvent");
}
hipError_t hipStreamGetFlags(hipStream_t stream, unsigned* flags) {
  if (flags == nullptr) return ret(hipErrorInvalidValue);
  if (stream == nullptr) {
    *flags = 0;
    return hipSuccess;
  }
  std::lock_guard<std::mutex> lock(g_streams_mu);
  auto it = g_streams.find(handle(stream));
  if (it == g_streams.end()) return ret(hipErrorInvalidHandle);
  *flags = it->second.flags;
  return hipSuccess;
}
hipError_t hipStreamGetPriority(hipStream_t stream, int* priority) {
  if (priority == nullptr) return ret(hipErrorInvalidValue);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  *priority = 0;
  return hipSuccess;
}
hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* user_data,
                                unsigned flags) {
  if (callback == nullptr || flags != 0) return ret(hipErrorInvalidValue);
  return queue_host_call(stream, HostCall{nullptr, callback, stream, user_data});
}
hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* user_data) {
  if (fn == nullptr) return ret(hipErrorInvalidValue);
  return queue_host_call(stream, HostCall{fn, nullptr, stream, user_data});
}

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  init();
  if (event == nullptr || (flags & ~unsigned(hipEventBlockingSync | hipEventDisableTiming |
                                             hipEventInterprocess)))
    return ret(hipErrorInvalidValue);
  if (flags & hipEventInterprocess) return ret(hipErrorNotSupported);
  EventInfo* e = new EventInfo{ohcpu_event_create(), flags};
  *event = reinterpret_cast<hipEvent_t>(e);
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t* event) { return hipEventCreateWithFlags(event, 0); }
hipError_t hipEventDestroy(hipEvent_t event) {
  if (event == nullptr) return ret(hipErrorInvalidHandle);
  EventInfo* e = event_of(event);
  (void)ohcpu_event_synchronize(e->event);  // its queued records complete first
  retire_event(e->event);                   // queued waits may still name it
  delete e;
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  init();
  if (event == nullptr) return ret(hipErrorInvalidHandle);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  order_before(stream);
  return ret_msg(ohcpu_event_record(event_of(event)->event, handle(stream)), "hipEventRecord");
}
hipError_t hipEventSynchronize(hipEvent_t event) {
  if (event == nullptr) return ret(hipErrorInvalidHandle);
  return ret_msg(ohcpu_event_synchronize(event_of(event)->event), "hipEventSynchronize");
}
hipError_t hipEventQuery(hipEvent_t event) {
  if (event == nullptr) return ret(hipErrorInvalidHandle);
  const int rc = ohcpu_event_query(event_of(event)->event);
  if (rc == hipErrorNotReady) return hipErrorNotReady;
  return ret_msg(rc, "hipEventQuery");
}
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (ms == nullptr) return ret(hipErrorInvalidValue);
  if (start == nullptr || stop == nullptr) return ret(hipErrorInvalidHandle);
  if ((event_of(start)->flags | event_of(stop)->flags) & hipEventDisableTiming)
    return ret(hipErrorInvalidHandle);
  double v = 0;
  const int rc = ohcpu_event_elapsed(event_of(start)->event, event_of(stop)->event, &v);
  if (rc != 0) return ret(rc);
  *ms = float(v);
  return hipSuccess;
}

// ---- kernels ---------------------------------------------------------------------------------------
void __openhip_register_kernel(const void* kernel, openhip_entry_fn entry, const char* name,
                               unsigned nparams, const uint64_t* sizes) {
  std::lock_guard<std::mutex> lock(kernels_mu());
  KernelInfo& k = kernels()[kernel];
  k.entry = entry;
  k.name = name;
  k.sizes.assign(sizes, sizes + nparams);
}

hipError_t __openhip_launch(openhip_entry_fn entry, const char* name, dim3 grid, dim3 block,
                            size_t shared_mem, hipStream_t stream, const unsigned char* buffer,
                            uint64_t nbytes, const void* const* pointers, unsigned nargs,
                            int cooperative) {
  init();
  if (const hipError_t bad = check_config(grid, block, shared_mem)) return ret(bad);
  if (!known_stream(stream)) return ret(hipErrorInvalidHandle);
  {
    std::lock_guard<std::mutex> lock(g_named_mu);
    if (g_named.insert(reinterpret_cast<void*>(entry)).second)
      ohcpu_register_kernel(reinterpret_cast<void*>(entry), name);
  }
  order_before(stream);
  const int rc = (cooperative ? ohcpu_launch_cooperative : ohcpu_launch)(
      handle(stream), reinterpret_cast<void*>(entry), grid.x, grid.y, grid.z, block.x, block.y,
      block.z, shared_mem, buffer, nbytes, pointers, nargs);
  return ret_msg(rc, cooperative ? "hipLaunchCooperativeKernel" : "hipLaunchKernel");
}

hipError_t __openhip_launch_by_address(const void* kernel, const char* name, dim3 grid,
                                       dim3 block, size_t shared_mem, hipStream_t stream,
                                       void** args, int cooperative) {
  KernelInfo info;
  {
    std::lock_guard<std::mutex> lock(kernels_mu());
    auto it = kernels().find(kernel);
    if (it == kernels().end()) {
      fprintf(stderr, "openhip: launch of %s: not a kernel of this program that openhip knows "
              "(a template kernel launched only through a pointer needs one launch with its "
              "template arguments written out)\n", name ? name : "a kernel");
      return ret(hipErrorInvalidDeviceFunction);
    }
    info = it->second;
  }
  if (args == nullptr && !info.sizes.empty()) return ret(hipErrorInvalidValue);
  // The argument bytes, each at its natural alignment (at most 16).
  std::vector<uint64_t> offsets(info.sizes.size());
  uint64_t total = 0;
  for (size_t i = 0; i < info.sizes.size(); ++i) {
    uint64_t align = 1;
    while (align < info.sizes[i] && align < 16) align <<= 1;
    total = (total + align - 1) & ~(align - 1);
    offsets[i] = total;
    total += info.sizes[i];
  }
  std::vector<unsigned char> buffer(total ? total : 1);
  std::vector<const void*> pointers(info.sizes.size() + 1);
  for (size_t i = 0; i < info.sizes.size(); ++i) {
    memcpy(buffer.data() + offsets[i], args[i], info.sizes[i]);
    pointers[i] = buffer.data() + offsets[i];
  }
  return __openhip_launch(info.entry, info.name, grid, block, shared_mem, stream, buffer.data(),
                          total, pointers.data(), unsigned(info.sizes.size()), cooperative);
}

hipError_t hipLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                      unsigned shared_mem, hipStream_t stream) {
  return __openhip_launch_by_address(func, "hipLaunchCooperativeKernel", grid, block, shared_mem,
                                     stream, args, 1);
}
hipError_t hipLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                           size_t shared_mem, hipStream_t stream) {
  return __openhip_launch_by_address(func, "hipLaunchKernel", grid, block, shared_mem, stream,
                                     args, 0);
}

namespace {
bool known_kernel(const void* func) {
  std::lock_guard<std::mutex> lock(kernels_mu());
  return kernels().count(func) != 0;
}
}  // namespace

hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return ret(hipErrorInvalidValue);
  if (!known_kernel(func)) return ret(hipErrorInvalidDeviceFunction);
  memset(attr, 0, sizeof *attr);
  attr->binaryVersion = 80;
  attr->ptxVersion = 80;
  attr->maxThreadsPerBlock = 1024;
  attr->maxDynamicSharedSizeBytes = int(kSharedPerBlock);
  attr->numRegs = 32;
  return hipSuccess;
}
hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  if (!known_kernel(func)) return ret(hipErrorInvalidDeviceFunction);
  if (attr == hipFuncAttributeMaxDynamicSharedMemorySize &&
      (value < 0 || size_t(value) > kSharedPerBlock))
    return ret(hipErrorInvalidValue);
  return hipSuccess;
}
hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t) {
  return known_kernel(func) ? hipSuccess : ret(hipErrorInvalidDeviceFunction);
}
hipError_t hipFuncSetSharedMemConfig(const void* func, hipSharedMemConfig) {
  return known_kernel(func) ? hipSuccess : ret(hipErrorInvalidDeviceFunction);
}
// One block runs at a time on each worker thread (a "multiprocessor").
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func,
                                                        int block_size, size_t dynamic_shared) {
  if (blocks == nullptr || block_size <= 0 || block_size > 1024) return ret(hipErrorInvalidValue);
  if (!known_kernel(func)) return ret(hipErrorInvalidDeviceFunction);
  *blocks = dynamic_shared <= kSharedPerBlock ? 1 : 0;
  return hipSuccess;
}
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func,
                                                                 int block_size,
                                                                 size_t dynamic_shared,
                                                                 unsigned) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, dynamic_shared);
}
hipError_t hipOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size, const void* func,
                                             size_t dynamic_shared, int block_limit) {
  if (grid_size == nullptr || block_size == nullptr) return ret(hipErrorInvalidValue);
  if (!known_kernel(func)) return ret(hipErrorInvalidDeviceFunction);
  if (dynamic_shared > kSharedPerBlock) return ret(hipErrorInvalidValue);
  init();
  int b = 256;
  if (block_limit > 0 && block_limit < b) b = block_limit;
  *block_size = b;
  *grid_size = g_threads;
  return hipSuccess;
}
