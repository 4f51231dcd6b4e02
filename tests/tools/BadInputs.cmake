# Every bad input of bdt-bake and bdt-inspect must exit with code 1 and print exactly one stderr line that
# starts with "error: ", and never crash. A failed bake must not leave its output file behind.
#
# Each case runs with its address space capped at 4 GiB (POSIX `ulimit -v`), so that a reader that trusts a
# size field in a hostile file fails with std::bad_alloc (which must still become the one error line) instead
# of taking the machine's memory. Assimp's invalid/OutOfMemory.off is such a file: it claims 353535235358
# vertices and Assimp's OFF reader alone would allocate 16 GB for it; `bdt::ImportMesh` now rejects the
# header first, and the cap keeps the test safe should that check ever regress. Under AddressSanitizer
# (-DSANITIZED=ON) the sanitizer's allocation cap plays that role.
cmake_minimum_required(VERSION 3.25)

foreach(var BAKE INSPECT CHECK WORK MODELS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "BadInputs.cmake: -D${var}=... is required")
  endif()
endforeach()

set(failures "")
set(cases 0)

set(memory_cap_kib 4194304)
if(SANITIZED)
  # AddressSanitizer reserves terabytes of shadow address space, so `ulimit -v` cannot be used; its own
  # allocator cap makes an oversized allocation throw std::bad_alloc instead.
  set(capped ${CMAKE_COMMAND} -E env
      "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=4096:detect_leaks=1")
elseif(UNIX)
  set(capped sh -c "ulimit -v ${memory_cap_kib} && exec \"$@\"" capped)
else()
  set(capped "")
endif()

# expect_error(<command...>): exit code 1, one line "error: ..." on stderr.
function(expect_error)
  execute_process(COMMAND ${capped} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN ARGN " " shown)
  math(EXPR count "${cases} + 1")
  set(cases ${count} PARENT_SCOPE)
  if(NOT rc STREQUAL "1")
    list(APPEND failures "exit ${rc} (expected 1): ${shown}\n  stderr: ${err}")
  elseif(NOT err MATCHES "^error: [^\n]+\n$")
    list(APPEND failures "stderr is not one 'error: ' line: ${shown}\n  stderr: ${err}")
  elseif(EXISTS ${WORK}/out.bdt)
    list(APPEND failures "a failed bake left its output behind: ${shown}")
    file(REMOVE ${WORK}/out.bdt)
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(out ${WORK}/out.bdt)

# A valid asset to damage, and a valid OBJ that is not an asset.
execute_process(COMMAND ${BAKE} --shape box --triangles 200 -o ${WORK}/good.bdt --modes 3 RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not bake the reference asset: ${err}")
endif()
file(SIZE ${WORK}/good.bdt size)
math(EXPR last "${size} - 1")
math(EXPR middle "${size} / 2")
foreach(length 0 10 55 56 57 ${middle} ${last})
  execute_process(COMMAND ${CHECK} truncate ${WORK}/good.bdt ${WORK}/truncated-${length}.bdt ${length})
endforeach()
# Offsets: magic, version, flags, vertex count, mode count, payload length, checksum, payload, last byte.
foreach(offset 0 8 12 16 32 40 48 60 ${middle} ${last})
  execute_process(COMMAND ${CHECK} flip ${WORK}/good.bdt ${WORK}/corrupt-${offset}.bdt ${offset})
endforeach()
file(WRITE ${WORK}/garbage.obj "v 0 0 0\nv 1 0\nf 1 2 3 4 5\nthis is not an OBJ\n")
file(WRITE ${WORK}/flat.vtk "# vtk DataFile Version 2.0\nflat\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0\n1 0 0\n0 1 0\n1 1 0\nCELLS 1 5\n4 0 1 2 3\n")
file(WRITE ${WORK}/not-an-asset.bdt "hello, this is a text file and not a BD-Tree asset at all........\n")
execute_process(COMMAND ${CHECK} truncate ${MODELS}/STL/Spider_binary.stl ${WORK}/truncated.stl 300)

include(${CMAKE_CURRENT_LIST_DIR}/BadInputsCases.cmake)

list(LENGTH failures failed)
if(failed GREATER 0)
  list(JOIN failures "\n" report)
  message(FATAL_ERROR "${failed} of ${cases} bad-input cases misbehaved:\n${report}")
endif()
message(STATUS "all ${cases} bad-input cases exited 1 with one 'error: ' line")
