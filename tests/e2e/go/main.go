// Command consumer is one rocketmq-client-go push consumer as its own process, for the
// mixed-language group test (tests/e2e/run/mixed-go.sh):
//
//	consumer <namesrv> <group> <topic> ours|goclient <name> <state-dir> [concurrent|orderly|hang]
//
// "ours" allocates with rmqrebalance.ConsistentHash(10).AllocateStrategy(), "goclient" with the Go
// client's own consumer.AllocateByConsistentHash(10). The mode (default concurrent) is for the
// inspect liveness test (tests/e2e/drivers/inspect_liveness.py): "orderly" consumes orderly, as the Go client
// does it (it never unlocks a queue it gives up); "hang" consumes concurrently with one consume
// goroutine whose listener never returns until shutdown, pulling one message at a time: each
// queue's hand-over loop waits for that goroutine, its channel of 32 pulled batches fills, and the
// pull loop blocks on it, so a queue sent 35 messages or more goes unpulled while the process lives
// (flow control would stamp the pull time, but it starts only past 1,024 cached messages). Every allocation for the topic is written to
// <name>.held.json (the shape the Java test consumer writes: name, client_id, language, strategy,
// round, cids, queues, stopped); every consumed body is appended to <name>.consumed. SIGTERM shuts
// the consumer down, so the group sees it leave.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	rmqrebalance "github.com/rocketmq-rebalance/rocketmq-rebalance/bindings/go"
)

type holdings struct {
	Name     string   `json:"name"`
	ClientID string   `json:"client_id"`
	Language string   `json:"language"`
	Strategy string   `json:"strategy"`
	Round    int      `json:"round"`
	AtMs     int64    `json:"at_ms"`
	Cids     []string `json:"cids"`
	Queues   []int    `json:"queues"`
	Stopped  bool     `json:"stopped"`
}

// recorder rewrites <name>.held.json through a rename, so a polling reader never sees half of it,
// and appends each record to <name>.held.log, the history (at_ms is the wall clock, as Java's).
type recorder struct {
	mu   sync.Mutex
	path string
	last holdings
}

func (r *recorder) write(h holdings) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.Round = r.last.Round + 1
	h.AtMs = time.Now().UnixMilli()
	r.last = h
	data, err := json.Marshal(h)
	if err == nil {
		tmp := r.path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, r.path)
		}
	}
	if err == nil {
		err = appendLine(strings.TrimSuffix(r.path, ".json")+".log", data)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "writing holdings:", err)
		os.Exit(1)
	}
}

func appendLine(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func main() {
	if len(os.Args) != 7 && len(os.Args) != 8 {
		fmt.Fprintln(os.Stderr, "usage: consumer <namesrv> <group> <topic> ours|goclient <name> <state-dir> [concurrent|orderly|hang]")
		os.Exit(2)
	}
	namesrv, group, topic, kind, name, dir := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6]
	mode := "concurrent"
	if len(os.Args) == 8 {
		mode = os.Args[7]
	}
	var inner consumer.AllocateStrategy
	switch kind {
	case "ours":
		s, err := rmqrebalance.ConsistentHash(10)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		inner = s.AllocateStrategy()
	case "goclient":
		inner = consumer.AllocateByConsistentHash(10)
	default:
		fmt.Fprintln(os.Stderr, "strategy must be ours or goclient, not", kind)
		os.Exit(2)
	}
	rlog.SetLogLevel("warn")
	if err := rlog.SetOutputPath(filepath.Join(dir, name+".client.log")); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}

	rec := &recorder{path: filepath.Join(dir, name+".held.json")}
	recording := func(g, cid string, mqAll []*primitive.MessageQueue, cidAll []string) []*primitive.MessageQueue {
		mine := inner(g, cid, mqAll, cidAll)
		if len(mqAll) > 0 && mqAll[0].Topic == topic {
			ids := []int{}
			for _, q := range mine {
				ids = append(ids, q.QueueId)
			}
			sort.Ints(ids)
			rec.write(holdings{Name: name, ClientID: cid, Language: "go", Strategy: kind,
				Cids: append([]string{}, cidAll...), Queues: ids})
		}
		return mine
	}

	out, err := os.OpenFile(filepath.Join(dir, name+".consumed"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var outMu sync.Mutex
	consumed := bufio.NewWriter(out)

	options := []consumer.Option{
		consumer.WithGroupName(group),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{namesrv})),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithStrategy(recording),
	}
	// hung is closed at shutdown: a "hang" listener waits on it.
	hung := make(chan struct{})
	switch mode {
	case "concurrent":
	case "orderly":
		options = append(options, consumer.WithConsumerOrder(true))
	case "hang":
		options = append(options, consumer.WithConsumeGoroutineNums(1), consumer.WithConsumeMessageBatchMaxSize(1), consumer.WithPullBatchSize(1))
	default:
		fmt.Fprintln(os.Stderr, "mode must be concurrent, orderly or hang, not", mode)
		os.Exit(2)
	}
	c, err := consumer.NewPushConsumer(options...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		if mode == "hang" {
			<-hung
			return consumer.ConsumeRetryLater, nil
		}
		outMu.Lock()
		defer outMu.Unlock()
		for _, m := range msgs {
			fmt.Fprintln(consumed, string(m.Body))
		}
		if err := consumed.Flush(); err != nil {
			return consumer.ConsumeRetryLater, err
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(name, "started")
	<-stop
	close(hung)
	if err := c.Shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "shutdown:", err)
	}
	outMu.Lock()
	_ = consumed.Flush()
	_ = out.Close()
	outMu.Unlock()
	rec.mu.Lock()
	last := rec.last
	rec.mu.Unlock()
	last.Cids, last.Queues, last.Stopped = nil, []int{}, true
	rec.write(last)
}
