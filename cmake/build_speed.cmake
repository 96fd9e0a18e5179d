# How the tree builds fast on two cores (docs/bench/build.md measures each choice). Included first by
# CMakeLists.txt and by cmake/fuzz.cmake.

# Test programs are many files of GoogleTest macros around a few calls into the libraries, which keep their own
# optimisation level: batching them (unity builds) parses GoogleTest, SystemC and the project's headers once per
# batch, and -O1 compiles them about twice as fast as -O3 at no cost to the test run, whose time is spent in
# the libraries. Off: one object per source, the build type's flags, for a debugger or to find a unity clash.
option(SIMTLM_UNITY_BUILD "Build test programs and Verilated models in unity batches" ON)
set(SIMTLM_TEST_CODE_OPTIONS -O1 CACHE STRING "Extra compile options for test-only code (empty: the build type's)")

# Precompiled headers for the heavy third-party headers of the test programs (GoogleTest, SystemC, JSON, YAML).
option(SIMTLM_PCH "Precompile the test programs' third-party headers" ON)

# ccache when asked for (never by default, so that a fresh machine and CI measure the real build).
option(SIMTLM_CCACHE "Compile through ccache (must be installed)" OFF)
if(SIMTLM_CCACHE)
  find_program(SIMTLM_CCACHE_PROGRAM ccache REQUIRED)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${SIMTLM_CCACHE_PROGRAM})
endif()

# Test sources that define helpers under the same names as another test source of their program: each compiles
# alone rather than in a batch.
set(SIMTLM_UNITY_EXCLUDED
  testbenches/unit/test_exec_int.cpp testbenches/unit/test_exec_float.cpp testbenches/unit/test_capri_unit.cpp
  testbenches/unit/test_ptx_operand_types.cpp testbenches/unit/test_launch_sequence.cpp
  testbenches/unit/test_launch_params.cpp testbenches/unit/test_launch_hostile.cpp
  testbenches/systemc/test_mem_pollution.cpp testbenches/systemc/test_mem_latency.cpp
  testbenches/systemc/test_mem_flush_atomic.cpp testbenches/systemc/test_mem_behaviour.cpp
  testbenches/unit/test_launch_values.cpp testbenches/systemc/test_memory_system.cpp
  testbenches/rtl/test_majority_structures_cc.cpp testbenches/timing/test_timing_memory.cpp
  testbenches/unit/test_quality.cpp)
list(TRANSFORM SIMTLM_UNITY_EXCLUDED PREPEND ${PROJECT_SOURCE_DIR}/)
set_source_files_properties(${SIMTLM_UNITY_EXCLUDED} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)

# A test program: unity batches, test-code optimisation, precompiled third-party headers.
function(simtlm_test_program target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${SIMTLM_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)
  if(SIMTLM_TEST_CODE_OPTIONS)
    target_compile_options(${target} PRIVATE ${SIMTLM_TEST_CODE_OPTIONS})
  endif()
  if(SIMTLM_PCH)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h> ${ARGN})
  endif()
endfunction()
