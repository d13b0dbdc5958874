// rocketmq-rebalance for C++17: RAII handles, exceptions, std::string and std::vector over the
// C API in rocketmq_rebalance.h. Header-only; link librocketmq_rebalance.
//
// Ownership: every wrapper owns its handle and frees it in its destructor. Strategy is a cheap
// shared handle (copies share one immutable strategy, usable from any number of threads).
// QueueList, GroupAllocation and Rebalancer are move-only.
// Errors: a failing call throws rocketmq_rebalance::Error, which carries the rmq_result code and
// the name of the exception the Java client throws for the same input.
// Callbacks: exceptions thrown by a MachineRoomResolver or a Host never cross into the library;
// they become that callback's failure (CALLBACK_FAILED for a resolver, a failed step for a host).
//
// The wrapper is two headers under rocketmq_rebalance/: strategy.hpp (errors, queues, strategies,
// group view) and engine.hpp (Host, Rebalancer). This one includes both.
#ifndef ROCKETMQ_REBALANCE_HPP
#define ROCKETMQ_REBALANCE_HPP

#include "rocketmq_rebalance/strategy.hpp"
#include "rocketmq_rebalance/engine.hpp"

#endif  // ROCKETMQ_REBALANCE_HPP
