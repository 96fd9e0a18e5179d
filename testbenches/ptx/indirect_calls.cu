// Indirect calls (issue 32): calls through function pointers and virtual functions, checked on the
// functional runner (testbenches/unit/test_indirect_calls.cpp) and the SystemC model
// (testbenches/timing/test_timing_indirect_calls.cpp) against the host twins in indirect_calls_host.hpp.
//   nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false indirect_calls.cu -o indirect_calls.ptx
typedef int (*unary_t)(int);

__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
__device__ __noinline__ int negate(int x) { return -x; }
// A loop whose trip count differs per lane: the callee diverges inside.
__device__ __noinline__ int collatz_steps(int x) {
  int steps = 0;
  while (x > 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

// A function-pointer table in a .global initialiser.
__device__ unary_t table[4] = {twice, square, negate, collatz_steps};

// Each lane calls table[i % 4]: the four targets of one warp's call are serialized and reconverge after it.
extern "C" __global__ void table_call(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[i % 4](i + 1);
}

// Virtual functions of objects built in the kernel (vtables in .global initialisers). The virtual
// destructor puts a deleting destructor calling free (no body here) into the vtables: it is never called.
struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual int area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Square : Shape {
  int s;
  __device__ explicit Square(int s) : s(s) {}
  __device__ int area() const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Rect : Square {
  int h;
  __device__ Rect(int w, int h) : Square(w), h(h) {}
  __device__ int area() const override { return s * h; }
};
struct Tri : Shape {
  int b, h;
  __device__ Tri(int b, int h) : b(b), h(h) {}
  __device__ int area() const override { return b * h / 2; }
  __device__ int sides() const override { return 3; }
};

__device__ __noinline__ const Shape* pick(int k, const Shape* a, const Shape* b, const Shape* c) {
  return k == 0 ? a : k == 1 ? b : c;
}

extern "C" __global__ void virtual_shapes(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Square sq(i);
  Rect r(i, 3);
  Tri t(i, 5);
  const Shape* s = pick(i % 3, &sq, &r, &t);
  out[i] = s->area() * 10 + s->sides();
}

// Tables built at run time in shared, local and global memory; the pointers compare equal to the names.
__device__ unary_t slots[256];

extern "C" __global__ void runtime_tables(int* out, int* same, int n) {
  __shared__ unary_t shared_ops[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 4) shared_ops[threadIdx.x] = table[3 - threadIdx.x];
  __syncthreads();
  if (i >= n) return;
  unary_t local_ops[8];
#pragma unroll 1
  for (int k = 0; k < 8; ++k) local_ops[k] = table[(k + i) % 4];
  slots[i] = shared_ops[i % 4];
  volatile unary_t* global_ops = slots;
  unary_t from_global = global_ops[i];
  unary_t from_local = local_ops[(i / 4) % 8];
  out[i] = shared_ops[i % 4](i) * 1000 + from_local(i % 16) * 10 + from_global(i % 7);
  same[i] = (from_global == table[3 - i % 4]) + 2 * (from_local == twice) + 4 * (from_local == table[0]);
}

// Recursion through a function pointer: depth_sum calls itself through `recurse`, a different depth per
// lane; `extra` deepens every lane's recursion (the call-stack overflow test).
__device__ int depth_sum(int n);
__device__ unary_t recurse = depth_sum;
__device__ __noinline__ int depth_sum(int n) { return n <= 0 ? 0 : n + recurse(n - 1); }

extern "C" __global__ void pointer_recursion(int* out, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = recurse(i % 8 + extra);
}

// Lane `bad_lane` calls through `bits`, which is no function's address.
extern "C" __global__ void call_raw(int* out, unsigned long long bits, int bad_lane) {
  unary_t f = table[threadIdx.x % 4];
  if (int(threadIdx.x) == bad_lane) f = reinterpret_cast<unary_t>(bits);
  out[threadIdx.x] = f(int(threadIdx.x));
}

// delete through a Shape*: the deleting destructor calls free, which has no body in the module, so the
// indirect call of it fails (the kernel itself loads: only that destructor cannot run).
__device__ __noinline__ Shape* make_shape(void* place, int k) {
  if (k == 0) return new (place) Square(k);
  return new (place) Tri(k, 2);
}

extern "C" __global__ void delete_shape(int* out) {
  Shape* s = make_shape(out + 8 * threadIdx.x, int(threadIdx.x & 1));
  out[8 * threadIdx.x + 7] = s->area();
  delete s;
}
