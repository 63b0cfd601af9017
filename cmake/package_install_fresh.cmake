# ctest package_install: installs the build tree into an empty prefix (a prefix left over from an
# earlier install could still hold headers that are no longer installed).
#   cmake -DBUILD_DIR=<build tree> -DPREFIX=<prefix> -P package_install_fresh.cmake
foreach(var BUILD_DIR PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_install_fresh.cmake: -D${var}=… is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${result})")
endif()
