# libFuzzer targets (testbenches/fuzz/, scripts/fuzz, docs/reliability-fuzz.md). A separate configuration:
#   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DSIMTLM_FUZZ=ON
# It builds only the libraries without SystemC that the targets exercise, instrumented for coverage
# (fuzzer-no-link) and checked by ASan and UBSan; the harnesses link libFuzzer's main.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SIMTLM_FUZZ needs clang++ (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
endif()

find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(fmt REQUIRED)
find_package(PNG REQUIRED)

# -O1 with line tables: fast enough to fuzz, and sanitizer reports name file:line.
set(SIMTLM_FUZZ_FLAGS -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined
                      -fno-sanitize-recover=undefined)
add_compile_options(${SIMTLM_FUZZ_FLAGS} -fsanitize=fuzzer-no-link)
add_link_options(-fsanitize=address,undefined)

include(cmake/model_libraries.cmake)

foreach(target fuzz_ptx fuzz_launch fuzz_config)
  add_executable(${target} testbenches/fuzz/${target}.cpp testbenches/fuzz/fuzz_common.cpp)
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  target_compile_definitions(${target} PRIVATE SIMTLM_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endforeach()
target_link_libraries(fuzz_ptx PRIVATE simtlm_ptx)
target_link_libraries(fuzz_launch PRIVATE simtlm_workloads)
target_link_libraries(fuzz_config PRIVATE simtlm_config)
add_custom_target(fuzz_targets DEPENDS fuzz_ptx fuzz_launch fuzz_config)
