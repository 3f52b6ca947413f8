// A template kernel launched without its template arguments (deduced): refused with a message.
template <typename T>
__global__ void fill(T *p, T v) { p[threadIdx.x] = v; }
int main() {
  float *p;
  cudaMalloc(&p, 32 * sizeof(float));
  fill<<<1, 32>>>(p, 1.0f);
  return 0;
}
