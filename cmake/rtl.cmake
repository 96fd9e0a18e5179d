# Units of the papers: C++ models (hw/units/), their Verilog twins (rtl/) and the tests that prove them equal.
# Included from the top-level CMakeLists.txt after unit_tests is defined.

file(GLOB SIMTLM_HW_UNIT_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/hw/units/*.cpp)
add_library(simtlm_hw_units STATIC ${SIMTLM_HW_UNIT_SOURCES})
target_include_directories(simtlm_hw_units PUBLIC ${SIMTLM_INCLUDE_DIRS})
target_link_libraries(unit_tests PRIVATE simtlm_hw_units)

find_package(verilator)
if(NOT verilator_FOUND)
  message(WARNING "Verilator not found: RTL equivalence tests are not built")
  return()
endif()

set(SIMTLM_RTL_UNITS slp_permutation_unit majority_unit priority_encoder_compactor popular_block_selector)
set(SIMTLM_RTL_WIDTHS 8 16 32 64)

# Every unit at every width through --cc, in one library so verilated.cpp compiles once.
# Class names: V<unit>_w<W>, plus variants named after their extra parameter.
add_library(simtlm_rtl_cc STATIC)
foreach(unit IN LISTS SIMTLM_RTL_UNITS)
  foreach(width IN LISTS SIMTLM_RTL_WIDTHS)
    verilate(simtlm_rtl_cc SOURCES ${PROJECT_SOURCE_DIR}/rtl/${unit}.v TOP_MODULE ${unit}
      PREFIX V${unit}_w${width} VERILATOR_ARGS -Wall -GW=${width})
  endforeach()
endforeach()
foreach(width IN LISTS SIMTLM_RTL_WIDTHS)
  verilate(simtlm_rtl_cc SOURCES ${PROJECT_SOURCE_DIR}/rtl/majority_unit.v TOP_MODULE majority_unit
    PREFIX Vmajority_unit_w${width}_tie_taken VERILATOR_ARGS -Wall -GW=${width} -GTIE_TAKEN=1)
endforeach()
# Variants that only the equivalence tests use live in a library of their own, so that `simtlm` (and `make demo`)
# builds only the twins above. The sanitizer build (make test-asan) runs none of these tests and skips them.
if(NOT SIMTLM_SANITIZE)
  add_library(simtlm_rtl_cc_variants STATIC)
  # Every majority STRUCTURE at every width and tie rule, named explicitly whatever the default structure is
  # (testbenches/rtl/test_majority_structures_cc.cpp compares them).
  foreach(width IN LISTS SIMTLM_RTL_WIDTHS)
    foreach(structure IN ITEMS 0 1 2)
      verilate(simtlm_rtl_cc_variants SOURCES ${PROJECT_SOURCE_DIR}/rtl/majority_unit.v TOP_MODULE majority_unit
        PREFIX Vmajority_unit_w${width}_s${structure} VERILATOR_ARGS -Wall -GW=${width} -GSTRUCTURE=${structure})
      verilate(simtlm_rtl_cc_variants SOURCES ${PROJECT_SOURCE_DIR}/rtl/majority_unit.v TOP_MODULE majority_unit
        PREFIX Vmajority_unit_w${width}_s${structure}_tie_taken
        VERILATOR_ARGS -Wall -GW=${width} -GSTRUCTURE=${structure} -GTIE_TAKEN=1)
    endforeach()
  endforeach()
  verilate(simtlm_rtl_cc_variants SOURCES ${PROJECT_SOURCE_DIR}/rtl/popular_block_selector.v
    TOP_MODULE popular_block_selector PREFIX Vpopular_block_selector_w8_a32 VERILATOR_ARGS -Wall -GW=8 -GAW=32)
  # The selector's default build (the twins) examines all lanes in one round; these spread them over more.
  foreach(config IN ITEMS "8;4" "8;8" "32;4" "64;8")
    list(GET config 0 width)
    list(GET config 1 rounds)
    verilate(simtlm_rtl_cc_variants SOURCES ${PROJECT_SOURCE_DIR}/rtl/popular_block_selector.v
      TOP_MODULE popular_block_selector PREFIX Vpopular_block_selector_w${width}_r${rounds}
      VERILATOR_ARGS -Wall -GW=${width} -GROUNDS=${rounds})
  endforeach()
  # verilate() adds Verilator's runtime (verilated.cpp, ...) to every library it is given: these use the twins'.
  get_target_property(SIMTLM_VARIANT_SOURCES simtlm_rtl_cc_variants SOURCES)
  list(FILTER SIMTLM_VARIANT_SOURCES EXCLUDE REGEX "^${VERILATOR_ROOT}/include/")
  set_property(TARGET simtlm_rtl_cc_variants PROPERTY SOURCES ${SIMTLM_VARIANT_SOURCES})
  target_link_libraries(simtlm_rtl_cc_variants PUBLIC simtlm_rtl_cc)
endif()
# Generated code is not ours to keep warning-free. It is large straight-line code: -O1 compiles it several times
# faster than -O3 and runs about as fast; sanitizing it would only slow the build (our code stays sanitized).
# Each model's few generated files all include verilated.h: unity batches (SIMTLM_UNITY_BUILD) parse it once per
# batch instead of once per file.
set(SIMTLM_VERILATED_OPTIONS -w -Wno-error -O1 -fno-sanitize=all)
# Verilator's runtime (verilated.cpp, ...) stays one object per file, as the linker takes it from only one of the
# libraries that hold it.
function(simtlm_verilated_library target)
  target_compile_options(${target} PRIVATE ${SIMTLM_VERILATED_OPTIONS})
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${SIMTLM_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 16)
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "^${VERILATOR_ROOT}/include/")
  set_source_files_properties(${sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
simtlm_verilated_library(simtlm_rtl_cc)
if(TARGET simtlm_rtl_cc_variants)
  simtlm_verilated_library(simtlm_rtl_cc_variants)
endif()

# Verilator's own headers are not -Wall -Wextra clean: include them as system headers in our code.
set(SIMTLM_VERILATOR_INCLUDES ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)

# `--rtl` / `--rtl-check`: each unit as its C++ model, its --cc twin or both compared (hw/units/select/).
# Users include only unit_set.hpp, which pulls in no Verilator header.
file(GLOB SIMTLM_UNIT_SELECT_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/hw/units/select/*.cpp)
add_library(simtlm_unit_select STATIC ${SIMTLM_UNIT_SELECT_SOURCES})
target_link_libraries(simtlm_unit_select PUBLIC simtlm_hw_units PRIVATE simtlm_rtl_cc)
target_include_directories(simtlm_unit_select SYSTEM PRIVATE ${SIMTLM_VERILATOR_INCLUDES})

if(NOT SIMTLM_SANITIZE)
  file(GLOB SIMTLM_RTL_CC_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/testbenches/rtl/test_*_cc.cpp)
  add_executable(rtl_equivalence ${SIMTLM_RTL_CC_TESTS})
  target_link_libraries(rtl_equivalence PRIVATE simtlm_hw_units simtlm_rtl_cc_variants GTest::gtest GTest::gtest_main)
  target_include_directories(rtl_equivalence SYSTEM PRIVATE ${SIMTLM_VERILATOR_INCLUDES})
  gtest_discover_tests(rtl_equivalence DISCOVERY_MODE PRE_TEST TEST_PREFIX rtl.)
  # The popular-block selector is also checked on the loads recorded from the workload suite.
  target_sources(rtl_equivalence PRIVATE ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/workload_trace.cpp)
  target_link_libraries(rtl_equivalence PRIVATE simtlm_workloads)
  target_compile_definitions(rtl_equivalence PRIVATE SIMTLM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  simtlm_test_program(rtl_equivalence)
endif()

# Every unit at W=32 as a SystemC module (--sc), exercised through sc_signals.
add_library(simtlm_rtl_sc STATIC)
foreach(unit IN LISTS SIMTLM_RTL_UNITS)
  verilate(simtlm_rtl_sc SYSTEMC SOURCES ${PROJECT_SOURCE_DIR}/rtl/${unit}.v TOP_MODULE ${unit}
    PREFIX V${unit}_w32_sc VERILATOR_ARGS -Wall -GW=32)
endforeach()
simtlm_verilated_library(simtlm_rtl_sc)
target_compile_definitions(simtlm_rtl_sc INTERFACE VM_SC=1)
target_link_libraries(simtlm_rtl_sc PUBLIC PkgConfig::SystemC)

file(GLOB SIMTLM_RTL_SC_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/testbenches/rtl/test_*_sc.cpp)
add_executable(rtl_sc_equivalence ${SIMTLM_RTL_SC_TESTS})
target_link_libraries(rtl_sc_equivalence PRIVATE simtlm_hw_units simtlm_rtl_sc GTest::gtest)
target_include_directories(rtl_sc_equivalence SYSTEM PRIVATE ${SIMTLM_VERILATOR_INCLUDES})
simtlm_test_program(rtl_sc_equivalence)
gtest_discover_tests(rtl_sc_equivalence DISCOVERY_MODE PRE_TEST TEST_PREFIX rtl_sc.
  PROPERTIES ENVIRONMENT "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1")

# Co-simulation on the workload suite: SystemC wrappers evaluate each unit once per warp-level event recorded
# from the functional model, through make_unit_set (C++ / --cc / checked) and through the --sc twins.
file(GLOB SIMTLM_COSIM_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/*.cpp)
list(FILTER SIMTLM_COSIM_SOURCES EXCLUDE REGEX "/bench_[^/]*\\.cpp$")
add_executable(rtl_cosim ${SIMTLM_COSIM_SOURCES})
target_link_libraries(rtl_cosim PRIVATE simtlm_unit_select simtlm_rtl_sc simtlm_workloads GTest::gtest)
target_include_directories(rtl_cosim SYSTEM PRIVATE ${SIMTLM_VERILATOR_INCLUDES})
target_compile_definitions(rtl_cosim PRIVATE SIMTLM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
simtlm_test_program(rtl_cosim)
gtest_discover_tests(rtl_cosim DISCOVERY_MODE PRE_TEST TEST_PREFIX rtl_cosim.
  PROPERTIES ENVIRONMENT "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1")

# Cost of one unit evaluation per backend (scripts/bench-cosim writes docs/bench/cosim.md). Not a test.
find_package(benchmark QUIET)
if(benchmark_FOUND)
  add_executable(rtl_cosim_bench ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/bench_cosim.cpp
    ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/sc_twin_driver.cpp)
  target_link_libraries(rtl_cosim_bench PRIVATE simtlm_unit_select simtlm_rtl_sc benchmark::benchmark)
  target_include_directories(rtl_cosim_bench SYSTEM PRIVATE ${SIMTLM_VERILATOR_INCLUDES})
endif()

# Switching activity of the units' input pins on the workload suite (docs/area-timing/activity.json, read by
# scripts/area_timing/power.py). The sources sit in cosim/activity/, outside the rtl_cosim glob.
set(SIMTLM_ACTIVITY_DIR ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/activity)
add_library(simtlm_unit_activity STATIC ${SIMTLM_ACTIVITY_DIR}/activity.cpp)
target_link_libraries(simtlm_unit_activity PUBLIC simtlm_hw_units)
add_executable(unit_activity ${SIMTLM_ACTIVITY_DIR}/activity_main.cpp
  ${PROJECT_SOURCE_DIR}/testbenches/rtl/cosim/workload_trace.cpp)
target_link_libraries(unit_activity PRIVATE simtlm_unit_activity simtlm_workloads)
target_compile_definitions(unit_activity PRIVATE SIMTLM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_executable(unit_activity_tests ${SIMTLM_ACTIVITY_DIR}/test_activity.cpp)
target_link_libraries(unit_activity_tests PRIVATE simtlm_unit_activity GTest::gtest GTest::gtest_main)
simtlm_test_program(unit_activity_tests)
gtest_discover_tests(unit_activity_tests TEST_PREFIX rtl_activity.)
find_program(SIMTLM_PYTHON3 python3)
if(SIMTLM_PYTHON3)
  add_test(NAME rtl_activity.power_py COMMAND ${SIMTLM_PYTHON3} -m unittest discover
    -s ${PROJECT_SOURCE_DIR}/scripts/area_timing -p test_power.py)
endif()

# The same lint the issue demands of every unit, at the narrowest and widest SIMD width.
find_program(SIMTLM_VERILATOR verilator REQUIRED)
foreach(unit IN LISTS SIMTLM_RTL_UNITS)
  foreach(width IN ITEMS 8 64)
    add_test(NAME rtl.lint.${unit}.w${width}
      COMMAND ${SIMTLM_VERILATOR} --lint-only -Wall -GW=${width} ${PROJECT_SOURCE_DIR}/rtl/${unit}.v)
  endforeach()
endforeach()
foreach(width IN LISTS SIMTLM_RTL_WIDTHS)
  foreach(structure IN ITEMS 0 1 2)
    foreach(tie IN ITEMS 0 1)
      add_test(NAME rtl.lint.majority_unit.w${width}.s${structure}.tie${tie}
        COMMAND ${SIMTLM_VERILATOR} --lint-only -Wall -GW=${width} -GSTRUCTURE=${structure} -GTIE_TAKEN=${tie}
        ${PROJECT_SOURCE_DIR}/rtl/majority_unit.v)
    endforeach()
  endforeach()
endforeach()

# Each cheaper majority STRUCTURE equals STRUCTURE 0 on every input (Yosys SAT on a miter, both tie rules).
# Wider units are covered by simulation only: the SAT proof of adder trees grows too slow beyond W = 16.
find_program(SIMTLM_YOSYS yosys)
if(SIMTLM_YOSYS AND SIMTLM_PYTHON3)
  foreach(width IN ITEMS 8 16)
    foreach(structure IN ITEMS 1 2)
      add_test(NAME rtl.majority_sat.w${width}.s${structure}
        COMMAND ${SIMTLM_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/prove-majority --widths ${width}
        --structures ${structure})
    endforeach()
  endforeach()
endif()
