# inplace.cmake -- seed 001 results against the cases the reference
# implementation's own tests pin (native-tests/reference_check.py): tags,
# node tags, the tags `memplan annotate` writes (initializers included), and
# in-place reuse / release list entries.
if(TARGET memplan)
  add_test(NAME seed001_reference
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/reference_check.py" "$<TARGET_FILE:memplan>")
  set_tests_properties(seed001_reference PROPERTIES TIMEOUT 300 LABELS quick)
endif()
