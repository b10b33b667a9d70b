# Makes the node bundle: a relocatable tarball with chokepoint-cli, the agent, the Python helper,
# the GPU check and every library the CLI and the agent need beyond glibc, for training nodes
# (Ubuntu 22.04/24.04, RHEL 9) where nothing can be installed. Each binary looks for its libraries
# next to itself first (RUNPATH $ORIGIN/../lib for the CLI, $ORIGIN for the libraries).
#
# Two ways in:
#   cmake -DBUILD_DIR=build -DSOURCE_DIR=. -DVERSION=x.y.z -P cmake/MakeNodeBundle.cmake
#                                        (scripts/node-bundle.sh, `cmake --build build --target node-bundle`)
#   cpack -G External                   (CPACK_EXTERNAL_PACKAGE_SCRIPT; CPACK_CHOKEPOINT_* give the paths)
# Writes BUILD_DIR/chokepoint-node-VERSION-x86_64.tar.gz. Needs patchelf.
cmake_minimum_required(VERSION 3.25)
if(DEFINED CPACK_CHOKEPOINT_BUILD_DIR)
  set(BUILD_DIR "${CPACK_CHOKEPOINT_BUILD_DIR}")
  set(SOURCE_DIR "${CPACK_CHOKEPOINT_SOURCE_DIR}")
  set(VERSION "${CPACK_PACKAGE_VERSION}")
endif()
foreach(var BUILD_DIR SOURCE_DIR VERSION)
  if(NOT ${var})
    message(FATAL_ERROR "MakeNodeBundle: ${var} is not set")
  endif()
endforeach()
get_filename_component(BUILD_DIR "${BUILD_DIR}" ABSOLUTE)
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
find_program(PATCHELF patchelf REQUIRED)
find_program(STRIP strip)

set(cli "${BUILD_DIR}/bin/chokepoint-cli")
set(agent "${BUILD_DIR}/bin/libchokepoint_agent.so")
if(NOT EXISTS "${cli}")
  message(FATAL_ERROR "MakeNodeBundle: no ${cli}; build first")
endif()
set(name "chokepoint-node-${VERSION}-x86_64")
set(stage "${BUILD_DIR}/node-bundle/${name}")
file(REMOVE_RECURSE "${BUILD_DIR}/node-bundle")
file(MAKE_DIRECTORY "${stage}/bin" "${stage}/lib" "${stage}/python" "${stage}/gpu-check")

file(COPY "${cli}" DESTINATION "${stage}/bin")
set(executables "${cli}")
set(libraries "")
if(EXISTS "${agent}")
  file(COPY "${agent}" DESTINATION "${stage}/lib")
  list(APPEND libraries "${agent}")
else()
  message(WARNING "MakeNodeBundle: no agent in this build (configured without CUPTI): the bundle cannot record")
endif()

# Everything but glibc, libstdc++ and libgcc_s travels. Those three stay the node's own: Debian 12's
# libstdc++ needs glibc 2.36 (arc4random) and its libgcc_s 2.35, while the CLI and the bundled
# libraries need no more than GLIBC_2.34 and GLIBCXX_3.4.29 (GCC 11), which Ubuntu 22.04/24.04
# and RHEL 9 have. The versions needed are checked below and written into README.txt.
file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES ${executables}
  LIBRARIES ${libraries}
  RESOLVED_DEPENDENCIES_VAR resolved
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  PRE_EXCLUDE_REGEXES "^ld-linux" "^libc\\.so" "^libm\\.so" "^libdl\\.so" "^libpthread\\.so" "^librt\\.so"
                      "^libstdc\\+\\+\\.so" "^libgcc_s\\.so" "^libcupti" "^libcuda\\.so"
  POST_EXCLUDE_REGEXES "/libchokepoint_agent\\.so$")
if(unresolved)
  message(FATAL_ERROR "MakeNodeBundle: unresolved libraries: ${unresolved}")
endif()
foreach(lib IN LISTS resolved)
  get_filename_component(real "${lib}" REALPATH)
  get_filename_component(soname "${lib}" NAME)
  file(COPY_FILE "${real}" "${stage}/lib/${soname}")
  execute_process(COMMAND "${PATCHELF}" --set-rpath "$ORIGIN" "${stage}/lib/${soname}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "MakeNodeBundle: patchelf failed on ${soname}")
  endif()
endforeach()
execute_process(COMMAND "${PATCHELF}" --set-rpath "$ORIGIN/../lib" "${stage}/bin/chokepoint-cli" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "MakeNodeBundle: patchelf failed on chokepoint-cli")
endif()

# The newest glibc and libstdc++ symbol versions anything in the bundle needs.
find_program(OBJDUMP objdump REQUIRED)
file(GLOB binaries "${stage}/bin/*" "${stage}/lib/*")
set(newest_glibc 0)
set(newest_glibcxx 0)
foreach(bin IN LISTS binaries)
  execute_process(COMMAND "${OBJDUMP}" -T "${bin}" OUTPUT_VARIABLE symbols ERROR_QUIET)
  string(REGEX MATCHALL "GLIBC_2\\.[0-9]+" glibc "${symbols}")
  string(REGEX MATCHALL "GLIBCXX_3\\.4\\.[0-9]+" glibcxx "${symbols}")
  foreach(v IN LISTS glibc)
    string(REPLACE "GLIBC_" "" v "${v}")
    if(v VERSION_GREATER newest_glibc)
      set(newest_glibc ${v})
    endif()
  endforeach()
  foreach(v IN LISTS glibcxx)
    string(REPLACE "GLIBCXX_" "" v "${v}")
    if(v VERSION_GREATER newest_glibcxx)
      set(newest_glibcxx ${v})
    endif()
  endforeach()
endforeach()
if(newest_glibc VERSION_GREATER 2.34 OR newest_glibcxx VERSION_GREATER 3.4.29)
  message(WARNING "MakeNodeBundle: the bundle needs glibc ${newest_glibc} and GLIBCXX ${newest_glibcxx}: "
                  "newer than RHEL 9 (2.34, 3.4.29) has")
endif()
if(STRIP)  # debug information stays in the build; the bundle travels to nodes
  file(GLOB binaries "${stage}/bin/*" "${stage}/lib/*")
  execute_process(COMMAND "${STRIP}" --strip-unneeded ${binaries})
endif()
file(COPY "${SOURCE_DIR}/collectors/python/chokepoint_helper.py" "${SOURCE_DIR}/collectors/python/chokepoint_stacks.py"
     DESTINATION "${stage}/python")
file(COPY "${SOURCE_DIR}/collectors/python/site" DESTINATION "${stage}/python")
file(GLOB jobs "${SOURCE_DIR}/tests/collectors/gpu/*.py")
file(COPY ${jobs} DESTINATION "${stage}/gpu-check")
file(COPY "${SOURCE_DIR}/scripts/gpu-check.sh" DESTINATION "${stage}")
file(WRITE "${stage}/README.txt"
"Chokepoint ${VERSION} for a training node: x86-64 Linux with glibc ${newest_glibc} or newer and the
libstdc++ of GCC 11 or newer (GLIBCXX_${newest_glibcxx}): Ubuntu 22.04 and 24.04, RHEL 9. Nothing to install:

  bin/chokepoint-cli doctor                       check the node
  bin/chokepoint-cli run -o t.cptrace -- python3 train.py
  bin/chokepoint-cli launch -- python3 train.py   then: bin/chokepoint-cli attach PID --steps 10 -o t.cptrace
  ./gpu-check.sh --help                           the device check

python/chokepoint_helper.py is the optional Python helper (put python/ on PYTHONPATH). lib/ holds the
agent (libchokepoint_agent.so) and the libraries chokepoint-cli needs besides glibc.
")
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar czf "${BUILD_DIR}/${name}.tar.gz" "${name}"
                WORKING_DIRECTORY "${BUILD_DIR}/node-bundle" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "MakeNodeBundle: tar failed")
endif()
message(STATUS "node bundle: ${BUILD_DIR}/${name}.tar.gz")
