# bdt-bake on files whose counts make Assimp allocate gigabytes, past the header checks (a count glued to the OFF
# keyword): each must fail with one "error: " line within 10 s and 1 GiB of peak memory, the isolated reader's
# own limits (ImportSettings::isolateReader) stopping it, with no cap from outside. Under AddressSanitizer
# (-DSANITIZED=ON) the reader's address-space limit is not applied: the sanitizer's allocator refuses the
# allocation instead, and may print its report before the error line.
cmake_minimum_required(VERSION 3.25)

foreach(var BAKE MEASURE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ReaderLimits.cmake: -D${var}=... is required")
  endif()
endforeach()

set(environment "")
if(SANITIZED)
  set(environment ${CMAKE_COMMAND} -E env
      "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1")
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(failures "")
foreach(count 5555555555 555555555)
  set(mesh ${WORK}/glued-${count}.off)
  file(WRITE ${mesh} "OFF${count}\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
  execute_process(COMMAND ${environment} ${MEASURE} ${BAKE} ${mesh} -o ${WORK}/out.bdt
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE measured)
  if(NOT measured STREQUAL "0" OR NOT out MATCHES "rc=([0-9-]+) seconds=([0-9.]+) peak_kib=([0-9]+)")
    list(APPEND failures "OFF${count}: could not measure the run (${measured}): ${out}")
    continue()
  endif()
  set(rc ${CMAKE_MATCH_1})
  set(seconds ${CMAKE_MATCH_2})
  set(peak ${CMAKE_MATCH_3})
  message(STATUS "OFF${count}: exit ${rc}, ${seconds} s, peak ${peak} KiB: ${err}")
  if(NOT rc STREQUAL "1")
    list(APPEND failures "OFF${count}: exit ${rc} (expected 1)")
  endif()
  # One "error: " line naming the file. Under AddressSanitizer the reader process may print the sanitizer's own
  # report of the failed allocation first (the reader's address-space limit is not applied there).
  if(SANITIZED)
    set(expected "(^|\n)error: [^\n]*glued-${count}\\.off: [^\n]+\n$")
  else()
    set(expected "^error: [^\n]*glued-${count}\\.off: [^\n]+\n$")
  endif()
  if(NOT err MATCHES "${expected}")
    list(APPEND failures "OFF${count}: stderr does not end in one 'error: ' line naming the file: ${err}")
  endif()
  if(seconds GREATER_EQUAL 10)
    list(APPEND failures "OFF${count}: took ${seconds} s (limit 10)")
  endif()
  if(peak GREATER_EQUAL 1048576)
    list(APPEND failures "OFF${count}: peak memory ${peak} KiB (limit 1 GiB)")
  endif()
endforeach()

if(failures)
  list(JOIN failures "\n" shown)
  message(FATAL_ERROR "${shown}")
endif()
