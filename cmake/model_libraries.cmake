# The libraries without SystemC: the PTX front end and functional model, configurations, launch files and a run,
# host references. Included by CMakeLists.txt and by cmake/fuzz.cmake, which builds them instrumented.
# The statistics library (common/stats*): declarations, merge, JSON and the schema document.
file(GLOB SIMTLM_STATS_SOURCES CONFIGURE_DEPENDS common/stats*.cpp)
add_library(simtlm_stats STATIC ${SIMTLM_STATS_SOURCES})
target_include_directories(simtlm_stats PUBLIC ${SIMTLM_INCLUDE_DIRS})
target_link_libraries(simtlm_stats PUBLIC fmt::fmt nlohmann_json::nlohmann_json)

# Header-only pieces every layer may use and that use no layer (common/*.hpp but the statistics): the PRNG
# and the location formatter.
add_library(simtlm_common INTERFACE)
target_include_directories(simtlm_common INTERFACE ${SIMTLM_INCLUDE_DIRS})

file(GLOB SIMTLM_PTX_SOURCES CONFIGURE_DEPENDS models/ptx/*.cpp)
add_library(simtlm_ptx STATIC ${SIMTLM_PTX_SOURCES})
target_include_directories(simtlm_ptx PUBLIC ${SIMTLM_INCLUDE_DIRS})
target_link_libraries(simtlm_ptx PUBLIC simtlm_common fmt::fmt)

# Machine configurations, with the composition of every component's schema rows (hw/schema/, plain C++).
file(GLOB SIMTLM_CONFIG_SOURCES CONFIGURE_DEPENDS models/config/*.cpp hw/schema/*.cpp)
add_library(simtlm_config STATIC ${SIMTLM_CONFIG_SOURCES})
target_include_directories(simtlm_config PUBLIC ${SIMTLM_INCLUDE_DIRS})
target_link_libraries(simtlm_config PUBLIC yaml-cpp)

file(GLOB SIMTLM_LAUNCH_SOURCES CONFIGURE_DEPENDS models/launch/*.cpp)
add_library(simtlm_launch STATIC ${SIMTLM_LAUNCH_SOURCES})
target_link_libraries(simtlm_launch PUBLIC simtlm_ptx simtlm_config simtlm_stats yaml-cpp nlohmann_json::nlohmann_json PNG::PNG)

file(GLOB SIMTLM_REFERENCE_SOURCES CONFIGURE_DEPENDS workloads/reference/*.cpp)
add_library(simtlm_workloads STATIC ${SIMTLM_REFERENCE_SOURCES})
target_link_libraries(simtlm_workloads PUBLIC simtlm_launch)
