package rmqrebalance

import (
	"fmt"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// BenchmarkStrategies times one member's allocation through this package against the Go
// client's own strategy of the same name, side by side in one run (scripts/bench/go.sh prints the
// ratios). The Go client's consistent hash is not Java's (CRC32, other keys): it is timed as the
// cost a Go user pays today, not as an equal answer.
func BenchmarkStrategies(b *testing.B) {
	ours := map[string]*Strategy{"AVG": Averagely(), "AVG_BY_CIRCLE": AveragelyByCircle()}
	ours["CONSISTENT_HASH"], _ = ConsistentHash(10)
	theirs := map[string]consumer.AllocateStrategy{
		"AVG":             consumer.AllocateByAveragely,
		"AVG_BY_CIRCLE":   consumer.AllocateByAveragelyCircle,
		"CONSISTENT_HASH": consumer.AllocateByConsistentHash(10),
	}
	for _, size := range [][2]int{{16, 4}, {1000, 100}, {100000, 1000}} {
		mq := queues("TopicA", 4, size[0]/4)
		cids := ids(size[1])
		for _, name := range []string{"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"} {
			label := fmt.Sprintf("%s/%dx%d", name, size[0], size[1])
			b.Run(label+"/go-client", func(b *testing.B) {
				var sink []*primitive.MessageQueue
				for i := 0; i < b.N; i++ {
					sink = theirs[name]("g", cids[0], mq, cids)
				}
				_ = sink
			})
			b.Run(label+"/rmqrebalance", func(b *testing.B) {
				var sink []*primitive.MessageQueue
				for i := 0; i < b.N; i++ {
					sink, _ = ours[name].Allocate("g", cids[0], mq, cids)
				}
				_ = sink
			})
		}
	}
}
