# complexity.cmake -- the complexity guard (native-tests/complexity_check.py):
# each family of hostile input (in-place arity, a repeated input, repeated
# singular fields, fan-in, fan-out, outputs of one node, packer ties, long
# names, rank, chain depth, subgraph count, annotate) is built at n and 8n and
# its command run under cachegrind; the test fails when the instruction count
# grows faster than n log n. Instruction counts, not seconds, so a loaded
# machine cannot make it flaky. Release build only (valgrind cannot run the
# sanitizer builds; their counts would not be the product's); labelled
# `valgrind` so that scripts/test.sh runs it in the valgrind phase.
if(TARGET memplan AND NOT MEMPLAN_SANITIZE AND NOT MEMPLAN_FUZZ)
  find_program(VALGRIND valgrind)
  if(VALGRIND)
    add_test(NAME complexity_guard
      COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/complexity_check.py" "$<TARGET_FILE:memplan>"
              --valgrind "${VALGRIND}")
    set_tests_properties(complexity_guard PROPERTIES TIMEOUT 900 LABELS "valgrind;complexity;slow")
  endif()
endif()
