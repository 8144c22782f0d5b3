# regressions.cmake -- every input a fuzz target once crashed on (or a harness
# invariant failed on) is kept under native-tests/regressions/<target>/ and
# replayed through that target's harness (fuzz/replay.c): it must now run to
# the end with no crash, sanitizer report or invariant failure.
foreach(t ${MEMPLAN_FUZZ_TARGETS})
  if(TARGET replay_${t} AND IS_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/regressions/${t}")
    add_test(NAME fuzz_regressions_${t}
      COMMAND replay_${t} -v "${CMAKE_CURRENT_SOURCE_DIR}/regressions/${t}")
    set_tests_properties(fuzz_regressions_${t} PROPERTIES LABELS "fuzz;regression;quick" TIMEOUT 300)
  endif()
endforeach()
