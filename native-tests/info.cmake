# info.cmake -- `memplan info --json` cross-checked against Debian's python onnx
# (native-tests/info_check.py) on every libonnx-testdata model, every npm
# fixture model (scripts/list_fixtures.sh or node_modules) and every generated
# fixture in ${MEMPLAN_FIXTURES}.
if(TARGET memplan)
  add_test(NAME info_crosscheck
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/info_check.py" "$<TARGET_FILE:memplan>"
            --source-dir "${CMAKE_SOURCE_DIR}" --fixtures "${MEMPLAN_FIXTURES}")
  set_tests_properties(info_crosscheck PROPERTIES
    FIXTURES_REQUIRED memplan_fixtures TIMEOUT 900 LABELS slow)
endif()
