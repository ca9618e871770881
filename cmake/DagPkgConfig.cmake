# RESULT: "" when PATH is neither PREFIX nor under it, else "${prefix}" or
# "${prefix}/REL".
function(dag_pc_under_prefix result prefix path)
  file(RELATIVE_PATH rel "${prefix}" "${path}")
  string(REGEX REPLACE "/+$" "" rel "${rel}")
  if(rel STREQUAL "")
    set(${result} "\${prefix}" PARENT_SCOPE)
  elseif(rel STREQUAL ".." OR rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
    set(${result} "" PARENT_SCOPE)
  else()
    set(${result} "\${prefix}/${rel}" PARENT_SCOPE)
  endif()
endfunction()

# dag_write_pc(TEMPLATE OUT PREFIX LIBDIR INCLUDEDIR RELOCATABLE VERSION)
#
# Writes libdag.pc from TEMPLATE (cmake/libdag.pc.in) for the install prefix
# PREFIX and the install directories LIBDIR and INCLUDEDIR as GNUInstallDirs
# holds them (relative to the prefix, or absolute). Used at configure time
# (the copy in the build tree) and at install time (the installed copy, made
# for the prefix `cmake --install --prefix` installs into).
#
# Not RELOCATABLE (the default): absolute paths, `prefix` the install prefix,
# so that pkg-config drops -I/usr/include and -L/usr/lib as system
# directories. RELOCATABLE: `prefix` is found from the file's own place
# (${pcfiledir}), so a prefix moved after installing still works. Either way
# an install directory outside the prefix (absolute: Nix's split outputs) is
# written as it is: "${prefix}/..." or a path from ${pcfiledir} would point
# to the wrong place. A relocatable file cannot find a library directory
# outside its prefix from its own place, so it is then written absolute.
function(dag_write_pc template out prefix libdir includedir relocatable version)
  string(REGEX REPLACE "(.)/+$" "\\1" prefix "${prefix}")
  foreach(dir libdir includedir)
    if(IS_ABSOLUTE "${${dir}}")
      set(full_${dir} "${${dir}}")
    else()
      set(full_${dir} "${prefix}/${${dir}}")
    endif()
    dag_pc_under_prefix(pc_${dir} "${prefix}" "${full_${dir}}")
    if(pc_${dir} STREQUAL "")
      set(pc_${dir} "${full_${dir}}")
    endif()
  endforeach()
  set(DAG_PC_PREFIX "${prefix}")
  if(relocatable)
    dag_pc_under_prefix(lib_in_prefix "${prefix}" "${full_libdir}")
    if(lib_in_prefix STREQUAL "")
      message(WARNING "DAG_PKGCONFIG_RELOCATABLE: the library directory ${full_libdir} is outside "
        "the prefix ${prefix}, so libdag.pc cannot find the prefix from its own place; "
        "it names absolute paths")
    else()
      file(RELATIVE_PATH up "${full_libdir}/pkgconfig" "${prefix}")
      string(REGEX REPLACE "/+$" "" up "${up}")
      set(DAG_PC_PREFIX "\${pcfiledir}/${up}")
    endif()
  endif()
  set(DAG_PC_LIBDIR "${pc_libdir}")
  set(DAG_PC_INCLUDEDIR "${pc_includedir}")
  set(PROJECT_VERSION "${version}")
  configure_file("${template}" "${out}" @ONLY)
endfunction()
