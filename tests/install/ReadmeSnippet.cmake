# ctest driver: build and run the README's "Dropping it into a Bullet project" snippets exactly as written.
# Extracts the fenced blocks that follow `<!-- snippet: readme-cmake -->` and `<!-- snippet: readme-cpp -->`,
# installs the build tree to a scratch prefix, bakes chair.bdt with the built bdt-bake, then configures,
# builds and runs the snippet project. Arguments: -DREADME= -DBUILD_DIR= -DWORK_DIR= -DBAKE= -DCXX_FLAGS=
# and the generator, make program and compiler of the main build (see InstallAndBuild.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/InstallAndBuild.cmake)
file(READ ${README} readme)
function(extract name out)
  string(FIND "${readme}" "<!-- snippet: ${name} -->" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "README has no snippet '${name}'")
  endif()
  string(SUBSTRING "${readme}" ${start} -1 rest)
  string(FIND "${rest}" "```" open)
  string(SUBSTRING "${rest}" ${open} -1 rest)
  string(FIND "${rest}" "\n" eol)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${rest}" ${eol} -1 rest)
  string(FIND "${rest}" "```" close)
  string(SUBSTRING "${rest}" 0 ${close} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()
extract(readme-cmake cmake_block)
extract(readme-cpp cpp_block)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/src)
file(WRITE ${WORK_DIR}/src/CMakeLists.txt
  "cmake_minimum_required(VERSION 3.25)\nproject(readme_snippet LANGUAGES CXX)\n"
  "set(CMAKE_CXX_STANDARD 20)\nadd_executable(my_game main.cpp)\n${cmake_block}")
file(WRITE ${WORK_DIR}/src/main.cpp "${cpp_block}")

bdt_install_and_build(${WORK_DIR}/src snippet)
execute_process(COMMAND ${BAKE} --shape chair --triangles 4000 -o chair.bdt WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "baking chair.bdt failed (${rc})")
endif()
execute_process(COMMAND ${WORK_DIR}/build/my_game WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "snippet run failed (${rc}): the chair did not come to rest upright on the ground")
endif()
