# Shape inference checked against ONNX's own backend tests (libonnx-testdata):
# fails on a crash or when a case listed in shapes_baseline.txt regresses.
# The per-op table lands in the build dir; refresh the committed copy with
#   native-tests/shapes_testdata.py build/native/memplan --table native-tests/SHAPES_TESTDATA.md
add_test(NAME shapes_testdata
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/shapes_testdata.py $<TARGET_FILE:memplan>
          --baseline ${CMAKE_CURRENT_SOURCE_DIR}/shapes_baseline.txt
          --table ${CMAKE_BINARY_DIR}/SHAPES_TESTDATA.md)
set_tests_properties(shapes_testdata PROPERTIES TIMEOUT 900 LABELS slow)
