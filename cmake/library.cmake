# The installed library, libtexmem: static or shared as BUILD_SHARED_LIBS
# says, made of every built part's objects (the parts are OBJECT libraries;
# the in-tree archives texmem_planner, ... stay for tests and tools). Only
# TEXMEM_API symbols are exported from the shared library.
set(_texmem_parts texmem_planner_objects)
set(_texmem_skip_headers "") # the public headers of parts not built
foreach(_p model tflm gl runtime)
  if(TARGET texmem_${_p}_objects)
    list(APPEND _texmem_parts texmem_${_p}_objects)
  else()
    list(APPEND _texmem_skip_headers PATTERN ${_p}.h EXCLUDE)
  endif()
endforeach()
add_library(texmem cmake/empty.c)
set_target_properties(texmem PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
# $<TARGET_OBJECTS>, not target_link_libraries: a static library's private
# object-library links would be exported and need installing.
foreach(_p ${_texmem_parts})
  target_sources(texmem PRIVATE $<TARGET_OBJECTS:${_p}>)
endforeach()
# What the objects call outside libc: the GL backend dlopens EGL/GLES, so
# only libdl, threads (and libm) are linked. A static libtexmem exports these as
# link-only dependencies; texmem.pc lists them in Libs.private.
set(_texmem_deps ${TEXMEM_MATH_LIB})
if(TARGET texmem_gl_objects)
  list(APPEND _texmem_deps ${CMAKE_DL_LIBS} ${CMAKE_THREAD_LIBS_INIT})
endif()
target_link_libraries(texmem PRIVATE ${_texmem_deps})
target_include_directories(texmem INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
add_library(texmem::texmem ALIAS texmem)

install(TARGETS texmem EXPORT texmemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Only the headers of the parts built.
install(DIRECTORY include/texmem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" ${_texmem_skip_headers})
install(EXPORT texmemTargets NAMESPACE texmem:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/texmem)
include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/texmemConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/texmemConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/texmem)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/texmemConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/texmemConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/texmemConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/texmem)
set(TEXMEM_PC_LIBS_PRIVATE "")
foreach(_l ${_texmem_deps})
  if(_l MATCHES "^-") # a flag (CMAKE_THREAD_LIBS_INIT: -lpthread, -pthread)
    string(APPEND TEXMEM_PC_LIBS_PRIVATE " ${_l}")
  else()
    string(APPEND TEXMEM_PC_LIBS_PRIVATE " -l${_l}")
  endif()
endforeach()
# The prefix relative to the .pc file (lib/pkgconfig or lib/<multiarch>/pkgconfig).
file(RELATIVE_PATH TEXMEM_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" TEXMEM_PC_UP "${TEXMEM_PC_UP}")
configure_file(cmake/texmem.pc.in ${CMAKE_CURRENT_BINARY_DIR}/texmem.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/texmem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
