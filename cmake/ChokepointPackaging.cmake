# Install layout (GNU standard places, relative to the prefix, so the tree can be moved):
#   bin/chokepoint, bin/chokepoint-cli            (app/CMakeLists.txt)
#   lib/libchokepoint_agent.so                    (collectors/agent, when CUPTI was found)
#   share/chokepoint/python/chokepoint_helper.py  (collectors/CMakeLists.txt)
#   share/chokepoint/samples/                     (samples/CMakeLists.txt; the GUI looks in
#                                                  <its dir>/../share/chokepoint/samples)
#   share/chokepoint/devices/                     the device database (also compiled in; this copy
#                                                  is the reference for ~/.config overrides)
#   share/doc/chokepoint/                         README, LICENSE, docs/
#   share/applications, share/icons, share/mime   desktop integration
# and the CPack configuration for `cpack -G DEB` (run from the build folder).

install(FILES ${CHOKEPOINT_SOURCE_ROOT}/resources/devices/devices.json
              ${CHOKEPOINT_SOURCE_ROOT}/resources/devices/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/chokepoint/devices)
install(FILES ${CHOKEPOINT_SOURCE_ROOT}/README.md ${CHOKEPOINT_SOURCE_ROOT}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CHOKEPOINT_SOURCE_ROOT}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES ${CHOKEPOINT_SOURCE_ROOT}/core/format/FORMAT.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
if(CHOKEPOINT_BUILD_GUI)
  install(FILES ${CHOKEPOINT_SOURCE_ROOT}/resources/chokepoint-mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME chokepoint.xml)
endif()

# --- CPack: a Debian package ---------------------------------------------------------------------
set(CPACK_PACKAGE_NAME chokepoint)
set(CPACK_PACKAGE_VENDOR "Chokepoint developers")
set(CPACK_PACKAGE_CONTACT "Chokepoint developers <chokepoint@invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Chokepoint opens PyTorch profiler (Kineto) traces, Nsight Systems SQLite exports and its own
.cptrace captures, finds the training steps, names the bottleneck (data, compute, memory,
communication, launch overhead) with the numbers that prove it and ranks the fixes. The CUPTI
recording agent, when included, needs the CUDA toolkit's libcupti at run time.")
set(CPACK_RESOURCE_FILE_LICENSE ${CHOKEPOINT_SOURCE_ROOT}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.invalid/chokepoint")
# Debian 12 package names, written out rather than computed by dpkg-shlibdeps: the agent links the
# CUDA toolkit's libcupti, which no Debian package provides, and would make dpkg-shlibdeps fail.
# scripts/package-check.sh compares this list with what dpkg-shlibdeps finds for the executables.
set(_chokepoint_depends
    "libc6 (>= 2.35)" "libstdc++6 (>= 12)" "libgcc-s1" "zlib1g" "libsqlite3-0" "libsimdjson14"
    "libprotobuf32")
if(CHOKEPOINT_BUILD_GUI)
  list(APPEND _chokepoint_depends
       "libqt6core6 (>= 6.4)" "libqt6gui6 (>= 6.4)" "libqt6widgets6 (>= 6.4)" "libqt6svg6 (>= 6.4)"
       "libqcustomplot2.1-qt6")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-qpa-plugins, shared-mime-info, desktop-file-utils")
endif()
list(JOIN _chokepoint_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CHOKEPOINT_DEB_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}" CACHE INTERNAL "Depends of the .deb")

# --- The node bundle: chokepoint-cli + agent + helper + GPU check + their libraries, relocatable -
# `cpack -G External` (or `cmake --build BUILD --target node-bundle`, or scripts/node-bundle.sh)
# writes BUILD/chokepoint-node-VERSION-x86_64.tar.gz (cmake/MakeNodeBundle.cmake).
set(CPACK_EXTERNAL_PACKAGE_SCRIPT ${CHOKEPOINT_SOURCE_ROOT}/cmake/MakeNodeBundle.cmake)
set(CPACK_CHOKEPOINT_BUILD_DIR ${CMAKE_BINARY_DIR})
set(CPACK_CHOKEPOINT_SOURCE_DIR ${CHOKEPOINT_SOURCE_ROOT})
add_custom_target(node-bundle
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DSOURCE_DIR=${CHOKEPOINT_SOURCE_ROOT}
          -DVERSION=${PROJECT_VERSION} -P ${CHOKEPOINT_SOURCE_ROOT}/cmake/MakeNodeBundle.cmake
  COMMENT "Making the node bundle"
  VERBATIM)
add_dependencies(node-bundle chokepoint-cli)
if(TARGET chokepoint_agent)
  add_dependencies(node-bundle chokepoint_agent)
endif()
include(CPack)
