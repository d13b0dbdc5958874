# CMake package for rocketmq-rebalance: find_package(rocketmq_rebalance CONFIG REQUIRED), then link
# rocketmq_rebalance::rocketmq_rebalance (shared) or rocketmq_rebalance::static.
# Relocatable: paths are computed from this file's place in <prefix>/lib/cmake/rocketmq_rebalance.
get_filename_component(_rmq_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET rocketmq_rebalance::rocketmq_rebalance)
  add_library(rocketmq_rebalance::rocketmq_rebalance SHARED IMPORTED)
  set_target_properties(rocketmq_rebalance::rocketmq_rebalance PROPERTIES
    IMPORTED_LOCATION "${_rmq_prefix}/lib/librocketmq_rebalance.so"
    IMPORTED_SONAME "librocketmq_rebalance.so.@SOVERSION@"
    INTERFACE_INCLUDE_DIRECTORIES "${_rmq_prefix}/include")
endif()

if(NOT TARGET rocketmq_rebalance::static)
  find_package(Threads REQUIRED)
  add_library(rocketmq_rebalance::static STATIC IMPORTED)
  set_target_properties(rocketmq_rebalance::static PROPERTIES
    IMPORTED_LOCATION "${_rmq_prefix}/lib/librocketmq_rebalance.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_rmq_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;dl;m;rt;util")
endif()

unset(_rmq_prefix)
