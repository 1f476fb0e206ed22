# Shared build helpers: warning flags for project targets and gtest registration.

# credledger_set_warnings(<target>): the project's warning set; errors when CREDLEDGER_WERROR.
# Also compiles the target as a unity build when CREDLEDGER_UNITY_BUILD is on.
function(credledger_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(CREDLEDGER_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(CREDLEDGER_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()

# credledger_add_library(<name> SOURCES ... DEPS ...): one library per folder.
function(credledger_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  credledger_set_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY CREDLEDGER_LIBRARIES ${name})
endfunction()

# credledger_write_layers(<file>): writes the layering rule that the link lines state, for the
# include check (test/layering; docs/architecture.md, "Layers"). One line per library and one
# per library it names on its own link line:
#   library <name> <folder relative to the source root, "-" for the generated protobuf code>
#   links <name> <library or imported target>
function(credledger_write_layers file)
  get_property(libraries GLOBAL PROPERTY CREDLEDGER_LIBRARIES)
  list(APPEND libraries credledger_proto credledger_api_proto credledger_api_grpc)
  set(text "")
  foreach(library IN LISTS libraries)
    get_target_property(dir ${library} SOURCE_DIR)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${dir})
    if(folder STREQUAL "proto")
      set(folder "-")
    endif()
    string(APPEND text "library ${library} ${folder}\n")
    get_target_property(links ${library} LINK_LIBRARIES)
    foreach(link IN LISTS links)
      string(APPEND text "links ${library} ${link}\n")
    endforeach()
  endforeach()
  file(GENERATE OUTPUT ${file} CONTENT "${text}")
endfunction()
# credledger_add_test(<name> SOURCES ... DEPS ... [LABELS ...]): a gtest binary registered
# with ctest, one ctest entry per test case.
function(credledger_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  credledger_set_warnings(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  # The labels go on from a file ctest reads after the discovered tests: the discovery script
  # splits a list in PROPERTIES into separate arguments, which kept only a binary's first label.
  if(ARG_LABELS)
    set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
    file(WRITE "${labels_file}"
      "if(${name}_TESTS)\n"
      "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\")\n"
      "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
  endif()
endfunction()
