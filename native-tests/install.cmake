# install.cmake -- cmake --install into a temporary prefix, and the example
# built against the installed copy with pkg-config and find_package
# (install_check.sh). Slow: it configures and builds a project of its own.
if(TARGET memplan_shared AND TARGET allocate)
  add_test(NAME install_prefix
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/install_check.sh" "${CMAKE_BINARY_DIR}" "${CMAKE_SOURCE_DIR}"
            "${MEMPLAN_FIXTURES}" "$<TARGET_FILE:allocate>" "$<TARGET_FILE:memplan>")
  set_tests_properties(install_prefix PROPERTIES FIXTURES_REQUIRED memplan_fixtures TIMEOUT 300 LABELS slow)
endif()
