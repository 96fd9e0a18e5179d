# libFuzzer targets (testbenches/fuzz/, scripts/fuzz, docs/reliability-fuzz.md), built in the sanitizer tree with
# the sanitized tests (make san-build: clang, ASan + UBSan, -O1 with line tables), so one tree serves both.
# The libraries the harnesses exercise are instrumented for coverage (fuzzer-no-link); in the test programs that
# link the same objects the coverage hooks are the sanitizer runtime's empty defaults.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT SIMTLM_SANITIZE)
  message(FATAL_ERROR "SIMTLM_FUZZ_TARGETS needs clang++ (libFuzzer) and SIMTLM_SANITIZE=ON: "
    "-DCMAKE_CXX_COMPILER=clang++ -DSIMTLM_SANITIZE=ON (make san-configure)")
endif()

foreach(library simtlm_stats simtlm_ptx simtlm_config simtlm_launch simtlm_workloads simtlm_sweep simtlm_hw_core)
  target_compile_options(${library} PRIVATE -fsanitize=fuzzer-no-link)
endforeach()

foreach(target fuzz_ptx fuzz_launch fuzz_config fuzz_sweep fuzz_herding)
  add_executable(${target} testbenches/fuzz/${target}.cpp testbenches/fuzz/fuzz_common.cpp)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  target_compile_definitions(${target} PRIVATE SIMTLM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endforeach()
target_link_libraries(fuzz_ptx PRIVATE simtlm_ptx)
target_link_libraries(fuzz_launch PRIVATE simtlm_workloads)
target_link_libraries(fuzz_config PRIVATE simtlm_config)
# Sweep files (issue 32): the sweep engine without SystemC; `herding:` sections: the loader and hw/herding's plan.
target_link_libraries(fuzz_sweep PRIVATE simtlm_sweep)
target_link_libraries(fuzz_herding PRIVATE simtlm_hw_core simtlm_launch)
add_custom_target(fuzz_targets DEPENDS fuzz_ptx fuzz_launch fuzz_config fuzz_sweep fuzz_herding)
