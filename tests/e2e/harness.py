"""Processes for the real-broker tests: a NameServer + Broker process (ClusterMain), or a NameServer
and a broker process that can be killed and started again (RestartableCluster), consumer and
producer processes, each logging to its own file, stopped gracefully (SIGTERM), killed (SIGKILL) or
frozen (SIGSTOP). Used by mixed_group.py, orderly.py and restart.py."""

import random
import signal
import socket
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


def record_fault(directory, kind, name):
    """Appends `<kind> <name> <ns>` to <directory>/faults.log (CLOCK_MONOTONIC, what Java's nanoTime reads); returns ns."""
    ns = time.monotonic_ns()
    with open(Path(directory) / "faults.log", "a") as f:
        f.write(f"{kind} {name} {ns}\n")
    return ns


def read_faults(directory):
    """The (kind, name, ns) lines of <directory>/faults.log, in order."""
    f = Path(directory) / "faults.log"
    if not f.exists():
        return []
    return [(k, n, int(ns)) for k, n, ns in (line.split() for line in f.read_text().splitlines())]


class Processes:
    """Named child processes of one run, their output in <dir>/<name>.log; every kill, stop
    (SIGTERM), freeze (SIGSTOP) and thaw (SIGCONT) is written to <dir>/faults.log as it happens."""

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
        record_fault(self.dir, "TERM", name)
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
        self.killed_ns[name] = record_fault(self.dir, "KILL", name)
        proc.wait()
        return self.killed_ns[name]

    def freeze(self, name):
        """SIGSTOP: the process stops where it is, its sockets open; returns the moment."""
        self.procs[name].send_signal(signal.SIGSTOP)
        return record_fault(self.dir, "STOP", name)

    def thaw(self, name):
        """SIGCONT after freeze; returns the moment."""
        self.procs[name].send_signal(signal.SIGCONT)
        return record_fault(self.dir, "CONT", name)

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


def free_port_pair():
    """A loopback port p with p - 2 free too (a broker also listens on p - 2, its VIP channel), and a
    third for HA. Drawn below the kernel's ephemeral range: the broker is killed and started again
    on these ports, and a port from that range could meanwhile become the local end of any outgoing
    connection on the machine (another scenario runs beside this one)."""

    def free(port):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False

    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    pick = random.SystemRandom()  # not the run's seeded random: ports are no input of the test
    for _ in range(500):
        port = pick.randrange(max(1100, low - 12000), low - 4)
        if free(port) and free(port - 2) and free(port + 3):
            return port, port + 3
    raise SystemExit("no free loopback port pair found")


class RestartableCluster:
    """A NameServer (NamesrvMain) and a broker (BrokerMain) as two processes, the broker on fixed
    ports and a store kept in <state>/broker-home, so that it can be killed (SIGKILL) and started
    again as the same broker. Its monitors write <state>/broker-<group>.log; kills go to
    <state>/faults.log as `KILL broker <ns>`."""

    def __init__(self, java_cp, state, topics, monitors=()):
        self.java_cp, self.state = java_cp, Path(state)
        self.namesrv_log = open(self.state / "namesrv.log", "w")
        self.namesrv_proc = subprocess.Popen(java(java_cp, "NamesrvMain", self.state), stdout=self.namesrv_log, stderr=subprocess.STDOUT)
        self.broker_proc = None
        try:
            addr = self.state / "namesrv.addr"
            wait_for("the NameServer to start (see namesrv.log)", lambda: addr.exists() or self.namesrv_proc.poll() is not None, 180)
            if self.namesrv_proc.poll() is not None:
                raise SystemExit("the NameServer did not start; see " + str(self.state / "namesrv.log"))
            self.namesrv = addr.read_text().strip()
            port, ha = free_port_pair()
            self.broker_args = [self.state, self.namesrv, port, ha] + [f"{t}:{q}" for t, q in topics] + [f"monitor={g}@{t}" for g, t in monitors]
            self.start_broker()
        except BaseException:
            self.stop()
            raise

    def start_broker(self):
        """Starts the broker (again) and waits until it serves its topics; returns how long that took in s."""
        ready = self.state / "broker.ready"
        ready.unlink(missing_ok=True)
        log = open(self.state / "broker.log", "a")
        self.broker_proc = subprocess.Popen(java(self.java_cp, "BrokerMain", *self.broker_args, heap="1g"), stdout=log, stderr=subprocess.STDOUT)
        took = wait_for("the broker to start (see broker.log)", lambda: ready.exists() or self.broker_proc.poll() is not None, 180)
        if self.broker_proc.poll() is not None:
            raise SystemExit("the broker did not start; see " + str(self.state / "broker.log"))
        return took

    def kill_broker(self):
        """SIGKILL: the broker loses its lock table, its members and its offsets not yet flushed."""
        self.broker_proc.kill()
        ns = record_fault(self.state, "KILL", "broker")
        self.broker_proc.wait()
        return ns

    def stop(self):
        for proc in (self.broker_proc, self.namesrv_proc):
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
