// cuFile -> hipFile (tools/hipify_newer_maps.tsv, from newer HIPIFY's src/CUDA2HIP_FILE_API_*.cpp):
// the header, types, status values, functions; the ones hipFile lacks are kept (and reported).
// CHECK: #include "hipfile.h"
#include "cufile.h"

long io(int fd, void *buf, size_t n) {
  // CHECK: hipFileDescr_t descr;
  // CHECK-NEXT: hipFileHandle_t handle;
  CUfileDescr_t descr;
  CUfileHandle_t handle;
  // CHECK: descr.type = hipFileHandleTypeOpaqueFD;
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  // CHECK: hipFileError_t status = hipFileHandleRegister(&handle, &descr);
  CUfileError_t status = cuFileHandleRegister(&handle, &descr);
  // CHECK: if (status.err != hipFileSuccess) return -1;
  if (status.err != CU_FILE_SUCCESS) return -1;
  // CHECK: long got = hipFileRead(handle, buf, n, 0, 0);
  long got = cuFileRead(handle, buf, n, 0, 0);
  // CHECK: cuFileStatsStart();
  cuFileStatsStart();
  // CHECK: hipFileHandleDeregister(handle);
  cuFileHandleDeregister(handle);
  // CHECK: hipFileDriverClose();
  cuFileDriverClose_v2();
  return got;
}
