# expr.cmake -- symbolic amounts (src/shapes/expr.c) beyond the cmocka tests.
# Included by native-tests/CMakeLists.txt.
#
#   expr_python   Python eval() of printed amounts equals memplan's eval
#                 (random amounts with escaped names, negative bindings)

add_executable(expr_tool "${CMAKE_CURRENT_SOURCE_DIR}/expr_tool.c")
target_compile_options(expr_tool PRIVATE ${MEMPLAN_WARNINGS})
target_link_libraries(expr_tool PRIVATE memplan_core)

add_test(NAME expr_python
  COMMAND ${PYTHON3} "${CMAKE_CURRENT_SOURCE_DIR}/expr_check.py" $<TARGET_FILE:expr_tool>)
set_tests_properties(expr_python PROPERTIES TIMEOUT 60 LABELS quick)
