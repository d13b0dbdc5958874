package rmqrebalance

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// seed is printed so a failing run replays with RMQ_SEED=<seed> go test ./...
func seed(t *testing.T) int64 {
	s := int64(20261201)
	if env := os.Getenv("RMQ_SEED"); env != "" {
		s, _ = strconv.ParseInt(env, 10, 64)
	}
	t.Logf("seed %d", s)
	return s
}

func queues(topic string, brokers, perBroker int) []*primitive.MessageQueue {
	var out []*primitive.MessageQueue
	for b := 0; b < brokers; b++ {
		for i := 0; i < perBroker; i++ {
			out = append(out, &primitive.MessageQueue{Topic: topic, BrokerName: fmt.Sprintf("broker-%d", b), QueueId: i})
		}
	}
	return out
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.0.0.%d@%d", i+1, 4000+i)
	}
	return out
}

// 16 goroutines share one strategy (run under -race by the test command): every answer equals
// the one computed alone.
func TestOneStrategySharedByGoroutines(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	s, err := ConsistentHash(10)
	if err != nil {
		t.Fatal(err)
	}
	mq, cids := queues("T", 2, 32), ids(7)
	want := map[string][]*primitive.MessageQueue{}
	for _, c := range cids {
		want[c], _ = s.Allocate("g", c, mq, cids)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	mismatches := 0
	for g := 0; g < 16; g++ {
		order := rng.Perm(len(cids))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 200; round++ {
				c := cids[order[round%len(order)]]
				got, err := s.Allocate("g", c, mq, cids)
				if err != nil || len(got) != len(want[c]) {
					mu.Lock()
					mismatches++
					mu.Unlock()
					continue
				}
				for i := range got {
					if got[i] != want[c][i] {
						mu.Lock()
						mismatches++
						mu.Unlock()
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	if mismatches > 0 {
		t.Fatalf("%d answers differ from the ones computed alone", mismatches)
	}
}

// Bad input is an *Error naming Java's exception, never a panic.
func TestBadInputIsATypedError(t *testing.T) {
	java := func(err error) string {
		var e *Error
		if !errors.As(err, &e) {
			return fmt.Sprintf("not an *Error: %v", err)
		}
		return e.JavaException
	}
	if _, err := FromConfig("no_such_strategy", ""); java(err) != "IllegalArgumentException" || !contains(err, "no_such_strategy") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := FromConfig("consistent_hash", "{not json"); java(err) != "IllegalArgumentException" {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := FromConfig("consistent_hash", `{"virtual_node_count": "ten"}`); !contains(err, "virtual_node_count") {
		t.Errorf("wrong type: the message must name the parameter: %v", err)
	}
	if _, err := ConsistentHash(-1); java(err) != "IllegalArgumentException" {
		t.Errorf("negative virtual nodes: %v", err)
	}
	if _, err := BalancedSticky(ByHost, "", map[string]uint32{"10.0.0.1": 0}); java(err) != "IllegalArgumentException" {
		t.Errorf("weight 0: %v", err)
	}
	if _, err := BalancedStickyV2(ByHost, "", WithOverloadPercent(401)); !contains(err, "overload_percent 401") {
		t.Errorf("overload 401: the message must name the parameter: %v", err)
	}
	if _, err := BalancedStickyV2(ByHost, "", WithUnderloadPercent(-1)); java(err) != "IllegalArgumentException" {
		t.Errorf("underload -1: %v", err)
	}
	s := Averagely()
	mq := queues("T", 1, 4)
	for name, call := range map[string]func() error{
		"nil queues":    func() error { _, err := s.Allocate("g", "a", nil, []string{"a"}); return err },
		"empty ids":     func() error { _, err := s.Allocate("g", "a", mq, nil); return err },
		"empty current": func() error { _, err := s.Allocate("g", "", mq, []string{"a"}); return err },
	} {
		if err := call(); java(err) != "IllegalArgumentException" {
			t.Errorf("%s: %v", name, err)
		}
	}
	// AVG, like Java's, never looks inside the queues; consistent hash hashes each one.
	ch, _ := ConsistentHash(10)
	if _, err := ch.Allocate("g", "a", []*primitive.MessageQueue{mq[0], nil}, []string{"a"}); java(err) != "NullPointerException" {
		t.Errorf("nil queue: %v", err)
	}
	big := &primitive.MessageQueue{Topic: "T", BrokerName: "b", QueueId: 1 << 40}
	if _, err := ch.Allocate("g", "a", []*primitive.MessageQueue{big}, []string{"a"}); java(err) != "IllegalArgumentException" {
		t.Errorf("queue id beyond Java's int: %v", err)
	}
	if _, err := MachineRoomNearby(nil, separatorRooms{"-", "@"}); java(err) != "NullPointerException" {
		t.Errorf("nil inner: %v", err)
	}
	nearby, _ := MachineRoomNearby(Averagely(), separatorRooms{"-", "@"})
	noRoom := []*primitive.MessageQueue{{Topic: "T", BrokerName: "-b", QueueId: 0}} // room "" = none
	if _, err := nearby.Allocate("g", "hz@1", noRoom, []string{"hz@1"}); java(err) != "IllegalArgumentException" || !contains(err, "Machine room is null") {
		t.Errorf("no room: %v", err)
	}
}

// A string with a NUL byte would reach C cut short at the NUL (another string, a wrong answer):
// every path that hands strings to the library refuses it with an *Error instead.
func TestANULByteIsRefusedNotCut(t *testing.T) {
	refused := func(name string, err error) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || e.JavaException != "IllegalArgumentException" || !contains(err, "NUL byte") || e.Code != int(codeGoSide) {
			t.Errorf("%s: want an IllegalArgumentException naming the NUL byte, got %v", name, err)
		}
	}
	nul := "10.0.0.1@1\x00tail"
	mq := queues("T", 1, 4)
	cut := []*primitive.MessageQueue{{Topic: "T\x00x", BrokerName: "b", QueueId: 0}}
	ch, _ := ConsistentHash(10)
	_, err := ch.Allocate("g", nul, mq, []string{nul})
	refused("packed: current id", err)
	_, err = ch.Allocate("g", "a", cut, []string{"a"})
	refused("packed: topic", err)
	_, err = ch.AllocateGroup("g", mq, []string{"a", nul})
	refused("group view: client id", err)
	_, err = ch.AllocateGroup("g", cut, []string{"a"})
	refused("group view: topic", err)
	_, err = FromConfig("averagely\x00", "")
	refused("strategy name", err)
	_, err = FromConfig("consistent_hash", "{}\x00")
	refused("parameters", err)
	_, err = BalancedSticky(ByPartBefore, "#\x00", nil)
	refused("separator", err)
	_, err = BalancedSticky(ByHost, "", map[string]uint32{"h\x00": 2})
	refused("weight key", err)
	nearbyConfig, err := FromConfig("machine_room_nearby", `{"inner": "by_config", "inner_params": {"config": [["T", "b", 0]]}}`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nearbyConfig.Allocate("g", "a", mq, []string{"a", nul})
	refused("list form: client id", err)
	// An idc that holds a NUL matches no broker name the library accepts: ignoring it changes no answer.
	with, without := ByMachineRoom([]string{"hz", "x\x00y"}), ByMachineRoom([]string{"hz"})
	rooms := []*primitive.MessageQueue{{Topic: "T", BrokerName: "hz@b", QueueId: 0}, {Topic: "T", BrokerName: "sh@b", QueueId: 1}}
	a, errA := with.Allocate("g", "a", rooms, []string{"a"})
	b, errB := without.Allocate("g", "a", rooms, []string{"a"})
	if errA != nil || errB != nil || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("idc with a NUL: %v %v / %v %v", a, errA, b, errB)
	}
}

func contains(err error, s string) bool {
	return err != nil && len(err.Error()) >= len(s) && (func() bool {
		for i := 0; i+len(s) <= len(err.Error()); i++ {
			if err.Error()[i:i+len(s)] == s {
				return true
			}
		}
		return false
	})()
}

// The adapter sorts as Java does (any input order gives the answer of the sorted lists) and,
// when the strategy fails, keeps the last good answer instead of releasing every queue.
func TestAllocateStrategyAdapter(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	s, _ := ConsistentHash(10)
	adapter := s.AllocateStrategy()
	mq, cids := queues("TopicA", 2, 8), ids(3)
	want, err := s.Allocate("g", cids[0], mq, cids) // already in Java's order
	if err != nil {
		t.Fatal(err)
	}
	shuffledQ := append([]*primitive.MessageQueue(nil), mq...)
	shuffledC := append([]string(nil), cids...)
	rng.Shuffle(len(shuffledQ), func(i, j int) { shuffledQ[i], shuffledQ[j] = shuffledQ[j], shuffledQ[i] })
	rng.Shuffle(len(shuffledC), func(i, j int) { shuffledC[i], shuffledC[j] = shuffledC[j], shuffledC[i] })
	got := adapter("g", cids[0], shuffledQ, shuffledC)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("shuffled input: got %v, want %v", got, want)
	}
	// The id list fetch returned nothing: Java keeps the assignment; so does the adapter.
	if kept := adapter("g", cids[0], shuffledQ, nil); fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Fatalf("after a failure: got %v, want the last good %v", kept, want)
	}
	// A queue gone from the route is not kept.
	if kept := adapter("g", cids[0], shuffledQ[:len(shuffledQ)-1], nil); len(kept) > len(want) {
		t.Fatalf("kept %v", kept)
	}
	// Another topic never answered: nothing to keep.
	if none := adapter("g", cids[0], queues("TopicB", 1, 4), nil); none != nil {
		t.Fatalf("no earlier answer: got %v", none)
	}
}

func TestGroupViewVerifyAndMovement(t *testing.T) {
	s := Averagely()
	mq := queues("T", 1, 8)
	before, err := s.AllocateGroup("g", mq, ids(3))
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.AllocateGroup("g", mq, ids(4))
	if err != nil {
		t.Fatal(err)
	}
	if v := after.Verify(); !v.IsPartition || v.Orphaned != 0 || v.DoubleOwned != 0 {
		t.Fatalf("verify: %+v", v)
	}
	// AVG, 8 queues: 3 members A, B, C hold 0-2, 3-5, 6-7; 4 members A-D hold 0-1, 2-3, 4-5, 6-7:
	// queue 2 goes A->B, 4 and 5 B->C, 6 and 7 C->D, so 5 of 8 move (derived by hand).
	if m := Movement(before, after); m.Moved != 5 || m.Common != 8 {
		t.Fatalf("movement: %+v", m)
	}
	if len(after.Shares[ids(4)[3]]) != 2 || after.Shares[ids(4)[0]][0] != mq[0] {
		t.Fatalf("shares: %v", after.Shares)
	}
}

func TestVersionsAgree(t *testing.T) {
	if LibraryVersion() != Version {
		t.Fatalf("linked library %s, package %s", LibraryVersion(), Version)
	}
}

// The Java exception names the Go side gives itself are the library's own names for the same
// classes (read through the C API), so the two cannot drift.
func TestGoSideJavaNamesAreTheLibrarys(t *testing.T) {
	if got := libraryJavaName(codeEmptyQueueList); got != javaIllegalArgument {
		t.Errorf("the library says %q, the Go side %q", got, javaIllegalArgument)
	}
	if got := libraryJavaName(codeConsumeIdcsUnset); got != javaNullPointer {
		t.Errorf("the library says %q, the Go side %q", got, javaNullPointer)
	}
}
