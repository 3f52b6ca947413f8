// openhip: name_expressions = oh_quantize<0>, oh_quantize<1>, oh_quantize<30>, oh_quantize<8>, oh_quantize<2>, oh_quantize<3>, oh_quantize<6>, oh_quantize<7>, oh_quantize<12>, oh_quantize<14>, oh_dequantize<0>, oh_dequantize<1>, oh_dequantize<30>, oh_dequantize<8>, oh_dequantize<2>, oh_dequantize<3>, oh_dequantize<6>, oh_dequantize<7>, oh_dequantize<12>, oh_dequantize<14>
//
// Quantisation and dequantisation kernels of ggml's tensor types: one GPU thread per block.
// The block functions are in ggml_quant.h / ggml_types.h.
#include "ggml_quant.h"

// ---------------------------------------------------------------- kernels

// x: nblocks * block floats; y: nblocks * bytes. One thread per block.
template <int T>
__global__ void oh_quantize(const float* __restrict__ x, uint8_t* __restrict__ y,
                            long long nblocks) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= nblocks) return;
    oh_quant_block<T>(x + i * oh_type<T>::block, y + i * oh_type<T>::bytes);
}

template <int T>
__global__ void oh_dequantize(const uint8_t* __restrict__ x, float* __restrict__ y,
                              long long nblocks) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= nblocks) return;
    oh_dequant<T>(x + i * oh_type<T>::bytes, y + i * oh_type<T>::block);
}
