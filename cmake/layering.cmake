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
# lmroof_forbid_includes refuses it. The refusal is followed through the project's
# headers to the bottom: a harmless header that includes a refused one brings it in as
# surely as the include would (a report that includes a header of the analysis which
# includes a claims header builds on the claims all the same). Fails the
# configure naming the file, the header, its library and, for one reached through
# others, the headers it came through. Headers that resolve to no file of the
# source tree (generated ones, system ones) are not followed. tests/layering/ proves it
# can fail (ctest -R layering).
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
  # _includes(FILE): the headers of the source tree FILE includes, resolved to paths
  # from root, in _includes_<FILE>; each file is read once (a macro, so the list stays
  # in this function's scope for every later file that reaches it).
  macro(_includes _file)
    if(NOT DEFINED _includes_${_file})
      get_filename_component(_file_dir ${_file} DIRECTORY)
      file(STRINGS ${root}/${_file} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
      set(_includes_${_file} "")
      foreach(_line ${_lines})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" _header "${_line}")
        foreach(_base "${_file_dir}" ${bases})
          if(EXISTS ${root}/${_base}/${_header} AND NOT IS_DIRECTORY ${root}/${_base}/${_header})
            file(REAL_PATH ${root}/${_base}/${_header} _absolute)
            file(RELATIVE_PATH _resolved ${root} ${_absolute})
            list(APPEND _includes_${_file} ${_resolved})
            break()
          endif()
        endforeach()
      endforeach()
    endif()
  endmacro()
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
      # Breadth first from the file: each header reached once, _via_<header> the headers
      # it came through ("" for the file's own includes).
      _includes(${file})
      set(queue "")
      set(reached "")
      foreach(header ${_includes_${file}})
        if(NOT header IN_LIST reached)
          list(APPEND queue ${header})
          list(APPEND reached ${header})
          set(_via_${header} "")
        endif()
      endforeach()
      while(queue)
        list(POP_FRONT queue header)
        set(via "${_via_${header}}")
        _owner(${header} header_owner)
        if(NOT header_owner STREQUAL "" AND NOT header_owner STREQUAL folder)
          set(header_target ${_owner_${header_owner}})
          # An allowance for the header, or for one it came through, covers it.
          set(allowed FALSE)
          foreach(step ${via} ${header})
            if("${file}|${step}" IN_LIST allowed_pairs)
              set(allowed TRUE)
            endif()
          endforeach()
          if(allowed)
            continue()
          endif()
          if(header_target IN_LIST forbidden)
            if(via)
              list(JOIN via " -> " through)
              list(APPEND errors "${file} includes ${header} (${header_target}) through ${through}, which ${target} must not include")
            else()
              list(APPEND errors "${file} includes ${header} (${header_target}), which ${target} must not include")
            endif()
            continue()  # said once: what it brings in is its own library's business
          elseif(NOT via AND NOT header_target IN_LIST links)
            list(APPEND errors "${file} includes ${header} (${header_target}), which ${target} does not link")
          endif()
        endif()
        _includes(${header})
        foreach(next ${_includes_${header}})
          if(NOT next IN_LIST reached)
            list(APPEND queue ${next})
            list(APPEND reached ${next})
            set(_via_${next} ${via} ${header})
          endif()
        endforeach()
      endwhile()
    endforeach()
  endforeach()
  if(errors)
    list(JOIN errors "\n  " shown)
    message(FATAL_ERROR "layering: a file includes a library its own does not build on:\n  ${shown}\n"
                        "(a file may include its own library and those its library links, and reaches none it is "
                        "refused through another header; docs/architecture.md)")
  endif()
endfunction()
