module github.com/rocketmq-rebalance/rocketmq-rebalance/scripts/release/gomodzip

go 1.26.0

require golang.org/x/mod v0.43.0
