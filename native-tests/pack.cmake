# pack.cmake -- `memplan pack` end to end (native-tests/pack_check.py): CSV and
# JSON outputs checked by an independent overlap sweep and bound, on seeded
# random instances and, when the folder exists, ../shared/dsa-bench.
if(TARGET memplan)
  add_test(NAME pack_cli
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/pack_check.py" "$<TARGET_FILE:memplan>"
            --dsa "${CMAKE_SOURCE_DIR}/../shared/dsa-bench")
  set_tests_properties(pack_cli PROPERTIES TIMEOUT 600 LABELS quick)
endif()
