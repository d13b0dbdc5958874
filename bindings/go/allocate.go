package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"math"
	"runtime"
	"strings"
	"unsafe"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// packed is one allocation's input as the library's one-call form takes it: every string once
// in a NUL-separated table, the rest as offsets (no per-queue or per-string cgo call).
type packed struct {
	table    []byte
	offsets  map[string]uint32
	topics   []uint32
	brokers  []uint32
	ids      []int32
	clients  []uint32
	qRooms   []uint32
	cRooms   []uint32
	group    uint32
	current  uint32
	withRoom bool
	// nul is the first string seen with a NUL byte (none: "").
	nul string
}

func (p *packed) str(s string) uint32 {
	if off, ok := p.offsets[s]; ok {
		return off
	}
	if p.nul == "" && strings.IndexByte(s, 0) >= 0 {
		p.nul = s // a NUL would end the string early in the table: refused once packing is done
	}
	off := uint32(len(p.table))
	p.table = append(p.table, s...)
	p.table = append(p.table, 0)
	p.offsets[s] = off
	return off
}

func pack(group, currentCID string, mqAll []*primitive.MessageQueue, cidAll []string, r MachineRoomResolver) (*packed, error) {
	p := &packed{
		offsets: make(map[string]uint32, 8+len(cidAll)),
		topics:  make([]uint32, len(mqAll)),
		brokers: make([]uint32, len(mqAll)),
		ids:     make([]int32, len(mqAll)),
		clients: make([]uint32, len(cidAll)),
	}
	p.group, p.current = p.str(group), p.str(currentCID)
	for i, q := range mqAll {
		if q == nil {
			return nil, goError(javaNullPointer, "mqAll[%d] is nil", i)
		}
		if q.QueueId < math.MinInt32 || q.QueueId > math.MaxInt32 {
			return nil, goError(javaIllegalArgument, "queue id %d of %s is outside Java's int", q.QueueId, q.String())
		}
		p.topics[i], p.brokers[i], p.ids[i] = p.str(q.Topic), p.str(q.BrokerName), int32(q.QueueId)
	}
	for i, c := range cidAll {
		p.clients[i] = p.str(c)
	}
	if r != nil {
		p.withRoom = true
		p.qRooms, p.cRooms = make([]uint32, len(mqAll)), make([]uint32, len(cidAll))
		for i, q := range mqAll {
			p.qRooms[i] = p.room(r.BrokerRoom(q))
		}
		for i, c := range cidAll {
			p.cRooms[i] = p.room(r.ConsumerRoom(c))
		}
	}
	if p.nul != "" {
		return nil, noNUL("the string", p.nul)
	}
	return p, nil
}

func (p *packed) room(room string) uint32 {
	if room == "" {
		return C.RMQ_NO_STRING
	}
	return p.str(room)
}

func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// Allocate is Java's allocate(consumerGroup, currentCID, mqAll, cidAll): this client's share, as
// the caller's own queue pointers in Java's order. Where Java throws it returns an *Error naming
// Java's exception; where Java returns null (CONFIG without a list) it returns nil, nil. Like
// Java's strategies it does not sort: RebalanceImpl sorts both lists first (AllocateStrategy does).
func (s *Strategy) Allocate(group, currentCID string, mqAll []*primitive.MessageQueue, cidAll []string) ([]*primitive.MessageQueue, error) {
	return s.allocate(group, currentCID, mqAll, cidAll, 0)
}

// allocate makes the one library call; flags C.RMQ_PACKED_SORT sorts both lists in Java's order
// first (the answer is then in the sorted order, as the caller's pointers).
func (s *Strategy) allocate(group, currentCID string, mqAll []*primitive.MessageQueue, cidAll []string, flags C.uint32_t) ([]*primitive.MessageQueue, error) {
	if s.native == nil {
		return s.config, nil
	}
	if s.byCounts && s.resolver == nil && flags == 0 {
		return s.allocateByCounts(currentCID, mqAll, cidAll)
	}
	p, err := pack(group, currentCID, mqAll, cidAll, s.resolver)
	if err != nil {
		return nil, err
	}
	positions := make([]C.size_t, len(mqAll))
	var n C.size_t
	var detail C.go_rmq_error
	var qRooms, cRooms *C.uint32_t
	if p.withRoom {
		// Never NULL here (NULL means "not MACHINE_ROOM_NEARBY"), even for an empty list, which
		// the library then refuses as Java does.
		p.qRooms, p.cRooms = append(p.qRooms, 0), append(p.cRooms, 0)
		qRooms, cRooms = (*C.uint32_t)(&p.qRooms[0]), (*C.uint32_t)(&p.cRooms[0])
	}
	rc := C.go_rmq_allocate_packed(s.native.handle, (*C.char)(unsafe.Pointer(first(p.table))), C.size_t(len(p.table)),
		C.uint32_t(p.group), C.uint32_t(p.current),
		(*C.uint32_t)(first(p.topics)), (*C.uint32_t)(first(p.brokers)), (*C.int32_t)(first(p.ids)), C.size_t(len(mqAll)),
		(*C.uint32_t)(first(p.clients)), C.size_t(len(cidAll)), qRooms, cRooms, flags,
		first(positions), C.size_t(len(positions)), &n, &detail)
	switch {
	case rc == codeNoConfiguredQueues:
		return nil, nil
	case rc == codeNotPositional && s.resolver == nil:
		return s.allocateAsList(group, currentCID, mqAll, cidAll)
	case rc == codeNotPositional:
		return nil, goError(javaUnsupportedOperation, "MACHINE_ROOM_NEARBY around CONFIG with a Go resolver: use FromConfig")
	case rc != 0:
		return nil, takeError(rc, &detail)
	}
	out := make([]*primitive.MessageQueue, int(n))
	for i := range out {
		out[i] = mqAll[positions[i]]
	}
	return out, nil
}

// allocateByCounts is AVG and AVG_BY_CIRCLE: Java's cidAll.indexOf(currentCID) here, the rest (the
// checks and the share, a stride) in the library, in one small cgo call.
func (s *Strategy) allocateByCounts(currentCID string, mqAll []*primitive.MessageQueue, cidAll []string) ([]*primitive.MessageQueue, error) {
	index := ^C.size_t(0) // SIZE_MAX: absent
	for i, c := range cidAll {
		if c == currentCID {
			index = C.size_t(i)
			break
		}
	}
	stride := C.go_rmq_stride_of(s.native.handle, C.bool(currentCID == ""), C.size_t(len(mqAll)), C.size_t(len(cidAll)), index)
	if stride.rc != 0 {
		// Rare: the same call again, on one thread, to read the library's detail of the failure.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var start, end, step C.size_t
		var detail C.go_rmq_error
		rc := C.go_rmq_allocate_by_counts(s.native.handle, C.bool(currentCID == ""), C.size_t(len(mqAll)), C.size_t(len(cidAll)), index, &start, &end, &step, &detail)
		return nil, takeError(rc, &detail)
	}
	start, end, step := stride.start, stride.end, stride.step
	out := make([]*primitive.MessageQueue, 0, (int(end)-int(start)+int(step)-1)/int(step))
	for p := int(start); p < int(end); p += int(step) {
		out = append(out, mqAll[p])
	}
	return out, nil
}
