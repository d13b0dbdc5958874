package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// GroupAllocation is every member's share in one pass: what each client of the group computes
// for itself, seen at once ("who owns what"). Immutable; the garbage collector frees it.
type GroupAllocation struct {
	// Shares maps each distinct client id to its queues (the caller's pointers, Java's order).
	Shares map[string][]*primitive.MessageQueue
	handle *groupHandle
}

type groupHandle struct{ view *C.rmq_group_allocation }

// Verification is what a group allocation breaks: queues without an owner, queues with two, ids
// listed twice. IsPartition is true when every queue has exactly one owner.
type Verification struct {
	Orphaned, DoubleOwned, DuplicateClientIDs int
	IsPartition                               bool
}

// Moves counts queues whose owner changed between two group allocations.
type Moves struct {
	Moved, Common, Appeared, Disappeared int
}

// AllocateGroup computes every member's share. Not for MachineRoomNearby with a Go resolver or
// CONFIG (they have no native group view here): those return an *Error.
func (s *Strategy) AllocateGroup(group string, mqAll []*primitive.MessageQueue, cidAll []string) (*GroupAllocation, error) {
	if s.native == nil || s.resolver != nil {
		return nil, goError(javaUnsupportedOperation, "%s has no group view in the Go binding: allocate member by member", s.name)
	}
	if err := noNUL("group", group); err != nil {
		return nil, err
	}
	list, err := queueList(mqAll)
	if err != nil {
		return nil, err
	}
	defer C.rmq_queue_list_free(list)
	index := make(map[primitive.MessageQueue]*primitive.MessageQueue, len(mqAll))
	for _, q := range mqAll {
		if _, seen := index[*q]; !seen {
			index[*q] = q
		}
	}
	ids, free, err := cStrings("client id", cidAll)
	if err != nil {
		return nil, err
	}
	defer free()
	cGroup := C.CString(group)
	defer C.free(unsafe.Pointer(cGroup))
	var view *C.rmq_group_allocation
	// The failure's detail is kept per thread: read it on the thread that made the call.
	runtime.LockOSThread()
	rc := C.rmq_strategy_allocate_group(s.native.handle, cGroup, list, ids, C.size_t(len(cidAll)), &view)
	if rc != 0 {
		err := &Error{Code: int(rc), JavaException: C.GoString(C.rmq_last_error_java_exception()), Message: lastMessage()}
		runtime.UnlockOSThread()
		return nil, err
	}
	runtime.UnlockOSThread()
	g := &GroupAllocation{Shares: map[string][]*primitive.MessageQueue{}, handle: &groupHandle{view: view}}
	runtime.SetFinalizer(g.handle, func(h *groupHandle) { C.rmq_group_allocation_free(h.view) })
	for m := 0; m < int(C.rmq_group_allocation_member_count(view)); m++ {
		var id *C.char
		var share *C.rmq_queue_list
		C.rmq_group_allocation_member(view, C.size_t(m), &id, &share)
		queues := make([]*primitive.MessageQueue, int(C.rmq_queue_list_len(share)))
		for i := range queues {
			var topic, broker *C.char
			var qid C.int32_t
			C.rmq_queue_list_get(share, C.size_t(i), &topic, &broker, &qid)
			queues[i] = index[primitive.MessageQueue{Topic: C.GoString(topic), BrokerName: C.GoString(broker), QueueId: int(qid)}]
		}
		C.rmq_queue_list_free(share)
		g.Shares[C.GoString(id)] = queues
	}
	return g, nil
}

// Verify reports orphaned and double-owned queues and duplicate ids (the library's rule).
func (g *GroupAllocation) Verify() Verification {
	var v C.rmq_verification
	C.rmq_group_allocation_verify(g.handle.view, &v)
	runtime.KeepAlive(g.handle)
	return Verification{Orphaned: int(v.orphaned), DoubleOwned: int(v.double_owned), DuplicateClientIDs: int(v.duplicate_client_ids), IsPartition: bool(v.is_partition)}
}

// Movement counts the queues that change owner from before to after ("what moves if X joins").
func Movement(before, after *GroupAllocation) Moves {
	var m C.rmq_movement
	C.rmq_group_allocation_movement(before.handle.view, after.handle.view, &m)
	runtime.KeepAlive(before.handle)
	runtime.KeepAlive(after.handle)
	return Moves{Moved: int(m.moved), Common: int(m.common), Appeared: int(m.appeared), Disappeared: int(m.disappeared)}
}

// lastMessage is the calling thread's last failure (call with the thread locked).
func lastMessage() string {
	var detail C.go_rmq_error
	C.go_rmq_detail(1, &detail)
	if detail.message == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(detail.message))
	return C.GoString(detail.message)
}
