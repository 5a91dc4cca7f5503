# Man pages and shell completion of the tools, generated from their CLI11
# definitions (tools/common/include/vp/cli/cli_docs.hpp): after a tool is
# linked, `TOOL --vp-generate-cli-docs DIR` writes DIR/TOOL.1, DIR/TOOL.bash
# and DIR/_TOOL. The target vp_cli_docs (part of ALL) builds them all.
#
#   vp_cli_docs(TOOLS vp-analyze vp-plan ... [INSTALL_COMPONENT component])
#
# installs them (with VPCAT_INSTALL) to the standard places:
#   share/man/man1/TOOL.1.gz (gzip -9n, as Debian's policy asks; TOOL.1 without gzip)
#   share/bash-completion/completions/TOOL
#   share/zsh/vendor-completions/_TOOL
include(GNUInstallDirs)

set(VP_CLI_DOCS_DIR ${PROJECT_BINARY_DIR}/cli-docs CACHE INTERNAL "Where the tools' man pages and completion are generated")
find_program(VP_GZIP gzip)

function(vp_cli_docs)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "INSTALL_COMPONENT" "TOOLS")
  set(dir ${VP_CLI_DOCS_DIR})
  file(MAKE_DIRECTORY ${dir})
  set(outputs "")
  foreach(tool IN LISTS arg_TOOLS)
    set(files ${dir}/${tool}.1 ${dir}/${tool}.bash ${dir}/_${tool})
    add_custom_command(OUTPUT ${files}
                       COMMAND $<TARGET_FILE:${tool}> --vp-generate-cli-docs ${dir}
                       DEPENDS ${tool}
                       COMMENT "Generating the man page and shell completion of ${tool}"
                       VERBATIM)
    set(man ${dir}/${tool}.1)
    if(VP_GZIP)
      add_custom_command(OUTPUT ${dir}/${tool}.1.gz
                         COMMAND sh -c "\"$0\" -9nc \"$1\" > \"$1.gz\"" ${VP_GZIP} ${dir}/${tool}.1
                         DEPENDS ${dir}/${tool}.1
                         VERBATIM)
      set(man ${dir}/${tool}.1.gz)
    endif()
    list(APPEND outputs ${files} ${man})
    if(VPCAT_INSTALL AND arg_INSTALL_COMPONENT)
      install(FILES ${man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${arg_INSTALL_COMPONENT})
      install(FILES ${dir}/${tool}.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
              RENAME ${tool} COMPONENT ${arg_INSTALL_COMPONENT})
      install(FILES ${dir}/_${tool} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
              COMPONENT ${arg_INSTALL_COMPONENT})
    endif()
  endforeach()
  add_custom_target(vp_cli_docs ALL DEPENDS ${outputs})
endfunction()
