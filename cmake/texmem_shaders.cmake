# texmem_embed_shaders(OUT_VAR SYMBOL file...): a rule that embeds the files
# into a generated C table SYMBOL[] of {name, source} (cmake/embed_shaders.cmake)
# and sets OUT_VAR to the generated file, to add to a library's sources.
# Each part embeds its own shaders under its own symbol.
function(texmem_embed_shaders out_var symbol)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${symbol}.c)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${ARGN}" -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_shaders.cmake
    DEPENDS ${ARGN} ${PROJECT_SOURCE_DIR}/cmake/embed_shaders.cmake
    COMMENT "Embedding shaders as ${symbol}"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
