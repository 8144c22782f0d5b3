# trace.cmake -- `memplan plan --trace OUT.json`: the trace-event format's
# rules and the plan's figures on every planned fixture, residual.onnx event
# by event (trace_check.py).
if(TARGET memplan)
  add_test(NAME trace_export
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/trace_check.py" "$<TARGET_FILE:memplan>" "${MEMPLAN_FIXTURES}")
  set_tests_properties(trace_export PROPERTIES FIXTURES_REQUIRED memplan_fixtures TIMEOUT 120 LABELS quick)
endif()
