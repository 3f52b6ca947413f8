// Matrix transposes in the style of the CUDA samples (6_Advanced/transpose): TILE_DIM x TILE_DIM
// tiles, BLOCK_ROWS rows of threads, a padded shared tile.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void copySharedMem(float *odata, float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index = xIndex + width * yIndex;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    if (xIndex < width && yIndex + i < height) {
      tile[(threadIdx.y + i) * TILE_DIM + threadIdx.x] = idata[index + i * width];
    }
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    if (xIndex < height && yIndex + i < width) {
      odata[index + i * width] = tile[(threadIdx.y + i) * TILE_DIM + threadIdx.x];
    }
  }
}

__global__ void transposeNaive(float *odata, float *idata, int width, int height) {
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i] = idata[index_in + i * width];
  }
}

__global__ void transposeCoalesced(float *odata, float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}

__global__ void transposeNoBankConflicts(float *odata, float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x, yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}
