# The installed package (docs/systemc.md): `cmake --install build --prefix P` puts the headers under
# P/include/simtlm/ (common/, models/, hw/, sim/, workloads/), the static libraries under P/lib and the CMake
# package simtlm (find_package(simtlm), target simtlm::simtlm) under P/lib/cmake/simtlm. Included last by
# CMakeLists.txt, once every library exists.
include(CMakePackageConfigHelpers)

# One target for a user: the timing driver (sim/) and everything below it, with C++20. SC_CPLUSPLUS and
# SC_INCLUDE_DYNAMIC_PROCESSES come with simtlm_mem, SystemC, yaml-cpp, fmt, nlohmann-json and libpng with the
# libraries that use them. (`simtlm` names the command-line program inside this project, hence the EXPORT_NAME.)
add_library(simtlm_library INTERFACE)
set_target_properties(simtlm_library PROPERTIES EXPORT_NAME simtlm)
target_link_libraries(simtlm_library INTERFACE simtlm_sim)
target_compile_features(simtlm_library INTERFACE cxx_std_20)
add_library(simtlm::simtlm ALIAS simtlm_library)

# simtlm_sim's closure. simtlm_unit_select links the Verilated --cc twins (simtlm_rtl_cc) privately; a static
# library's private dependencies are still linked by its users, so the twins (with Verilator's runtime compiled
# in) are installed too. Their include directories (generated code, Verilator's headers) are the build tree's
# only: no installed header includes them.
set(SIMTLM_PACKAGE_LIBRARIES simtlm_common simtlm_stats simtlm_ptx simtlm_config simtlm_launch simtlm_workloads
  simtlm_hw_units simtlm_hw_core simtlm_mem simtlm_rtl_cc simtlm_unit_select simtlm_timing simtlm_sim)
foreach(library IN LISTS SIMTLM_PACKAGE_LIBRARIES)
  get_target_property(type ${library} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_compile_features(${library} INTERFACE cxx_std_20)
  else()
    target_compile_features(${library} PUBLIC cxx_std_20)
  endif()
endforeach()
get_target_property(SIMTLM_RTL_CC_INCLUDES simtlm_rtl_cc INTERFACE_INCLUDE_DIRECTORIES)
set_property(TARGET simtlm_rtl_cc PROPERTY INTERFACE_INCLUDE_DIRECTORIES "$<BUILD_INTERFACE:${SIMTLM_RTL_CC_INCLUDES}>")

install(TARGETS ${SIMTLM_PACKAGE_LIBRARIES} simtlm_library EXPORT simtlmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS simtlm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Every header of the layers the libraries hold, in its directory (no empty directories).
file(GLOB_RECURSE SIMTLM_PUBLIC_HEADERS RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/common/*.hpp ${PROJECT_SOURCE_DIR}/models/*.hpp ${PROJECT_SOURCE_DIR}/hw/*.hpp
  ${PROJECT_SOURCE_DIR}/sim/*.hpp ${PROJECT_SOURCE_DIR}/workloads/*.hpp)
foreach(header IN LISTS SIMTLM_PUBLIC_HEADERS)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/simtlm/${dir})
endforeach()

# The same libraries for pkg-config users, users before what they use (static linking resolves left to right).
set(SIMTLM_PC_LIBS "")
foreach(library IN LISTS SIMTLM_PACKAGE_LIBRARIES)
  get_target_property(type ${library} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    string(PREPEND SIMTLM_PC_LIBS "-l${library} ")
  endif()
endforeach()
string(STRIP "${SIMTLM_PC_LIBS}" SIMTLM_PC_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/simtlm.pc.in ${PROJECT_BINARY_DIR}/simtlm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/simtlm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(SIMTLM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/simtlm)
install(EXPORT simtlmTargets NAMESPACE simtlm:: DESTINATION ${SIMTLM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/simtlmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/simtlmConfig.cmake INSTALL_DESTINATION ${SIMTLM_CMAKE_DIR})
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/simtlmConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/simtlmConfig.cmake ${PROJECT_BINARY_DIR}/simtlmConfigVersion.cmake
  DESTINATION ${SIMTLM_CMAKE_DIR})
