# Installs the library, its headers and a CMake package so that user projects can
# find_package(GaussMBD) and link GaussMBD::gaussmbd to define models of their own.
include(CMakePackageConfigHelpers)

foreach(mod IN LISTS GMBD_MODULES)
  install(DIRECTORY ${mod}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/${mod}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/gmbd/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gaussmbd/gmbd)

install(TARGETS gaussmbd gmbd_warnings EXPORT GaussMBDTargets
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
