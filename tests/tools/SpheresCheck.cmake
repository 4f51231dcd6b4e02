# Bakes one model with bdt-bake, then for random q checks with the independent check_spheres oracle that
# every node sphere printed by `bdt-inspect spheres` contains every vertex of the deformed mesh printed by
# `bdt-inspect mesh` under that node (both bounds, all nodes and one level at a time).
#
# cmake -DBAKE=... -DINSPECT=... -DCHECK=... -DWORK=<dir> -DNAME=<name> -DSOURCE=<mesh file | shape:NAME:TRIANGLES>
#       -DMODES=6 -DSEEDS=4 -P SpheresCheck.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var BAKE INSPECT CHECK WORK NAME SOURCE MODES SEEDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "SpheresCheck.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a command that must succeed; its stdout goes to the variable `out_var` or, with TO_FILE, to a file.
function(run_ok out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TO_FILE" "")
  if(arg_TO_FILE)
    execute_process(COMMAND ${arg_UNPARSED_ARGUMENTS} RESULT_VARIABLE rc OUTPUT_FILE ${arg_TO_FILE} ERROR_VARIABLE err)
    set(out "")
  else()
    execute_process(COMMAND ${arg_UNPARSED_ARGUMENTS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  endif()
  if(NOT rc EQUAL 0)
    list(JOIN arg_UNPARSED_ARGUMENTS " " shown)
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Runs check_spheres on one CSV and adds its vertex-in-sphere count to `total`.
function(check_csv csv obj)
  run_ok(result ${CHECK} check ${csv} ${obj} ${WORK}/rest.obj ${ARGN})
  if(NOT result MATCHES "OK: ([0-9]+) vertex-in-sphere checks")
    message(FATAL_ERROR "unexpected check_spheres output: ${result}")
  endif()
  math(EXPR sum "${total} + ${CMAKE_MATCH_1}")
  set(total ${sum} PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(asset ${WORK}/${NAME}.bdt)
if(SOURCE MATCHES "^shape:([a-z]+):([0-9]+)$")
  set(input --shape ${CMAKE_MATCH_1} --triangles ${CMAKE_MATCH_2})
else()
  set(input ${SOURCE})
endif()
run_ok(ignored ${BAKE} ${input} -o ${asset} --basis smooth --modes ${MODES})
run_ok(info ${INSPECT} info ${asset})
string(JSON modes GET "${info}" modes)
string(JSON levels GET "${info}" levels)
string(JSON nodes GET "${info}" nodes)
if(NOT modes EQUAL MODES)
  message(FATAL_ERROR "${NAME}: the asset has ${modes} modes, asked for ${MODES}")
endif()

# The rest mesh (no --q: q = 0) gives the model size to the oracle, and is itself checked.
run_ok(ignored ${INSPECT} mesh ${asset} --out ${WORK}/rest.obj)
set(total 0)
run_ok(ignored ${INSPECT} spheres ${asset} TO_FILE ${WORK}/rest.csv)
check_csv(${WORK}/rest.csv ${WORK}/rest.obj)

# Amplitudes cycle through 1/2, 1/5 and 1/50 of the model size (half its bounding-box diagonal).
set(fractions 0.5 0.2 0.02)
foreach(seed RANGE 1 ${SEEDS})
  math(EXPR pick "${seed} % 3")
  list(GET fractions ${pick} fraction)
  run_ok(q ${CHECK} random-q ${WORK}/rest.obj ${MODES} ${seed} ${fraction})
  string(STRIP "${q}" q)
  run_ok(ignored ${INSPECT} mesh ${asset} --q=${q} --out ${WORK}/deformed.obj)
  foreach(bound paper tight)
    run_ok(ignored ${INSPECT} spheres ${asset} --q=${q} --bound ${bound} TO_FILE ${WORK}/spheres.csv)
    check_csv(${WORK}/spheres.csv ${WORK}/deformed.obj)
  endforeach()
  math(EXPR level "${seed} % ${levels}")
  run_ok(ignored ${INSPECT} spheres ${asset} --q=${q} --level ${level} TO_FILE ${WORK}/level.csv)
  check_csv(${WORK}/level.csv ${WORK}/deformed.obj ${level})
endforeach()
message(STATUS "${NAME}: ${nodes} nodes, ${levels} levels, ${MODES} modes: ${total} vertex-in-sphere checks passed")
