# Helpers shared by every module: one warning set, one test registration function.

# chokepoint_target_defaults(TARGET): project warnings and the repository root as include root,
# so every include names its module ("core/model/TraceModel.h").
function(chokepoint_target_defaults target)
  target_compile_options(${target} PRIVATE ${CHOKEPOINT_WARNING_FLAGS})
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${CHOKEPOINT_SOURCE_ROOT})
  else()
    target_include_directories(${target} PUBLIC ${CHOKEPOINT_SOURCE_ROOT})
  endif()
endfunction()

# chokepoint_add_test(NAME SOURCES ... LIBS ... [LABELS ...] [GUI] [TIMEOUT seconds])
# Builds a GoogleTest executable and registers each test case with ctest. GUI tests run offscreen.
function(chokepoint_add_test name)
  cmake_parse_arguments(ARG "GUI" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  chokepoint_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    CHOKEPOINT_SHARED_TRACES_DIR="${CHOKEPOINT_SHARED_TRACES_DIR}"
    CHOKEPOINT_SOURCE_DIR="${CHOKEPOINT_SOURCE_ROOT}"
    CHOKEPOINT_BINARY_DIR="${CMAKE_BINARY_DIR}")
  set(_env "")
  if(ARG_GUI)
    set(_env "QT_QPA_PLATFORM=offscreen")
  endif()
  set(_labels ${ARG_LABELS})
  if(NOT _labels)
    set(_labels unit)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${_labels}" ENVIRONMENT "${_env}")
endfunction()
