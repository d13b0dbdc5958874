package rmqrebalance

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// A conformance case: the answers are the real Java client's (tests/vectors/data, from
// rocketmq-client 5.3.3) or the core's committed ones for BALANCED_STICKY (tests/golden).
type vectorCase struct {
	ID       string          `json:"id"`
	Strategy string          `json:"strategy"`
	Group    string          `json:"group"`
	Current  *string         `json:"current"`
	MqAll    *[][3]any       `json:"mq_all"`
	CidAll   *[]string       `json:"cid_all"`
	Params   json.RawMessage `json:"params"`
	Expected struct {
		Result *[][3]any `json:"result"`
		Error  *string   `json:"error"`
	} `json:"expected"`
}

func queuesOf(raw *[][3]any) []*primitive.MessageQueue {
	if raw == nil {
		return nil
	}
	out := make([]*primitive.MessageQueue, len(*raw))
	for i, q := range *raw {
		out[i] = &primitive.MessageQueue{Topic: q[0].(string), BrokerName: q[1].(string), QueueId: int(q[2].(float64))}
	}
	return out
}

// checkoutRoot is where tests/vectors and tests/golden are: the checkout's root, two folders up,
// or RMQ_CHECKOUT (the release check runs these tests from a module fetched into a module cache).
func checkoutRoot() string {
	if root := os.Getenv("RMQ_CHECKOUT"); root != "" {
		return root
	}
	return filepath.Join("..", "..")
}

func loadCases(t *testing.T) []vectorCase {
	root := checkoutRoot()
	files, _ := filepath.Glob(filepath.Join(root, "tests", "vectors", "data", "*.jsonl"))
	files = append(files, filepath.Join(root, "tests", "golden", "balanced_sticky.jsonl"),
		filepath.Join(root, "tests", "golden", "balanced_sticky_v2.jsonl"))
	var cases []vectorCase
	for _, f := range files {
		if strings.HasSuffix(f, "sort.jsonl") {
			continue // Java's sort order, not a strategy: covered by the core and the C tests
		}
		file, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		scanner := bufio.NewScanner(file)
		scanner.Buffer(make([]byte, 1<<20), 1<<26)
		for scanner.Scan() {
			var c vectorCase
			if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			cases = append(cases, c)
		}
		file.Close()
	}
	if len(cases) < 3000 {
		t.Fatalf("only %d vectors found", len(cases))
	}
	return cases
}

// separatorRooms is the resolver the vectors were made with (Java's test resolver): the room is
// the part of the name before the first separator, or the whole name. Test code only.
type separatorRooms struct{ broker, consumer string }

func (r separatorRooms) BrokerRoom(q *primitive.MessageQueue) string {
	return before(q.BrokerName, r.broker)
}
func (r separatorRooms) ConsumerRoom(id string) string { return before(id, r.consumer) }

func before(s, sep string) string {
	if i := strings.Index(s, sep); i >= 0 {
		return s[:i]
	}
	return s
}

// typed builds the case's strategy with the typed constructors; ok is false where the Go binding
// has no typed form (MACHINE_ROOM_NEARBY around CONFIG: use FromConfig).
func typed(t *testing.T, name string, raw json.RawMessage) (*Strategy, bool, error) {
	var p struct {
		VirtualNodeCount *int              `json:"virtual_node_count"`
		ConsumeIdcs      *[]string         `json:"consume_idcs"`
		Config           *[][3]any         `json:"config"`
		Inner            string            `json:"inner"`
		InnerParams      json.RawMessage   `json:"inner_params"`
		BrokerSep        *string           `json:"broker_room_sep"`
		ConsumerSep      *string           `json:"consumer_room_sep"`
		StableKey        json.RawMessage   `json:"stable_key"`
		Weights          map[string]uint32 `json:"weights"`
		Overload         *int              `json:"overload_percent"`
		Underload        *int              `json:"underload_percent"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
	}
	switch name {
	case "averagely":
		return Averagely(), true, nil
	case "circle":
		return AveragelyByCircle(), true, nil
	case "consistent_hash":
		n := 10
		if p.VirtualNodeCount != nil {
			n = *p.VirtualNodeCount
		}
		s, err := ConsistentHash(n)
		return s, true, err
	case "by_machine_room":
		if p.ConsumeIdcs == nil {
			return ByMachineRoom(nil), true, nil
		}
		return ByMachineRoom(*p.ConsumeIdcs), true, nil
	case "by_config":
		return ByConfig(queuesOf(p.Config)), true, nil
	case "machine_room_nearby":
		if p.Inner == "by_config" || p.Inner == "CONFIG" {
			return nil, false, nil
		}
		inner, ok, err := typed(t, p.Inner, p.InnerParams)
		if !ok || err != nil {
			return nil, ok, err
		}
		rooms := separatorRooms{"-", "@"}
		if p.BrokerSep != nil {
			rooms.broker = *p.BrokerSep
		}
		if p.ConsumerSep != nil {
			rooms.consumer = *p.ConsumerSep
		}
		s, err := MachineRoomNearby(inner, rooms)
		return s, true, err
	case "balanced_sticky", "balanced_sticky_v2":
		key, sep := ByClientID, ""
		var text string
		var before struct{ Before string }
		switch {
		case len(p.StableKey) == 0:
		case json.Unmarshal(p.StableKey, &text) == nil && text == "host":
			key = ByHost
		case json.Unmarshal(p.StableKey, &before) == nil && before.Before != "":
			key, sep = ByPartBefore, before.Before
		}
		if name == "balanced_sticky" {
			s, err := BalancedSticky(key, sep, p.Weights)
			return s, true, err
		}
		var options []V2Option
		if p.Overload != nil {
			options = append(options, WithOverloadPercent(*p.Overload))
		}
		if p.Underload != nil {
			options = append(options, WithUnderloadPercent(*p.Underload))
		}
		s, err := BalancedStickyV2(key, sep, options...)
		return s, true, err
	}
	t.Fatalf("no typed constructor for %s", name)
	return nil, false, nil
}

// check runs one case through one strategy and reports a mismatch.
func check(t *testing.T, how string, c vectorCase, s *Strategy) {
	current := ""
	if c.Current != nil {
		current = *c.Current
	}
	var cids []string
	if c.CidAll != nil {
		cids = *c.CidAll
	}
	mqAll := queuesOf(c.MqAll)
	got, err := s.Allocate(c.Group, current, mqAll, cids)
	if c.Expected.Error != nil {
		want := *c.Expected.Error
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s %s: want %q, got %v, %v", how, c.ID, want, got, err)
			return
		}
		class, message, _ := strings.Cut(want, ": ")
		// NullPointerException's message is the JVM's own; the class is what is matched.
		if e.JavaException != class || (class == "IllegalArgumentException" && e.Message != message) {
			t.Errorf("%s %s: want %q, got %q", how, c.ID, want, e.Error())
		}
		return
	}
	if err != nil {
		t.Errorf("%s %s: unexpected error %v", how, c.ID, err)
		return
	}
	if c.Expected.Result == nil {
		if got != nil {
			t.Errorf("%s %s: want nil (Java's null), got %v", how, c.ID, got)
		}
		return
	}
	want := queuesOf(c.Expected.Result)
	if len(got) != len(want) {
		t.Errorf("%s %s: want %d queues, got %d", how, c.ID, len(want), len(got))
		return
	}
	for i := range want {
		if *got[i] != *want[i] {
			t.Errorf("%s %s: queue %d: want %v, got %v", how, c.ID, i, want[i], got[i])
			return
		}
	}
	// The caller's own pointers come back (except CONFIG, which answers with its own list).
	if c.Strategy != "by_config" && !strings.Contains(string(c.Params), "by_config") {
		for _, q := range got {
			found := false
			for _, in := range mqAll {
				found = found || in == q
			}
			if !found {
				t.Errorf("%s %s: %v is not one of the caller's pointers", how, c.ID, q)
				return
			}
		}
	}
}

func TestVectorsThroughFromConfigAndTypedConstructors(t *testing.T) {
	cases := loadCases(t)
	typedRuns := 0
	for _, c := range cases {
		s, err := FromConfig(c.Strategy, string(c.Params))
		ts, ok, typedErr := typed(t, c.Strategy, c.Params)
		if err != nil || typedErr != nil {
			// Java throws in the constructor here (a negative virtual node count): both forms must.
			if c.Expected.Error == nil || err == nil || (ok && typedErr == nil) || !strings.HasPrefix(*c.Expected.Error, err.(*Error).JavaException) {
				t.Errorf("%s: construction: config %v, typed %v, expected %+v", c.ID, err, typedErr, c.Expected)
			}
			continue
		}
		check(t, "config", c, s)
		if ok {
			if ts.Name() != s.Name() {
				t.Errorf("%s: typed name %q, config name %q", c.ID, ts.Name(), s.Name())
			}
			check(t, "typed", c, ts)
			typedRuns++
		}
	}
	t.Logf("%d vectors through FromConfig, %d through typed constructors", len(cases), typedRuns)
}
