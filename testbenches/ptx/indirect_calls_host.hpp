// Host twins of the kernels in testbenches/ptx/indirect_calls.cu: the outputs they must write, shared by
// the functional (testbenches/unit/test_indirect_calls.cpp) and timing
// (testbenches/timing/test_timing_indirect_calls.cpp) tests.
#pragma once

#include <cstdint>
#include <vector>

namespace simtlm::test::indirect {

// table[k] of indirect_calls.cu: twice, square, negate, collatz_steps.
inline int32_t table_op(int k, int32_t x) {
  switch (k) {
    case 0:
      return 2 * x;
    case 1:
      return x * x;
    case 2:
      return -x;
    default: {
      int32_t steps = 0;
      while (x > 1) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        ++steps;
      }
      return steps;
    }
  }
}

inline std::vector<int32_t> table_call(int n) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[size_t(i)] = table_op(i % 4, i + 1);
  return out;
}

inline std::vector<int32_t> virtual_shapes(int n) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int k = i % 3;
    out[size_t(i)] = k == 0 ? i * i * 10 + 4 : k == 1 ? 3 * i * 10 + 4 : i * 5 / 2 * 10 + 3;
  }
  return out;
}

struct RuntimeTables {
  std::vector<int32_t> out, same;
};
inline RuntimeTables runtime_tables(int n) {
  RuntimeTables r{std::vector<int32_t>(size_t(n)), std::vector<int32_t>(size_t(n))};
  for (int i = 0; i < n; ++i) {
    const int global_k = 3 - i % 4;             // slots[i] = shared_ops[i % 4] = table[3 - i % 4]
    const int local_k = ((i / 4) % 8 + i) % 4;  // local_ops[(i / 4) % 8] = table[(k + i) % 4]
    r.out[size_t(i)] =
        table_op(global_k, i) * 1000 + table_op(local_k, i % 16) * 10 + table_op(global_k, i % 7);
    r.same[size_t(i)] = 1 + (local_k == 0 ? 6 : 0);
  }
  return r;
}

inline std::vector<int32_t> pointer_recursion(int n, int extra) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int depth = i % 8 + extra;
    out[size_t(i)] = depth * (depth + 1) / 2;
  }
  return out;
}

}  // namespace simtlm::test::indirect
