# Shared steps of the install tests (included by InstallConsumer.cmake and ReadmeSnippet.cmake): install the
# main build tree to ${WORK_DIR}/prefix, then configure and build the project in `source` into
# ${WORK_DIR}/build against it, with the main build's generator, make program, compiler and flags (the flags
# the libraries were built with, e.g. sanitizers, which the consumer must link with too; a fresh machine may
# have Ninja but no make). Stops the test with `what` in the message on any failure.
function(bdt_install_and_build source what)
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${source} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
                          -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                          -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} configure failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} build failed (${rc})")
  endif()
endfunction()
