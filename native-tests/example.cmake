# example.cmake -- examples/allocate.c (a runtime's use of the typed plan API)
# gives every planned value the offset `memplan plan --json` gives it, on the
# npm models with their dims bound and on the generated fixtures.
if(TARGET allocate AND TARGET memplan)
  add_test(NAME example_allocate
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/example_check.py" "$<TARGET_FILE:allocate>"
            "$<TARGET_FILE:memplan>" "${CMAKE_SOURCE_DIR}" "${MEMPLAN_FIXTURES}")
  set_tests_properties(example_allocate PROPERTIES FIXTURES_REQUIRED memplan_fixtures TIMEOUT 300 LABELS quick)
endif()
