# reorder.cmake -- `plan --order` and `reorder` through the CLI (reorder_check.py).
if(TARGET memplan)
  add_test(NAME reorder_cli COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/reorder_check.py" "$<TARGET_FILE:memplan>")
  set_tests_properties(reorder_cli PROPERTIES TIMEOUT 120 LABELS quick)
endif()
