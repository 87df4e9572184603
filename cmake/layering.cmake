# The targets `node` links (LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES, $<LINK_ONLY:>
# unwrapped; names that are not targets, such as -lm, left out).
function(_lmroof_linked_targets node out)
  set(result "")
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libs ${node} ${property})
    if(NOT libs)
      continue()
    endif()
    foreach(lib ${libs})
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
      if(TARGET ${lib})
        list(APPEND result ${lib})
      endif()
    endforeach()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# lmroof_forbid_links(TARGET FORBIDDEN...): fails the configure when TARGET links any
# of FORBIDDEN, directly or through the libraries it links (LINK_LIBRARIES and
# INTERFACE_LINK_LIBRARIES, followed to the bottom). Keeps the layering
# kernels -> profiler -> bench/analysis -> reports -> cli: a link added back up the
# chain stops the configure here, naming the path it took. tests/layering/ proves
# it can fail (ctest -R layering).
function(lmroof_forbid_links target)
  # Each link as "a>b>c": the path from target to the library.
  set(paths "")
  function(_walk node path)
    _lmroof_linked_targets(${node} libs)
    foreach(lib ${libs})
      string(FIND "${path}>" ">${lib}>" seen)
      if(NOT seen EQUAL -1)
        continue()
      endif()
      set_property(GLOBAL APPEND PROPERTY _LMROOF_LINK_PATHS "${path}>${lib}")
      _walk(${lib} "${path}>${lib}")
    endforeach()
  endfunction()
  set_property(GLOBAL PROPERTY _LMROOF_LINK_PATHS "")
  _walk(${target} ">${target}")
  get_property(paths GLOBAL PROPERTY _LMROOF_LINK_PATHS)
  foreach(forbidden ${ARGN})
    foreach(path ${paths})
      if(path MATCHES ">${forbidden}$")
        string(SUBSTRING "${path}" 1 -1 shown)
        string(REPLACE ">" " -> " shown "${shown}")
        message(FATAL_ERROR "layering: ${target} must not link ${forbidden}, but does: ${shown} "
                            "(kernels -> profiler -> bench/analysis -> reports -> cli; docs/architecture.md)")
      endif()
    endforeach()
  endforeach()
endfunction()

# lmroof_forbid_includes(TARGET FORBIDDEN...): files of TARGET's folder must not include
# a header of the FORBIDDEN libraries, even where TARGET links them through another
# library (reports link the comparison, which links the statistics: a report still
# must not compute statistics while it renders). lmroof_check_includes enforces it.
function(lmroof_forbid_includes target)
  set_property(TARGET ${target} APPEND PROPERTY LMROOF_FORBIDDEN_INCLUDES ${ARGN})
endfunction()

# lmroof_allow_include(FILE HEADER REASON): one include that lmroof_forbid_includes
# would refuse, kept on purpose until the work moves below (paths from the source root).
function(lmroof_allow_include file header reason)
  set_property(GLOBAL APPEND PROPERTY _LMROOF_ALLOWED_INCLUDES "${file}|${header}")
endfunction()

# The libraries a target may include: itself and those it links directly. An INTERFACE
# library is a name for the libraries it links (lmroof_core, lmroof_analysis), so it is
# looked through.
function(_lmroof_direct_links target out)
  set(result "")
  _lmroof_linked_targets(${target} libs)
  foreach(lib ${libs})
    list(APPEND result ${lib})
    get_target_property(type ${lib} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      _lmroof_direct_links(${lib} through)
      list(APPEND result ${through})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# lmroof_check_includes(ROOT TARGET...): each TARGET owns the folder of the CMakeLists.txt
# that defines it, less the subfolders another TARGET owns (one folder, one library).
# Every #include "..." in a file of that folder (.h, .cpp, .cu, .cuh) must name a header
# of the same library or of a library the target links directly, and none that
# lmroof_forbid_includes refuses it. Fails the configure naming the file, the line, the
# header and its library. Headers that resolve to no owned folder (generated ones,
# system ones) are not checked. tests/layering/ proves it can fail (ctest -R layering).
function(lmroof_check_includes root)
  set(folders "")
  foreach(target ${ARGN})
    get_target_property(dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH rel ${root} ${dir})
    list(APPEND folders "${rel}")
    set(_owner_${rel} ${target})
  endforeach()
  # Where a quoted include is looked up: the including file's folder, then the include
  # folders the targets declare that lie in the source tree (the root, kernels/).
  set(bases ".")
  foreach(target ${ARGN})
    foreach(property INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES)
      get_target_property(dirs ${target} ${property})
      foreach(dir ${dirs})
        if(dir AND IS_ABSOLUTE "${dir}")
          file(RELATIVE_PATH rel_dir ${root} ${dir})
          if(rel_dir STREQUAL "")
            set(rel_dir ".")
          endif()
          if(NOT rel_dir MATCHES "^\\.\\.")
            list(APPEND bases "${rel_dir}")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES bases)
  get_property(allowed_pairs GLOBAL PROPERTY _LMROOF_ALLOWED_INCLUDES)
  # The owner of a path (relative to root): the longest owned folder it lies in.
  function(_owner path out)
    set(best "")
    set(best_length -1)
    foreach(folder ${folders})
      string(LENGTH "${folder}" length)
      string(FIND "${path}/" "${folder}/" at)
      if(at EQUAL 0 AND length GREATER best_length)
        set(best "${folder}")
        set(best_length ${length})
      endif()
    endforeach()
    set(${out} "${best}" PARENT_SCOPE)
  endfunction()
  set(errors "")
  foreach(folder ${folders})
    set(target ${_owner_${folder}})
    _lmroof_direct_links(${target} links)
    get_target_property(forbidden ${target} LMROOF_FORBIDDEN_INCLUDES)
    if(NOT forbidden)
      set(forbidden "")
    endif()
    file(GLOB_RECURSE files RELATIVE ${root} ${root}/${folder}/*.h ${root}/${folder}/*.hpp ${root}/${folder}/*.cpp
         ${root}/${folder}/*.cu ${root}/${folder}/*.cuh)
    foreach(file ${files})
      _owner(${file} file_owner)
      if(NOT file_owner STREQUAL folder)
        continue()  # a subfolder that is a library of its own
      endif()
      get_filename_component(file_dir ${file} DIRECTORY)
      file(STRINGS ${root}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
      foreach(line ${lines})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" header "${line}")
        set(resolved "")
        foreach(base "${file_dir}" ${bases})
          if(EXISTS ${root}/${base}/${header} AND NOT IS_DIRECTORY ${root}/${base}/${header})
            file(REAL_PATH ${root}/${base}/${header} absolute)
            file(RELATIVE_PATH resolved ${root} ${absolute})
            break()
          endif()
        endforeach()
        if(resolved STREQUAL "")
          continue()
        endif()
        _owner(${resolved} header_owner)
        if(header_owner STREQUAL "" OR header_owner STREQUAL folder)
          continue()
        endif()
        set(header_target ${_owner_${header_owner}})
        if("${file}|${resolved}" IN_LIST allowed_pairs)
          continue()
        endif()
        if(header_target IN_LIST forbidden)
          list(APPEND errors "${file} includes ${resolved} (${header_target}), which ${target} must not include")
        elseif(NOT header_target IN_LIST links)
          list(APPEND errors "${file} includes ${resolved} (${header_target}), which ${target} does not link")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(errors)
    list(JOIN errors "\n  " shown)
    message(FATAL_ERROR "layering: a file includes a library its own does not build on:\n  ${shown}\n"
                        "(a file may include its own library and those its library links; docs/architecture.md)")
  endif()
endfunction()
