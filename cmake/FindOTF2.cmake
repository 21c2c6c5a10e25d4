# Finds OTF2 through otf2-config and defines the imported target OTF2::OTF2.
find_program(OTF2_CONFIG otf2-config)
if(OTF2_CONFIG)
  execute_process(COMMAND ${OTF2_CONFIG} --cflags
                  OUTPUT_VARIABLE _otf2_cflags OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${OTF2_CONFIG} --ldflags
                  OUTPUT_VARIABLE _otf2_ldflags OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${OTF2_CONFIG} --libs
                  OUTPUT_VARIABLE _otf2_libs OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${OTF2_CONFIG} --version
                  OUTPUT_VARIABLE _otf2_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" OTF2_VERSION "${_otf2_version}")
  find_path(OTF2_INCLUDE_DIR otf2/otf2.h)
  find_library(OTF2_LIBRARY otf2)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OTF2
  REQUIRED_VARS OTF2_CONFIG OTF2_INCLUDE_DIR OTF2_LIBRARY
  VERSION_VAR OTF2_VERSION)

if(OTF2_FOUND AND NOT TARGET OTF2::OTF2)
  add_library(OTF2::OTF2 UNKNOWN IMPORTED)
  set_target_properties(OTF2::OTF2 PROPERTIES
    IMPORTED_LOCATION "${OTF2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OTF2_INCLUDE_DIR}")
  separate_arguments(_otf2_cflags_list NATIVE_COMMAND "${_otf2_cflags}")
  if(_otf2_cflags_list)
    set_property(TARGET OTF2::OTF2 APPEND PROPERTY
      INTERFACE_COMPILE_OPTIONS ${_otf2_cflags_list})
  endif()
endif()
