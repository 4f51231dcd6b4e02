# tools.same_bake_across_cpus: `bdt-bake --reproducible` writes the same .bdt bytes whichever CPU runs it. OpenBLAS
# picks its kernels for the CPU at load time; OPENBLAS_CORETYPE makes it take another's, so one machine bakes as
# four would (with another BLAS the variable is ignored and the bakes match trivially).
# Inputs: BAKE, WORK.
include(${CMAKE_CURRENT_LIST_DIR}/RunOk.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(first "")
foreach(core Prescott Nehalem Sandybridge Haswell)
  run_ok(out ${CMAKE_COMMAND} -E env OPENBLAS_CORETYPE=${core}
    ${BAKE} --shape chair --triangles 3000 --basis modal --modes 10 --reproducible -o ${WORK}/chair-${core}.bdt)
  if(first STREQUAL "")
    set(first ${core})
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/chair-${first}.bdt ${WORK}/chair-${core}.bdt
    RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "the modal bake with OpenBLAS's ${core} kernels differs from the one with ${first}'s")
  endif()
endforeach()
message(STATUS "the modal chair baked alike with OpenBLAS's Prescott, Nehalem, Sandybridge and Haswell kernels")
