# install.cmake -- the installed C library (included by CMakeLists.txt, native only).
#
# `cmake --install BUILD --prefix P` puts in place:
#   P/lib/libmemplan.a        one self-contained archive: the core and the
#                             protobuf-c runtime, partially linked into one
#                             object whose only global symbols are memplan_*
#   P/lib/libmemplan.so*      the same code, exporting memplan_* only (memplan.map)
#   P/include/memplan/*.h     the public headers
#   P/bin/memplan             the CLI
#   P/share/man/man1/memplan.1  from `memplan --help` (manpage.cmake)
#   P/lib/pkgconfig/memplan.pc, P/lib/cmake/memplan/memplanConfig*.cmake
# The build's own targets (memplan_core, memplan_protobuf_c) stay as they are;
# both libraries are made from their archives, so nothing is compiled twice.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MEMPLAN_SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}") # 0.x: every minor may break the ABI
# Both archives go into a shared library, so their code must be position independent.
set_target_properties(memplan_core memplan_protobuf_c PROPERTIES POSITION_INDEPENDENT_CODE ON)

# The shared library: every object of both archives, exports by the version script.
file(WRITE "${CMAKE_BINARY_DIR}/memplan_shared_stub.c" "/* libmemplan.so: the code comes from the archives */\n")
add_library(memplan_shared SHARED "${CMAKE_BINARY_DIR}/memplan_shared_stub.c")
# The archives by file, not by target: memplan_core brings memplan_protobuf_c
# as a plain dependency, which CMake will not mix with WHOLE_ARCHIVE.
target_link_libraries(memplan_shared PRIVATE -Wl,--whole-archive "$<TARGET_FILE:memplan_core>"
  "$<TARGET_FILE:memplan_protobuf_c>" -Wl,--no-whole-archive m)
add_dependencies(memplan_shared memplan_core memplan_protobuf_c)
target_link_options(memplan_shared PRIVATE
  "-Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/memplan.map" -Wl,--no-undefined)
set_target_properties(memplan_shared PROPERTIES OUTPUT_NAME memplan
  VERSION "${PROJECT_VERSION}" SOVERSION "${MEMPLAN_SOVERSION}"
  LINK_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/memplan.map")

# The static library: `cc -r` joins both archives into one object (so a user
# links one file, and the runtime's protobuf_c_* cannot clash with their own
# libprotobuf-c), objcopy makes every global but memplan_* local, ar archives it.
set(MEMPLAN_STATIC "${CMAKE_BINARY_DIR}/install-lib/libmemplan.a")
add_custom_command(OUTPUT "${MEMPLAN_STATIC}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/install-lib"
  COMMAND ${CMAKE_COMMAND} -E rm -f "${MEMPLAN_STATIC}"
  COMMAND ${CMAKE_C_COMPILER} -r -nostdlib -o "${CMAKE_BINARY_DIR}/install-lib/memplan.o"
          -Wl,--whole-archive "$<TARGET_FILE:memplan_core>" "$<TARGET_FILE:memplan_protobuf_c>" -Wl,--no-whole-archive
  COMMAND ${CMAKE_OBJCOPY} --wildcard "--keep-global-symbol=memplan_*" "${CMAKE_BINARY_DIR}/install-lib/memplan.o"
  COMMAND ${CMAKE_AR} rcs "${MEMPLAN_STATIC}" "${CMAKE_BINARY_DIR}/install-lib/memplan.o"
  DEPENDS memplan_core memplan_protobuf_c
  COMMENT "libmemplan.a (one object, memplan_* global)")
add_custom_target(memplan_static ALL DEPENDS "${MEMPLAN_STATIC}")

# The man page, from the CLI's --help.
set(MEMPLAN_MAN "${CMAKE_BINARY_DIR}/memplan.1")
add_custom_command(OUTPUT "${MEMPLAN_MAN}"
  COMMAND ${CMAKE_COMMAND} "-DMEMPLAN=$<TARGET_FILE:memplan>" "-DVERSION=${PROJECT_VERSION}"
          "-DOUT=${MEMPLAN_MAN}" -P "${CMAKE_CURRENT_LIST_DIR}/manpage.cmake"
  DEPENDS memplan "${CMAKE_CURRENT_LIST_DIR}/manpage.cmake"
  COMMENT "memplan.1 from memplan --help")
add_custom_target(memplan_man ALL DEPENDS "${MEMPLAN_MAN}")

# pkg-config and find_package files: paths relative to where they are
# installed (${pcfiledir}, CMAKE_CURRENT_LIST_DIR), so a tree moved or
# installed with another --prefix still finds itself.
file(RELATIVE_PATH MEMPLAN_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file("${CMAKE_CURRENT_LIST_DIR}/memplan.pc.in" "${CMAKE_BINARY_DIR}/memplan.pc" @ONLY)
set(MEMPLAN_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/memplan")
file(RELATIVE_PATH MEMPLAN_CONFIG_TO_PREFIX "/p/${MEMPLAN_CMAKE_DIR}" "/p")
configure_file("${CMAKE_CURRENT_LIST_DIR}/memplanConfig.cmake.in" "${CMAKE_BINARY_DIR}/memplanConfig.cmake" @ONLY)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/memplanConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)

install(FILES "${MEMPLAN_STATIC}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS memplan_shared LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS memplan RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/memplan" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h")
install(FILES "${MEMPLAN_MAN}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${CMAKE_BINARY_DIR}/memplan.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
install(FILES "${CMAKE_BINARY_DIR}/memplanConfig.cmake" "${CMAKE_BINARY_DIR}/memplanConfigVersion.cmake"
  DESTINATION "${MEMPLAN_CMAKE_DIR}")
