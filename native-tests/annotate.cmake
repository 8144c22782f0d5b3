# annotate.cmake -- `memplan annotate` round trip (native-tests/annotate_check.py):
# every libonnx-testdata model, npm fixture and generated fixture is annotated,
# read back by our loader and by Debian's python onnx, and compared with the
# input: only the onnx_light.* metadata entries may differ, and they must equal
# `memplan inplace --json`.
find_program(MEMPLAN_PROTOC_ANNOTATE NAMES protoc)
if(NOT MEMPLAN_PROTOC_ANNOTATE)
  set(MEMPLAN_PROTOC_ANNOTATE protoc)
endif()
if(TARGET memplan)
  add_test(NAME annotate_roundtrip
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/annotate_check.py" "$<TARGET_FILE:memplan>"
            --source-dir "${CMAKE_SOURCE_DIR}" --fixtures "${MEMPLAN_FIXTURES}"
            --schema "${CMAKE_SOURCE_DIR}/src/onnx/onnx.proto" --protoc "${MEMPLAN_PROTOC_ANNOTATE}")
  # A hang guard, not a time target: ~7,000 memplan processes, ~60 ms each
  # under ASan on a 2-core VM (LeakSanitizer's exit scan is half of it); alone
  # 440-500 s there, 800 s beside the other ASan tests (2026-12-06).
  set_tests_properties(annotate_roundtrip PROPERTIES
    FIXTURES_REQUIRED memplan_fixtures TIMEOUT 2400 LABELS slow)
endif()

# annotate is atomic: failures leave no partial file, the input is never touched;
# OUT keeps its permissions, and a link, FIFO or device at OUT is never replaced.
add_test(NAME annotate_cli
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/annotate_cli_check.py $<TARGET_FILE:memplan>
          /usr/share/libonnx-testdata/data/node/test_if/model.onnx)
set_tests_properties(annotate_cli PROPERTIES LABELS quick)
