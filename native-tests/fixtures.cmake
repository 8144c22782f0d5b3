# fixtures.cmake -- generates the hand-made test models (scripts/gen_fixtures.py)
# into ${MEMPLAN_FIXTURES} (build/fixtures) at test time. Generated files are
# never committed. Tests that read them declare
#   set_tests_properties(<test> PROPERTIES FIXTURES_REQUIRED memplan_fixtures)
# and ctest runs this setup test first (also with -R filters).
add_test(NAME memplan_fixtures_setup
  COMMAND ${PYTHON3} "${CMAKE_SOURCE_DIR}/scripts/gen_fixtures.py" "${MEMPLAN_FIXTURES}")
set_tests_properties(memplan_fixtures_setup PROPERTIES
  FIXTURES_SETUP memplan_fixtures TIMEOUT 120 LABELS quick)
