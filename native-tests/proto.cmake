# proto.cmake -- tests of the wire schema (src/onnx/onnx.proto) and of the
# protobuf-c code generated from it. Included by native-tests/CMakeLists.txt.
#
#   proto_schema           our schema vs Debian's ONNX 1.12 onnx.proto (descriptor
#                          sets compared field by field) + our IR 9..13 additions;
#                          fails when /usr/include/onnx/onnx.proto is absent (setup.sh installs it)
#   proto_schema_selftest  the comparison detects deliberately damaged schemas
#   proto_roundtrip        protobuf-c unpack+pack of every libonnx-testdata model and
#                          every generated fixture (and npm model, when installed)
#                          equals the input (python protobuf)

find_program(MEMPLAN_PROTOC NAMES protoc)
if(NOT MEMPLAN_PROTOC)
  set(MEMPLAN_PROTOC protoc) # the test then fails with protoc's absence as reason
endif()

add_executable(roundtrip_tool "${CMAKE_CURRENT_SOURCE_DIR}/roundtrip_tool.c")
target_compile_options(roundtrip_tool PRIVATE ${MEMPLAN_WARNINGS})
target_link_libraries(roundtrip_tool PRIVATE memplan_onnx_pb)

add_test(NAME proto_schema
  COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/proto_schema_check.py"
          "${CMAKE_SOURCE_DIR}/src/onnx/onnx.proto" /usr/include/onnx/onnx.proto
          --protoc "${MEMPLAN_PROTOC}")
set_tests_properties(proto_schema PROPERTIES TIMEOUT 60 LABELS quick)

add_test(NAME proto_schema_selftest
  COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/proto_schema_check.py" --self-test
          "${CMAKE_SOURCE_DIR}/src/onnx/onnx.proto" /usr/include/onnx/onnx.proto
          --protoc "${MEMPLAN_PROTOC}")
set_tests_properties(proto_schema_selftest PROPERTIES TIMEOUT 60 LABELS quick)

add_test(NAME proto_roundtrip
  COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/roundtrip_check.py"
          "$<TARGET_FILE:roundtrip_tool>" --fixtures "${MEMPLAN_FIXTURES}"
          --schema "${CMAKE_SOURCE_DIR}/src/onnx/onnx.proto" --protoc "${MEMPLAN_PROTOC}"
          --source-dir "${CMAKE_SOURCE_DIR}")
set_tests_properties(proto_roundtrip PROPERTIES
  FIXTURES_REQUIRED memplan_fixtures TIMEOUT 900 LABELS slow)
