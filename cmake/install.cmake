# Installs the libraries (gaussmbd, the CLI library gaussmbd_cli), the public headers and a CMake
# package, so that user projects can find_package(GaussMBD), link GaussMBD::gaussmbd to define
# models of their own and GaussMBD::cli to build their own gmbd that knows them.
#
# Layout: <prefix>/include/gaussmbd/<module>/*.hpp, <prefix>/include/gaussmbd/gmbd/version.hpp,
# <prefix>/include/gaussmbd/apps/gmbd/cli.hpp, <prefix>/lib/libgaussmbd{,_cli}.a,
# <prefix>/lib/cmake/GaussMBD/, <prefix>/bin/gmbd, <prefix>/share/gaussmbd/scripts/.
include(CMakePackageConfigHelpers)

# Public headers: every header of the module folders except GMBD_INTERNAL_HEADERS (top-level
# CMakeLists.txt); ctest package_contents and package_headers_self_contained check the result.
foreach(mod IN LISTS GMBD_MODULES)
  file(GLOB mod_headers RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${mod}/*.hpp)
  list(REMOVE_ITEM mod_headers ${GMBD_INTERNAL_HEADERS})
  list(TRANSFORM mod_headers PREPEND ${PROJECT_SOURCE_DIR}/)
  install(FILES ${mod_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/${mod})
endforeach()
# Forwarding headers at the include paths of the previous release (io/simulation.hpp, …), for one
# release: the source tree's io/ holds formats only (docs/architecture.md, "Moved headers").
file(GLOB compat_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/compat/io/*.hpp)
install(FILES ${compat_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/io)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/gmbd/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/gmbd)
# The CLI library's one public header (apps/gmbd/commands.hpp stays internal).
install(FILES ${PROJECT_SOURCE_DIR}/apps/gmbd/cli.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/apps/gmbd)

install(TARGETS gaussmbd gaussmbd_cli gmbd_warnings EXPORT GaussMBDTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gmbd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT GaussMBDTargets NAMESPACE GaussMBD::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/GaussMBD)

configure_package_config_file(cmake/GaussMBDConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/GaussMBDConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/GaussMBD)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/GaussMBDConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/GaussMBDConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/GaussMBDConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/GaussMBD)
