package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

// AllocateStrategy adapts the strategy for consumer.WithStrategy(...).
//
// The library sorts both lists as Java's RebalanceImpl does before allocating (the Go client sorts
// too, by Go's own rules), in the same cgo call, so every client of a mixed group computes the
// same thing; the answer is in that order, as the caller's pointers.
//
// consumer.AllocateStrategy cannot return an error, and the Go client treats an empty answer as
// "release every queue", where Java's RebalanceImpl keeps the current assignment when the
// strategy throws. The adapter does what Java does: on an error it logs a warning through the
// client's rlog and returns the last answer that succeeded for the same group and topic (only the
// queues still in mqAll, as the caller's pointers); with no earlier answer it returns nil.
func (s *Strategy) AllocateStrategy() consumer.AllocateStrategy {
	return func(group, currentCID string, mqAll []*primitive.MessageQueue, cidAll []string) []*primitive.MessageQueue {
		key := group + "\x00" + topicOf(mqAll)
		mine, err := s.allocate(group, currentCID, mqAll, cidAll, C.RMQ_PACKED_SORT)
		if err == nil {
			s.lastGood.Store(key, mine)
			return mine
		}
		rlog.Warning("rmqrebalance: allocation failed, keeping the last good answer", map[string]interface{}{
			rlog.LogKeyConsumerGroup: group,
			"strategy":               s.name,
			rlog.LogKeyUnderlayError: err.Error(),
		})
		last, ok := s.lastGood.Load(key)
		if !ok {
			return nil
		}
		return stillListed(last.([]*primitive.MessageQueue), mqAll)
	}
}

func topicOf(queues []*primitive.MessageQueue) string {
	for _, q := range queues {
		if q != nil {
			return q.Topic
		}
	}
	return ""
}

// stillListed maps an earlier answer onto the queues of mqAll (by value), dropping those gone.
func stillListed(last, mqAll []*primitive.MessageQueue) []*primitive.MessageQueue {
	now := make(map[primitive.MessageQueue]*primitive.MessageQueue, len(mqAll))
	for _, q := range mqAll {
		if q != nil {
			now[*q] = q
		}
	}
	out := make([]*primitive.MessageQueue, 0, len(last))
	for _, q := range last {
		if cur, ok := now[*q]; ok {
			out = append(out, cur)
		}
	}
	return out
}
