# ctest driver: install the build tree to a scratch prefix, then configure, build and run a consumer project
# that uses find_package(bdt). Arguments: -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DCXX_FLAGS= and the
# generator, make program and compiler of the main build (see InstallAndBuild.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/InstallAndBuild.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
bdt_install_and_build(${SOURCE_DIR} consumer)
# The licence travels with the package.
file(GLOB_RECURSE licence ${WORK_DIR}/prefix/share/doc/*/LICENSE)
if(NOT licence)
  message(FATAL_ERROR "install: no share/doc/<package>/LICENSE under ${WORK_DIR}/prefix")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer run failed (${rc})")
endif()
