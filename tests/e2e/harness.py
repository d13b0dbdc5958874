"""Processes for the real-broker tests: a NameServer + Broker process (ClusterMain), consumer and
producer processes, each logging to its own file, stopped gracefully (SIGTERM) or killed (SIGKILL).
Used by mixed_group.py and orderly.py."""

import signal
import subprocess
import time
from pathlib import Path

PACKAGE = "io.github.rocketmqrebalance.cluster."


def java(java_cp, main, *args, heap="256m", log_root=None):
    """The command line of one of the Java test mains (cluster package), client logs under log_root."""
    cmd = ["java", f"-Xmx{heap}", "-Drocketmq.client.logUseSlf4j=false"]
    if log_root is not None:
        cmd.append(f"-Drocketmq.client.logRoot={log_root}")
    return cmd + ["-cp", java_cp, PACKAGE + main] + [str(a) for a in args]


class Processes:
    """Named child processes of one run, their output in <dir>/<name>.log."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.procs = {}
        self.killed_ns = {}

    def spawn(self, name, cmd):
        log = open(self.dir / (name + ".log"), "w")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)

    def terminate(self, name, timeout):
        """SIGTERM (a consumer shuts down and leaves its group), SIGKILL after timeout s; the exit code or None."""
        proc = self.procs.pop(name)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
            return proc.returncode
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None

    def kill(self, name):
        """SIGKILL now; returns the moment on CLOCK_MONOTONIC (what Java's nanoTime reads)."""
        proc = self.procs.pop(name)
        proc.kill()
        self.killed_ns[name] = time.monotonic_ns()
        proc.wait()
        return self.killed_ns[name]

    def stop_all(self, timeout=30):
        for name in list(self.procs):
            self.terminate(name, timeout)

    def check_alive(self):
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited with {proc.returncode}; see {self.dir / (name + '.log')}")


def wait_for(what, condition, timeout, procs=None, every=0.5):
    """Polls condition() until it is true; fails with `what` after timeout s (or if a process died)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if procs is not None:
            procs.check_alive()
        if condition():
            return time.monotonic() - start
        time.sleep(every)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


class Cluster:
    """NameServer + Broker 5.3.3 as their own process, on loopback ports ClusterMain picks."""

    def __init__(self, java_cp, state, topics, monitors=()):
        self.state = Path(state)
        args = [f"{t}:{q}" for t, q in topics] + [f"monitor={g}@{t}" for g, t in monitors]
        self.log = open(self.state / "cluster.log", "w")
        self.proc = subprocess.Popen(java(java_cp, "ClusterMain", self.state, *args, heap="1g"), stdout=self.log, stderr=subprocess.STDOUT)
        addr = self.state / "namesrv.addr"
        try:
            wait_for("the cluster to start (see cluster.log)", lambda: addr.exists() or self.proc.poll() is not None, 180)
            if self.proc.poll() is not None:
                raise SystemExit("the cluster did not start; see " + str(self.state / "cluster.log"))
        except BaseException:
            self.stop()
            raise
        self.namesrv = addr.read_text().strip()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
