# cli.cmake -- the `memplan` shell against README.md (native-tests/cli_check.py):
# --help covers the README's synopsis, usage errors exit 1 and bad input 2 with
# a one-line message and nothing on stdout, write errors on stdout exit 2, an
# early-closed pipe never hangs.
if(TARGET memplan)
  add_test(NAME cli_usage
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/cli_check.py" "$<TARGET_FILE:memplan>"
            "${CMAKE_SOURCE_DIR}/README.md" "${MEMPLAN_FIXTURES}")
  set_tests_properties(cli_usage PROPERTIES FIXTURES_REQUIRED memplan_fixtures TIMEOUT 300 LABELS quick)
endif()
