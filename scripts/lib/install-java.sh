#!/usr/bin/env bash
# Installs the Java artifacts into the local Maven repository without their tests, in dependency
# order: the strategies jar (bindings/java), the consumer (bindings/java/consumer) and the Spring
# Boot starter. The projects under tests/e2e, examples/ and scripts/bench use them by their
# coordinates, as a user's application does.
# Usage: scripts/lib/install-java.sh
set -euo pipefail
cd "$(dirname "$0")/../../bindings/java"
mvn -B -q install -DskipTests
mvn -B -q -f consumer/pom.xml install -DskipTests
mvn -B -q -f spring-boot-starter/pom.xml install -DskipTests
