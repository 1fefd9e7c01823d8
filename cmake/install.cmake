# cmake --install: headers, both libraries, the rdx tool, a CMake package and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES include/rdx.h include/rdx_dist.h include/rdx_dist_mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(RDX_HAVE_CUDA AND EXISTS ${PROJECT_SOURCE_DIR}/include/rdx_cuda.h)
  install(FILES include/rdx_cuda.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(TARGETS rdx_static rdx_shared EXPORT rdxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET rdx_tool)
  install(TARGETS rdx_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(RDX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rdx)
install(EXPORT rdxTargets NAMESPACE rdx:: DESTINATION ${RDX_CMAKE_DIR})
configure_package_config_file(cmake/rdxConfig.cmake.in ${PROJECT_BINARY_DIR}/rdxConfig.cmake
                              INSTALL_DESTINATION ${RDX_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rdxConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rdxConfig.cmake ${PROJECT_BINARY_DIR}/rdxConfigVersion.cmake
        DESTINATION ${RDX_CMAKE_DIR})

set(RDX_PC_LIBS_PRIVATE "${OpenMP_C_FLAGS} -pthread")
if(RDX_HAVE_CUDA)
  string(APPEND RDX_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart")
endif()
if(RDX_HAVE_NCCL)
  string(APPEND RDX_PC_LIBS_PRIVATE " -ldl") # NCCL itself is loaded on first use
endif()
configure_file(cmake/rdx.pc.in ${PROJECT_BINARY_DIR}/rdx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rdx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
