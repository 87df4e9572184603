# Run at every build (the lmroof_git_commit target, top-level CMakeLists.txt): writes
# OUT, a header naming the commit the sources were built from, with "-dirty" when
# tracked files differ from it, so that results.json names the code it measured. The
# header is replaced only when that changes, so an unchanged tree rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DOUT=... -P git_commit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT commit)
  set(commit "unknown")  # not a git checkout (a source archive)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "#pragma once\n// Generated at build time by cmake/git_commit.cmake.\nnamespace lmroof::build_info {\ninline constexpr const char* git_commit = \"${commit}\";\n}  // namespace lmroof::build_info\n")
set(current "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" current)
endif()
if(NOT current STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
