// Command go-vectors answers the committed Java conformance cases with rocketmq-client-go's own
// strategies, so that `inspect` can tell a Go client's answer from a Java client's exactly.
//
//	go run ./cmd/go-vectors ../../tests/vectors/data ../../tests/vectors/go-data
//
// It reads the inputs of averagely, circle, consistent_hash and by_machine_room (the cases where
// Java returned a list: Go has no argument errors, it logs and returns nil) and writes one line
// per case with the Go client's answer under "expected". The go stage of the test command
// regenerates the files and fails on any difference.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// javaCase is one line of a Java vector file; only the fields Go needs are read.
type javaCase struct {
	ID       string            `json:"id"`
	Group    string            `json:"group"`
	Current  *string           `json:"current"`
	MqAll    *[][3]interface{} `json:"mq_all"`
	CidAll   *[]string         `json:"cid_all"`
	Params   map[string]any    `json:"params"`
	Expected struct {
		Result *[][3]interface{} `json:"result"`
	} `json:"expected"`
}

type goCase struct {
	ID       string         `json:"id"`
	Strategy string         `json:"strategy"`
	Group    string         `json:"group"`
	Current  string         `json:"current"`
	MqAll    [][3]any       `json:"mq_all"`
	CidAll   []string       `json:"cid_all"`
	Params   map[string]any `json:"params"`
	Expected struct {
		Result *[][3]any `json:"result,omitempty"`
		// A Go panic, which the Go client raises where Java would not (a ring of 0 virtual nodes).
		Panic string `json:"panic,omitempty"`
	} `json:"expected"`
}

// allocate runs one Go strategy, its panic returned instead of raised.
func allocate(s consumer.AllocateStrategy, c javaCase, mqAll []*primitive.MessageQueue) (share []*primitive.MessageQueue, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return s(c.Group, *c.Current, mqAll, *c.CidAll), ""
}

// files maps each Java file to the name its Go answers are written under.
var files = []struct{ java, goName string }{
	{"averagely", "go_averagely"},
	{"circle", "go_circle"},
	{"consistent_hash", "go_consistent_hash"},
	{"by_machine_room", "go_by_machine_room"},
}

func strategyFor(name string, params map[string]any) consumer.AllocateStrategy {
	switch name {
	case "averagely":
		return consumer.AllocateByAveragely
	case "circle":
		return consumer.AllocateByAveragelyCircle
	case "consistent_hash":
		n := 10 // Java's default; Go has none, so the parameter is always given to Go
		if v, ok := params["virtual_node_count"].(float64); ok {
			n = int(v)
		}
		return consumer.AllocateByConsistentHash(n)
	case "by_machine_room":
		var idcs []string
		if list, ok := params["consume_idcs"].([]any); ok {
			for _, s := range list {
				idcs = append(idcs, s.(string))
			}
		}
		return consumer.AllocateByMachineRoom(idcs)
	}
	panic("no Go strategy for " + name)
}

// goParams writes the parameters Go was given, the defaults strategyFor chose included: Go has
// no defaults of its own, so a Go case always states them.
func goParams(name string, params map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	switch name {
	case "consistent_hash":
		if _, ok := out["virtual_node_count"]; !ok {
			out["virtual_node_count"] = 10
		}
	case "by_machine_room":
		if _, ok := out["consume_idcs"]; !ok {
			out["consume_idcs"] = []string{}
		}
	}
	return out
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-vectors JAVA_DATA_DIR OUT_DIR")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[2], 0o755); err != nil {
		panic(err)
	}
	for _, f := range files {
		n := convert(filepath.Join(os.Args[1], f.java+".jsonl"), filepath.Join(os.Args[2], f.goName+".jsonl"), f.java, f.goName)
		fmt.Printf("%s: %d cases\n", f.goName, n)
	}
}

func convert(in, out, javaName, goName string) int {
	src, err := os.Open(in)
	if err != nil {
		panic(err)
	}
	defer src.Close()
	dst, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	defer dst.Close()
	w := bufio.NewWriter(dst)
	defer w.Flush()
	scanner := bufio.NewScanner(src)
	scanner.Buffer(make([]byte, 1<<20), 1<<28)
	count := 0
	for scanner.Scan() {
		var c javaCase
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			panic(err)
		}
		// Only cases Java answered with a list: the rest are argument errors Go does not raise.
		if c.Current == nil || c.MqAll == nil || c.CidAll == nil || c.Expected.Result == nil {
			continue
		}
		mqAll := make([]*primitive.MessageQueue, len(*c.MqAll))
		for i, q := range *c.MqAll {
			mqAll[i] = &primitive.MessageQueue{Topic: q[0].(string), BrokerName: q[1].(string), QueueId: int(q[2].(float64))}
		}
		share, panicked := allocate(strategyFor(javaName, c.Params), c, mqAll)
		g := goCase{ID: "go_" + c.ID, Strategy: goName, Group: c.Group, Current: *c.Current, MqAll: *c.MqAll, CidAll: *c.CidAll, Params: goParams(javaName, c.Params)}
		if panicked != "" {
			g.Expected.Panic = panicked
		} else {
			result := make([][3]any, 0, len(share))
			for _, q := range share {
				result = append(result, [3]any{q.Topic, q.BrokerName, q.QueueId})
			}
			g.Expected.Result = &result
		}
		line, err := json.Marshal(g)
		if err != nil {
			panic(err)
		}
		w.Write(line)
		w.WriteByte('\n')
		count++
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
	if goName == "go_consistent_hash" {
		for _, c := range ringEdges() {
			share, panicked := allocate(strategyFor(javaName, c.Params), c, queuesOf(*c.MqAll))
			if panicked != "" {
				panic(panicked)
			}
			g := goCase{ID: c.ID, Strategy: goName, Group: c.Group, Current: *c.Current, MqAll: *c.MqAll, CidAll: *c.CidAll, Params: c.Params}
			result := make([][3]any, 0, len(share))
			for _, q := range share {
				result = append(result, [3]any{q.Topic, q.BrokerName, q.QueueId})
			}
			g.Expected.Result = &result
			line, _ := json.Marshal(g)
			w.Write(line)
			w.WriteByte('\n')
			count++
		}
	}
	return count
}

func queuesOf(raw [][3]any) []*primitive.MessageQueue {
	out := make([]*primitive.MessageQueue, len(raw))
	for i, q := range raw {
		out[i] = &primitive.MessageQueue{Topic: q[0].(string), BrokerName: q[1].(string), QueueId: q[2].(int)}
	}
	return out
}

// forge finds a printable 4-byte suffix that gives prefix+suffix the CRC-32 target, trying
// prefix variants "<prefix><k>" until one works (CRC-32 is linear, so four bytes can reach any
// value; printable ones take about 50 tries).
func forge(prefix string, target uint32) string {
	t := crc32.IEEETable
	var inv [256]byte
	for i, v := range t {
		inv[v>>24] = byte(i)
	}
	for k := 0; ; k++ {
		head := fmt.Sprintf("%s%d", prefix, k)
		// The indices the last four table lookups must use to end at the target register.
		var idx [4]byte
		r := ^target
		for j := 3; j >= 0; j-- {
			idx[j] = inv[r>>24]
			r = (r ^ t[idx[j]]) << 8
		}
		reg := ^crc32.ChecksumIEEE([]byte(head))
		tail := make([]byte, 4)
		ok := true
		for j := 0; j < 4; j++ {
			tail[j] = byte(reg) ^ idx[j]
			reg = (reg >> 8) ^ t[idx[j]]
			ok = ok && tail[j] >= 0x20 && tail[j] < 0x7f
		}
		if ok && crc32.ChecksumIEEE([]byte(head+string(tail))) == target {
			return head + string(tail)
		}
	}
}

// ringEdges are the cases random inputs never reach: a queue whose hash is exactly an id's ring
// point (Go goes strictly past it; Java's ring would stop on it), and two ids on one point (the
// later in the list wins).
func ringEdges() []javaCase {
	queue := [3]any{"T", "b", 0}
	key := crc32.ChecksumIEEE([]byte("MessageQueue [topic=T, brokerName=b, queueId=0]"))
	onPoint := forge("0on", key)[1:] // replica 0 of id X is crc32("0" + X)
	first := "first"
	second := forge("0clash", crc32.ChecksumIEEE([]byte("0"+first)))[1:]
	mq := [][3]any{queue, {"T", "b", 1}, {"T", "b", 2}, {"T", "b", 3}, {"T", "c", 0}, {"T", "c", 1}}
	var out []javaCase
	add := func(id string, cids []string, n int) {
		for _, current := range cids {
			current, cids, all := current, cids, mq
			out = append(out, javaCase{ID: fmt.Sprintf("go_consistent_hash-%s-%d-%s", id, n, current), Group: "GID_test", Current: &current, MqAll: &all, CidAll: &cids, Params: map[string]any{"virtual_node_count": float64(n)}})
		}
	}
	for _, n := range []int{1, 3} {
		add("on-point", []string{onPoint, "ca", "cb"}, n)
		add("clash", []string{first, second, "ca"}, n)
		add("clash-reversed", []string{second, first, "ca"}, n)
	}
	return out
}
