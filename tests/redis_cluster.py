"""A local Redis Cluster for tests: 3 masters and 3 replicas of Debian's redis-server 7 on free
ports in a temporary folder, stopped after. `LocalCluster` starts one; the `redis_cluster`
fixture (tests/conftest.py) gives a fresh one to each test that asks, and skips the test when
redis-server is not installed (.ci/run installs it)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import redis

__all__ = ["SERVER", "LocalCluster", "free_ports"]

SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
HOST = "127.0.0.1"
READY_SECONDS = 30.0
NODE = "--cluster-enabled yes --cluster-config-file nodes.conf --appendonly no --daemonize no"
NODE += " --repl-diskless-sync-delay 0"  # a replica syncs at once, not 5 s later
REPLICAS = ("--cluster-replicas", "1", "--cluster-yes")


def free_ports(count: int) -> list[int]:
    """Ports free now (the system picks them, so parallel tests do not collide)."""
    with contextlib.ExitStack() as stack:
        sockets = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]


class LocalCluster:
    """3 masters and 3 replicas (each master's replica the node 3 after it), with a short node
    timeout so that a replica takes over a killed master in about two seconds."""

    def __init__(self, folder: Path, node_timeout_ms: int = 1000) -> None:
        self.folder = folder
        self.node_timeout_ms = node_timeout_ms
        ports = free_ports(12)  # 6 nodes, 6 cluster buses
        self.ports = ports[:6]
        self._buses = ports[6:]
        self._processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.ports[0]}"

    def __enter__(self) -> LocalCluster:
        try:
            for port, bus in zip(self.ports, self._buses, strict=True):
                self._start(port, bus)
            for port in self.ports:
                self._wait(lambda node: node.ping(), port)
            subprocess.run(
                [CLI, "--cluster", "create", *(f"{HOST}:{p}" for p in self.ports), *REPLICAS],
                check=True,
                capture_output=True,
                timeout=READY_SECONDS,
            )
            for port in self.ports:
                self._wait(_ready, port)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(host=HOST, port=port, socket_timeout=5)

    def masters(self) -> list[int]:
        """The ports of the masters, as the cluster sees them now."""
        return [port for port in self.alive() if self.role(port) == "master"]

    def pid(self, port: int) -> int:
        return self._processes[port].pid

    def alive(self) -> list[int]:
        return [port for port, process in self._processes.items() if process.poll() is None]

    def role(self, port: int) -> str:
        with self.node(port) as node:
            role: str = node.info("replication")["role"]
        return role

    def master_of(self, slot: int) -> int:
        """The port of the master serving `slot`, as the live nodes agree."""
        with self.node(self.alive()[0]) as node:
            for start, end, master, *_ in node.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return int(master[1])
        raise LookupError(f"no master serves slot {slot}")

    def kill(self, port: int) -> None:
        """Kill a node as a crash would (no chance to hand over)."""
        process = self._processes[port]
        process.kill()
        process.wait()

    def replica_of(self, master: int) -> int:
        """The port of `master`'s replica."""
        with self.node(master) as node:
            return int(node.info("replication")["slave0"]["port"])

    def pause(self, port: int) -> None:
        """Freeze a node (SIGSTOP): it holds its connections and answers nothing, as a node
        stalled or cut off does, until `resume`."""
        self._processes[port].send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        self._processes[port].send_signal(signal.SIGCONT)

    def wait_failed(self, port: int) -> None:
        """Wait until every other live node counts the node at `port` as failed."""
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if all(_sees_failed(other, port) for other in self.alive() if other != port):
                return
            time.sleep(0.1)
        raise TimeoutError(f"the cluster does not count node {port} failed")

    def wait_served(self, slot: int) -> int:
        """Wait until a live master serves `slot` and every live node sees the cluster whole
        (after a master is killed: once a replica has taken over); that master's port."""
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            alive = self.alive()
            with contextlib.suppress(redis.RedisError, LookupError):
                master = self.master_of(slot)
                if master in alive and all(_state_ok(port) for port in alive):
                    return master
            time.sleep(0.1)
        raise TimeoutError(f"no live master serves slot {slot} after {READY_SECONDS:.0f} s")

    def stop(self) -> None:
        for process in self._processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)  # a paused node could not stop
                process.terminate()
        for process in self._processes.values():
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _start(self, port: int, bus: int) -> None:
        folder = self.folder / str(port)
        folder.mkdir(parents=True)
        log = (folder / "redis.log").open("wb")
        self._processes[port] = subprocess.Popen(
            [
                *(SERVER, "--port", str(port), "--bind", HOST, "--dir", str(folder)),
                *NODE.split(),
                *("--save", "", "--cluster-port", str(bus)),
                *("--cluster-node-timeout", str(self.node_timeout_ms)),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def _wait(self, check: Callable[[redis.Redis], object], port: int) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            try:
                with self.node(port) as node:
                    if check(node):
                        return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster's node {port} is not ready")
            time.sleep(0.05)


def _ready(node: redis.Redis) -> bool:
    """The node sees the whole cluster up, and a replica has its master's data."""
    if node.info("cluster").get("cluster_enabled") != 1:
        return False
    if b"cluster_state:ok" not in node.execute_command("CLUSTER", "INFO"):
        return False
    replication = node.info("replication")
    if replication["role"] != "master" and replication["master_link_status"] != "up":
        return False
    # The node knows every replica as one (gossip may not have told it yet).
    nodes: bytes = node.execute_command("CLUSTER", "NODES")
    return nodes.count(b"slave") == 3


def _state_ok(port: int) -> bool:
    with redis.Redis(host=HOST, port=port, socket_timeout=5) as node:
        info: bytes = node.execute_command("CLUSTER", "INFO")
    return b"cluster_state:ok" in info


def _sees_failed(port: int, failed: int) -> bool:
    with redis.Redis(host=HOST, port=port, socket_timeout=5) as node:
        nodes: str = node.execute_command("CLUSTER", "NODES").decode()
    for line in nodes.splitlines():
        _, address, flags, *_ = line.split()
        if f":{failed}@" in address:
            return "fail" in flags.split(",")
    return False
