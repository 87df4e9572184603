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
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${node} ${property})
      if(NOT libs)
        continue()
      endif()
      foreach(lib ${libs})
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
        if(NOT TARGET ${lib})
          continue()
        endif()
        string(FIND "${path}>" ">${lib}>" seen)
        if(NOT seen EQUAL -1)
          continue()
        endif()
        set_property(GLOBAL APPEND PROPERTY _LMROOF_LINK_PATHS "${path}>${lib}")
        _walk(${lib} "${path}>${lib}")
      endforeach()
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
