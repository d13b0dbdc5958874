#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): a real NameServer + Broker: the orderly handoff, a mixed Go + Java group, inspect's stuck queues and a 4.9.7 broker, Spring Boot.
# The real NameServer + Broker: SafeOrderlyConsumer against DefaultMQPushConsumer
# through a join, a kill -9 and a leave; then through broker restarts and a freeze past the
# broker's expiry; then one group of rocketmq-client-go and Java consumers; then held queues
# nobody consumes (a Go revoke without unlock, a stuck orderly lock, blocked pulls), each of which
# inspect must name exactly; then inspect on a 4.9.7 NameServer, Broker and clients; then a Spring Boot
# application on our strategy by property, beside Java and Go consumers.
# Runs alone too: scripts/test-all.sh --only e2e, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/e2e/orderly.sh
scripts/e2e/faults.sh
scripts/e2e/soak.sh
scripts/e2e/mixed-go.sh
scripts/e2e/inspect-liveness.sh
scripts/e2e/broker49.sh
scripts/e2e/spring.sh
