// A helper given a generic group syncs it (NVIDIA simpleCooperativeGroups style): the barrier inside sumReduction must be seen.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
using namespace cooperative_groups;
__device__ int sumReduction(thread_group g, int *x, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = val;
    g.sync();
    if (lane < i) val += x[lane + i];
    g.sync();
  }
  if (g.thread_rank() == 0) return val;
  else return -1;
}
extern "C" __global__ void cgkernel3(int* out) {
  thread_block threadBlockGroup = this_thread_block();
  extern __shared__ int workspace[];
  int input, output;
  input = threadBlockGroup.thread_rank();
  output = sumReduction(threadBlockGroup, workspace, input);
  if (threadBlockGroup.thread_rank() == 0) out[0] = output;
  threadBlockGroup.sync();
  thread_block_tile<16> tiledPartition16 = tiled_partition<16>(threadBlockGroup);
  int workspaceOffset = threadBlockGroup.thread_rank() - tiledPartition16.thread_rank();
  input = tiledPartition16.thread_rank();
  output = sumReduction(tiledPartition16, workspace + workspaceOffset, input);
  if (tiledPartition16.thread_rank() == 0) out[1 + threadBlockGroup.thread_rank() / 16] = output;
}
