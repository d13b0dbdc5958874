// Package rmqrebalance gives rocketmq-client-go consumers the Java client's allocation
// strategies, computed by the same Rust core that the Java, C, C++ and Python bindings use, so a
// group mixing Go and Java consumers agrees on who owns which queue.
//
// A Strategy is immutable and safe for concurrent use by any number of goroutines. It holds a
// native handle that the garbage collector frees; there is nothing to close.
package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// MachineRoomResolver says where brokers and consumers are deployed, for MachineRoomNearby. Rooms
// are resolved in Go before each allocation and passed as data; "" means no room (Java's null,
// which makes the allocation fail with IllegalArgumentException). Must be safe for concurrent use.
type MachineRoomResolver interface {
	BrokerRoom(*primitive.MessageQueue) string
	ConsumerRoom(clientID string) string
}

// StableKey is how BALANCED_STICKY ranks members.
type StableKey uint32

const (
	// ByClientID ranks members by their whole client id.
	ByClientID StableKey = 0
	// ByHost ranks members by the part of the id before the first '@' (the IP address), so a
	// restarted consumer, whose default id changes, gets its queues back.
	ByHost StableKey = 1
	// ByPartBefore ranks members by the part of the id before a separator of your choice.
	ByPartBefore StableKey = 2
)

// Strategy is one allocation strategy.
type Strategy struct {
	native *nativeStrategy // nil for CONFIG
	// MACHINE_ROOM_NEARBY: rooms resolved in Go, the inner strategy in the library.
	resolver MachineRoomResolver
	// CONFIG: the configured queues (Java returns them whatever the input; nil is Java's null).
	config []*primitive.MessageQueue
	name   string
	// AVG and AVG_BY_CIRCLE (the library says which): only the sizes and the current id's index
	// cross into C, not the lists.
	byCounts bool

	lastGood sync.Map // group+topic -> []*primitive.MessageQueue, for AllocateStrategy
}

// nativeStrategy owns the library's handle; the garbage collector frees it.
type nativeStrategy struct {
	handle *C.rmq_strategy
}

func wrap(handle *C.rmq_strategy) *Strategy {
	n := &nativeStrategy{handle: handle}
	runtime.SetFinalizer(n, func(n *nativeStrategy) { C.rmq_strategy_free(n.handle) })
	var start, end, step C.size_t
	byCounts := C.rmq_strategy_allocate_by_counts(handle, false, 1, 1, 0, &start, &end, &step) == 0
	return &Strategy{native: n, name: C.GoString(C.rmq_strategy_name(handle)), byCounts: byCounts}
}

func fromConfig(name, params string) (*Strategy, error) {
	cName, err := cString("strategy name", name)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cName))
	var cParams *C.char
	if params != "" {
		if cParams, err = cString("parameters", params); err != nil {
			return nil, err
		}
		defer C.free(unsafe.Pointer(cParams))
	}
	var out *C.rmq_strategy
	var detail C.go_rmq_error
	if err := takeError(C.go_rmq_from_config(cName, cParams, &out, &detail), &detail); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// FromConfig makes a strategy from the names and JSON parameters of the CLI's batch form and every
// other binding: "averagely" (or "AVG"), "circle", "consistent_hash" ({"virtual_node_count": 10}),
// "machine_room_nearby" ({"inner": "averagely", "broker_room_sep": "-", "consumer_room_sep": "@"}),
// "by_machine_room" ({"consume_idcs": [...]}), "by_config" ({"config": [[topic, broker, id], ...]}),
// "balanced_sticky" ({"stable_key": "host", "weights": {...}}), "balanced_sticky_v2"
// ({"stable_key": "host", "overload_percent": 20, "underload_percent": 40}). params may be "".
func FromConfig(name string, params string) (*Strategy, error) {
	return fromConfig(name, params)
}

// mustConfig is for the parameterless strategies, which cannot fail to build.
func mustConfig(name string) *Strategy {
	s, err := fromConfig(name, "")
	if err != nil {
		panic("rmqrebalance: building " + name + ": " + err.Error())
	}
	return s
}

// Averagely is Java's AllocateMessageQueueAveragely (AVG).
func Averagely() *Strategy { return mustConfig("averagely") }

// AveragelyByCircle is Java's AllocateMessageQueueAveragelyByCircle (AVG_BY_CIRCLE).
func AveragelyByCircle() *Strategy { return mustConfig("circle") }

// ConsistentHash is Java's AllocateMessageQueueConsistentHash(virtualNodes) (MD5 ring, as Java:
// not the Go client's CRC32 one). A negative count is an *Error (IllegalArgumentException).
func ConsistentHash(virtualNodes int) (*Strategy, error) {
	var out *C.rmq_strategy
	var detail C.go_rmq_error
	if err := takeError(C.go_rmq_consistent_hash(C.int64_t(virtualNodes), &out, &detail), &detail); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// ByMachineRoom is Java's AllocateMessageQueueByMachineRoom with setConsumeridcs(idcs); nil idcs is
// Java's unset set (a broker named "idc@name" then fails as Java's NullPointerException does).
func ByMachineRoom(idcs []string) *Strategy {
	var out *C.rmq_strategy
	var detail C.go_rmq_error
	var rc C.rmq_result
	if idcs == nil {
		rc = C.go_rmq_by_machine_room(nil, 0, &out, &detail)
	} else {
		// An idc with a NUL byte can match no broker name (the library refuses such names), so
		// leaving it out gives the same answer for every input.
		kept := make([]string, 0, len(idcs))
		for _, idc := range idcs {
			if noNUL("idc", idc) == nil {
				kept = append(kept, idc)
			}
		}
		strs, free, _ := cStrings("idc", kept)
		defer free()
		if strs == nil { // an empty set, not Java's null: any non-NULL pointer with length 0
			var none *C.char
			strs = &none
		}
		rc = C.go_rmq_by_machine_room(strs, C.size_t(len(kept)), &out, &detail)
	}
	if err := takeError(rc, &detail); err != nil {
		panic("rmqrebalance: building MACHINE_ROOM: " + err.Error())
	}
	return wrap(out)
}

// ByConfig is Java's AllocateMessageQueueByConfig with setMessageQueueList(queues): every client
// gets the configured list (nil is Java's null), whatever the input.
func ByConfig(queues []*primitive.MessageQueue) *Strategy {
	return &Strategy{config: queues, name: "CONFIG"}
}

// MachineRoomNearby is Java's AllocateMachineRoomNearby(inner, resolver): queues of a room go to
// that room's consumers through inner, queues of rooms without consumers to everyone. The name is
// "MACHINE_ROOM_NEARBY-" + inner's, as Java's getName().
func MachineRoomNearby(inner *Strategy, r MachineRoomResolver) (*Strategy, error) {
	if inner == nil || inner.native == nil {
		return nil, goError(javaNullPointer, "allocateMessageQueueStrategy is null or not a native strategy")
	}
	if r == nil {
		return nil, goError(javaNullPointer, "machineRoomResolver is null")
	}
	return &Strategy{native: inner.native, resolver: r, name: "MACHINE_ROOM_NEARBY-" + inner.name}, nil
}

// BalancedSticky is the experimental BALANCED_STICKY (see the project's docs/balanced-sticky.md):
// balanced within and across topics, few moves, still computed by each client alone. separator is
// for ByPartBefore only; weights (by stable key, each >= 1; members not listed weigh 1) may be nil.
func BalancedSticky(key StableKey, separator string, weights map[string]uint32) (*Strategy, error) {
	cSep, err := separatorArg(key, separator)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cSep))
	keys := make([]string, 0, len(weights))
	for k := range weights {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := make([]C.uint32_t, len(keys))
	for i, k := range keys {
		values[i] = C.uint32_t(weights[k])
	}
	strs, free, err := cStrings("weight key", keys)
	if err != nil {
		return nil, err
	}
	defer free()
	var valuesPtr *C.uint32_t
	if len(values) > 0 {
		valuesPtr = &values[0]
	}
	var out *C.rmq_strategy
	var detail C.go_rmq_error
	rc := C.go_rmq_balanced_sticky(C.uint32_t(key), cSep, strs, valuesPtr, C.size_t(len(keys)), &out, &detail)
	if err := takeError(rc, &detail); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// separatorArg is the C separator of a stable key: a copy for ByPartBefore (free it; C.free of
// nil does nothing), nil for the others.
func separatorArg(key StableKey, separator string) (*C.char, error) {
	if key != ByPartBefore {
		return nil, nil
	}
	return cString("separator", separator)
}

// V2Option sets one of BALANCED_STICKY_V2's caps; a cap not set keeps its default.
type V2Option func(*v2Caps)

type v2Caps struct{ overload, underload int64 }

// WithOverloadPercent lets a member's total reach ceil(Q * (100 + p) / (100 * C)); 0 to 400,
// default 20.
func WithOverloadPercent(p int) V2Option { return func(c *v2Caps) { c.overload = int64(p) } }

// WithUnderloadPercent lets a member's total fall to floor(Q * (100 - p) / (100 * C)); 0 to 100,
// default 40 (at 100 only "none idle while another holds two" is left).
func WithUnderloadPercent(p int) V2Option { return func(c *v2Caps) { c.underload = int64(p) } }

// BalancedStickyV2 is the experimental BALANCED_STICKY_V2 (see the project's
// docs/balanced-sticky.md): balanced within caps rather than exactly (totals within the overload
// and underload around Q/C, at most ceil(Q_t/C)+1 of any topic), so that joins and leaves move
// close to the fair share; still computed by each client alone. separator is for ByPartBefore
// only. A cap out of range is an *Error (IllegalArgumentException).
func BalancedStickyV2(key StableKey, separator string, options ...V2Option) (*Strategy, error) {
	caps := v2Caps{C.RMQ_BALANCED_STICKY_V2_DEFAULT_OVERLOAD_PERCENT, C.RMQ_BALANCED_STICKY_V2_DEFAULT_UNDERLOAD_PERCENT}
	for _, o := range options {
		o(&caps)
	}
	cSep, err := separatorArg(key, separator)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cSep))
	var out *C.rmq_strategy
	var detail C.go_rmq_error
	rc := C.go_rmq_balanced_sticky_v2(C.uint32_t(key), cSep, C.int64_t(caps.overload), C.int64_t(caps.underload), &out, &detail)
	if err := takeError(rc, &detail); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Name is Java's getName(): "AVG", "CONSISTENT_HASH", "MACHINE_ROOM_NEARBY-AVG", ...
func (s *Strategy) Name() string { return s.name }

// cStrings copies strings into C memory (refusing one with a NUL byte, named by what).
func cStrings(what string, strs []string) (**C.char, func(), error) {
	for _, s := range strs {
		if err := noNUL(what, s); err != nil {
			return nil, func() {}, err
		}
	}
	if len(strs) == 0 {
		return nil, func() {}, nil
	}
	arr := (*[1 << 28]*C.char)(C.malloc(C.size_t(len(strs)) * C.size_t(unsafe.Sizeof(uintptr(0)))))[:len(strs):len(strs)]
	for i, s := range strs {
		arr[i] = C.CString(s)
	}
	return &arr[0], func() {
		for _, p := range arr {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(&arr[0]))
	}, nil
}

// queueList copies mqAll into a new library list; the caller frees it with rmq_queue_list_free.
func queueList(mqAll []*primitive.MessageQueue) (*C.rmq_queue_list, error) {
	var list *C.rmq_queue_list
	C.rmq_queue_list_new(&list)
	for i, q := range mqAll {
		err := error(nil)
		if q == nil {
			err = goError(javaNullPointer, "mqAll[%d] is nil", i)
		} else if err = noNUL("topic", q.Topic); err == nil {
			err = noNUL("broker name", q.BrokerName)
		}
		if err != nil {
			C.rmq_queue_list_free(list)
			return nil, err
		}
		topic, broker := C.CString(q.Topic), C.CString(q.BrokerName)
		C.rmq_queue_list_push(list, topic, broker, C.int32_t(q.QueueId))
		C.free(unsafe.Pointer(topic))
		C.free(unsafe.Pointer(broker))
	}
	return list, nil
}

// allocateAsList is the library's list form, for answers that are not positions of the input
// (CONFIG's own list, also inside MACHINE_ROOM_NEARBY made by FromConfig): the queues are new
// values, as Java returns CONFIG's own list. One cgo call per queue: CONFIG is rare.
func (s *Strategy) allocateAsList(group, currentCID string, mqAll []*primitive.MessageQueue, cidAll []string) ([]*primitive.MessageQueue, error) {
	if err := firstError(noNUL("group", group), noNUL("current client id", currentCID)); err != nil {
		return nil, err
	}
	list, err := queueList(mqAll)
	if err != nil {
		return nil, err
	}
	defer C.rmq_queue_list_free(list)
	ids, free, err := cStrings("client id", cidAll)
	if err != nil {
		return nil, err
	}
	defer free()
	var mine *C.rmq_queue_list
	cGroup, cCurrent := C.CString(group), C.CString(currentCID)
	defer C.free(unsafe.Pointer(cGroup))
	defer C.free(unsafe.Pointer(cCurrent))
	runtime.LockOSThread() // the failure's detail is read on the calling thread
	rc := C.rmq_strategy_allocate(s.native.handle, cGroup, cCurrent, list, ids, C.size_t(len(cidAll)), &mine)
	if rc != 0 {
		err := &Error{Code: int(rc), JavaException: C.GoString(C.rmq_last_error_java_exception()), Message: lastMessage()}
		runtime.UnlockOSThread()
		return nil, err
	}
	runtime.UnlockOSThread()
	if mine == nil {
		return nil, nil // Java's null
	}
	defer C.rmq_queue_list_free(mine)
	out := make([]*primitive.MessageQueue, int(C.rmq_queue_list_len(mine)))
	for i := range out {
		var topic, broker *C.char
		var id C.int32_t
		C.rmq_queue_list_get(mine, C.size_t(i), &topic, &broker, &id)
		out[i] = &primitive.MessageQueue{Topic: C.GoString(topic), BrokerName: C.GoString(broker), QueueId: int(id)}
	}
	return out, nil
}
