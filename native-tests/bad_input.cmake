# bad_input.cmake -- `memplan info` on broken files (native-tests/bad_input_check.py):
# the generated bad/* fixtures, chain.onnx and a libonnx-testdata model truncated
# at every byte offset, and deterministic single-bit flips. Each run: exit 2 with
# a message naming the file (0 allowed where the damaged bytes are still a
# model), no crash or sanitizer report, within 10 s.
if(TARGET memplan)
  add_test(NAME bad_input
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/bad_input_check.py" "$<TARGET_FILE:memplan>"
            "${MEMPLAN_FIXTURES}")
  set_tests_properties(bad_input PROPERTIES FIXTURES_REQUIRED memplan_fixtures TIMEOUT 900 LABELS slow)
endif()
