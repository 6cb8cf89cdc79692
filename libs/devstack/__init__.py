"""The dev stack: local nats-server, redis-server and service processes, one way for everyone.

``holdem stack``, ``holdem chaos``, the benchmarks and the tests all start their processes here:

- ``NatsServer`` / ``RedisServer`` (``servers``): real servers on free loopback ports, each in its
  own temp directory; ``start_nats`` / ``start_redis`` start one.
- ``NatsCluster`` (``cluster``): N nats-server nodes forming one JetStream cluster (streams
  replicated), each node killable and restartable on its ports; ``start_nats_cluster``.
- ``ServiceProcess`` (``services``): one holdem service (``python -m services.<name>``) configured
  through ``HOLDEM_*`` variables (``service_env``), ready when its gRPC health check is SERVING.
- ``LocalStack`` (``stack``): both servers and the seven services wired together.

All three kinds are ``ManagedProcess``es (``processes``) with one life cycle: ``start`` (free
port, wait until ready, log file), ``stop`` (SIGTERM, then SIGKILL), ``kill`` (a crash) and
``restart`` (same address, same data directory); ``programs.Program`` is any other command line (a
benchmark's server) with the same life cycle. ``processes.spawn`` is the one place a process is
started: ``holdem stack up --detach`` spawns its runner there too, to outlive the command.
Binaries are found by ``binaries``.
"""

from .binaries import BinaryNotFoundError, find_nats_server, find_redis_server
from .cluster import NatsCluster, start_nats_cluster
from .ports import restartable_port
from .processes import (
    LOOPBACK,
    ManagedProcess,
    StartError,
    free_port,
    free_ports,
    log_tail,
    pid_alive,
)
from .servers import LocalServer, NatsServer, RedisServer, start_nats, start_redis
from .services import ServiceProcess, addr_env_var, clean_environ, service_env
from .stack import SERVICE_NAMES, LocalStack, StackStartError

__all__ = [
    "LOOPBACK",
    "SERVICE_NAMES",
    "BinaryNotFoundError",
    "LocalServer",
    "LocalStack",
    "ManagedProcess",
    "NatsCluster",
    "NatsServer",
    "RedisServer",
    "ServiceProcess",
    "StackStartError",
    "StartError",
    "addr_env_var",
    "clean_environ",
    "find_nats_server",
    "find_redis_server",
    "free_port",
    "free_ports",
    "log_tail",
    "pid_alive",
    "restartable_port",
    "service_env",
    "start_nats",
    "start_nats_cluster",
    "start_redis",
]
