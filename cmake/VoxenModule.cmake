# voxen_module(NAME SOURCES ... DEPS ... [PRIVATE_DEPS ...])
# Declares the static library voxen_<NAME> from src/<NAME>: public headers in include/voxen/<NAME>/,
# sources in src/. A module links only what it names, and may name only modules that come before it in
# VOXEN_MODULE_ORDER (the root CMakeLists.txt): naming one after it (or itself) stops the configure with a message.
# So the dependency direction core <- world <- {gen, light, store, import} <- mesh <- render <- stream <- play <-
# playtest <- app is enforced by the build (tests/cmake/module_order checks the refusal: ModuleOrder.*).

set(VOXEN_WARNINGS -Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers)

function(voxen_apply_common target)
  target_compile_options(${target} PRIVATE ${VOXEN_WARNINGS})
  if(VOXEN_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# Stops the configure when module NAME names a voxen:: module that does not come before it in VOXEN_MODULE_ORDER
# (a module above it, itself, or one the order does not list).
function(voxen_check_module_deps NAME)
  list(FIND VOXEN_MODULE_ORDER ${NAME} own)
  if(own EQUAL -1)
    message(FATAL_ERROR "voxen_module(${NAME}): '${NAME}' is not in VOXEN_MODULE_ORDER (the root CMakeLists.txt)")
  endif()
  foreach(dep ${ARGN})
    if(dep MATCHES "^voxen::(.+)$")
      list(FIND VOXEN_MODULE_ORDER ${CMAKE_MATCH_1} at)
      if(at EQUAL -1 OR NOT at LESS own)
        message(FATAL_ERROR "voxen::${NAME} may not use ${dep}: a module uses only the modules before it in "
                            "VOXEN_MODULE_ORDER (${VOXEN_MODULE_ORDER}); nothing below knows what is above it")
      endif()
    endif()
  endforeach()
endfunction()

function(voxen_module NAME)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  voxen_check_module_deps(${NAME} ${ARG_DEPS} ${ARG_PRIVATE_DEPS})
  add_library(voxen_${NAME} STATIC ${ARG_SOURCES})
  add_library(voxen::${NAME} ALIAS voxen_${NAME})
  target_include_directories(voxen_${NAME} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(voxen_${NAME} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  voxen_apply_common(voxen_${NAME})
  if(VOXEN_SANITIZE)
    target_link_options(voxen_${NAME} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()
