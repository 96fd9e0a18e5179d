// A CUDA-samples-like tiled matrix product C = alpha * A * B + c_bias[column % 16], templated on the tile
// size as the samples' matrixMulCUDA<BLOCK_SIZE>; the dimensions come in a struct passed by value.
struct MatrixDims {
  int width_a;
  int width_b;
  float alpha;
};

__constant__ float c_bias[16];

template <int BLOCK_SIZE>
__global__ void matrixMul(float* C, const float* A, const float* B, MatrixDims dims) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
  const int bx = blockIdx.x, by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int a_begin = dims.width_a * BLOCK_SIZE * by;
  const int a_end = a_begin + dims.width_a - 1;
  const int b_begin = BLOCK_SIZE * bx;
  float sum = 0.0f;
  for (int a = a_begin, b = b_begin; a <= a_end; a += BLOCK_SIZE, b += BLOCK_SIZE * dims.width_b) {
    As[ty][tx] = A[a + dims.width_a * ty + tx];
    Bs[ty][tx] = B[b + dims.width_b * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  const int col = BLOCK_SIZE * bx + tx;
  const int c = dims.width_b * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + dims.width_b * ty + tx] = dims.alpha * sum + c_bias[col % 16];
}

template __global__ void matrixMul<16>(float*, const float*, const float*, MatrixDims);
template __global__ void matrixMul<8>(float*, const float*, const float*, MatrixDims);
