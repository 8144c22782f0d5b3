# inplace.cmake -- value and node tags against the cases the reference
# implementation's own backend tests pin (native-tests/tags_reference_check.py):
# `memplan tags` and the tags `memplan annotate` writes, initializers included.
if(TARGET memplan)
  add_test(NAME tags_reference
    COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/tags_reference_check.py" "$<TARGET_FILE:memplan>")
  set_tests_properties(tags_reference PROPERTIES TIMEOUT 300)
endif()
