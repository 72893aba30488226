# voxen_module(NAME SOURCES ... DEPS ... [PRIVATE_DEPS ...])
# Declares the static library voxen_<NAME> from src/<NAME>: public headers in include/voxen/<NAME>/,
# sources in src/. A module links only what it names, so the dependency direction
# core <- world <- {gen, light, store, import} <- mesh <- render <- stream <- play <- app is enforced by the build.

set(VOXEN_WARNINGS -Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers)

function(voxen_apply_common target)
  target_compile_options(${target} PRIVATE ${VOXEN_WARNINGS})
  if(VOXEN_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

function(voxen_module NAME)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(voxen_${NAME} STATIC ${ARG_SOURCES})
  add_library(voxen::${NAME} ALIAS voxen_${NAME})
  target_include_directories(voxen_${NAME} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(voxen_${NAME} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  voxen_apply_common(voxen_${NAME})
  if(VOXEN_SANITIZE)
    target_link_options(voxen_${NAME} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()
