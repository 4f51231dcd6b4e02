# run_ok(<out_var> COMMAND... [TO_FILE <file>]): runs a command that must succeed (else a fatal error showing
# the command and its output). Its stdout goes to <out_var> or, with TO_FILE, to the file; its stderr (where
# the tools write their notes) to <out_var>_stderr. Shared by the end-to-end tool test scripts.
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
  set(${out_var}_stderr "${err}" PARENT_SCOPE)
endfunction()
