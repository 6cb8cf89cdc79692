"""`holdem stack up|status|down`: the whole platform as local processes.

``up`` runs a ``LocalStack`` (nats-server, redis-server, the seven services; see
``libs.devstack``) in the foreground, writes a state file and supervises: a process that exits
is restarted with backoff (logged with its exit status; the state file then holds its new pid
and restart count) while the others keep running. Ctrl-C, SIGTERM or ``holdem stack down``
(from another terminal) stops it all. The JetStream store and Redis's data live in
``<state dir>/data`` and outlive the stack, unless ``--ephemeral``. ``up --detach`` runs the
same in the background and returns once everything is SERVING. ``status`` and ``down``:
``libs.cli.stack_control``.

The state file (``libs.devstack.stackstate``) is ``$HOLDEM_STACK_DIR/state.json`` (default
``./.stack/state.json``), or under ``--state-dir DIR``; it holds the pid of ``stack up``, the temp
directory, the NATS and Redis URLs and each service's address, pid and log file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from libs.cli import stack_control
from libs.cli.arguments import number, whole_number
from libs.devstack import BinaryNotFoundError, LocalStack, StartError, log_tail
from libs.devstack.identity import STACK_TLS_DIR, default_stack_dir, write_service_key
from libs.devstack.processes import spawn
from libs.devstack.services import DEV_SERVICE_KEYS
from libs.devstack.stackstate import describe, read_state, running_pid, state_path, write_state
from libs.platform.identity import TOOLS
from libs.platform.tls import load_dir

DETACHED_LOG = "stack.log"
DATA_DIR = "data"
#: The stack's NATS and Redis users' passwords and the servers' user files (0600 each).
SECRETS_DIR = "secrets"
#: `up --tls`: the stack's CA and a certificate and key per identity (libs.platform.tls)
TLS_DIR = STACK_TLS_DIR
#: Seconds between two looks of the supervisor at the stack's processes.
SUPERVISE_INTERVAL = 0.5


class _Shutdown(BaseException):
    """Raised from the signal handler: unwinds `stack up` into its cleanup."""


# ---------------------------------------------------------------------------------------------
# up


def _print_summary(state: dict[str, Any], state_dir: Path) -> None:
    print(f"holdem stack is up (pid {state['pid']}); state file {state_path(state_dir)}")
    nodes = state["nats"].get("nodes") or [state["nats"]]
    for node in nodes:
        name = "nats" if len(nodes) == 1 else f"nats {node['name'].removeprefix('nats-')}"
        print(f"  {name:<10} {node['url']:<28} log {node['log']}")
    print(f"  {'redis':<10} {state['redis']['url']:<28} log {state['redis']['log']}")
    for svc in state["services"]:
        print(f"  {svc['name']:<10} {svc['address']:<28} log {svc['log']}")
    if state.get("web"):
        print(f"  {'web':<10} {state['web']:<28} the web client: open it in a browser")
    print("stop with Ctrl-C or `holdem stack down`", flush=True)


def _cmd_up(args: argparse.Namespace) -> int:
    state_dir: Path = args.state_dir
    if args.tls and args.nats_cluster > 1:
        print(
            "holdem stack up: --tls runs one NATS node (not with --nats-cluster)", file=sys.stderr
        )
        return 2
    existing = running_pid(read_state(state_dir))
    if existing is not None:
        print(
            f"a stack is already running (pid {existing}, {state_path(state_dir)}); "
            "run `holdem stack down` first",
            file=sys.stderr,
        )
        return 1
    if args.detach:
        return _up_detached(args)
    return _up_foreground(args)


def _service_argv_from_env() -> Callable[[str], list[str]] | None:
    """$HOLDEM_STACK_SERVICE_CMD (e.g. ``python tests/stack/fake_service.py {name}``) replaces
    ``python -m services.{name}``: tests use it to exercise the stack with stand-in services."""
    template = os.environ.get("HOLDEM_STACK_SERVICE_CMD")
    if not template:
        return None
    parts = shlex.split(template)
    return lambda name: [part.format(name=name) for part in parts]


def _up_foreground(args: argparse.Namespace) -> int:
    state_dir: Path = args.state_dir
    state_dir.mkdir(parents=True, exist_ok=True)
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise _Shutdown(signal.Signals(signum).name)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    stack = LocalStack(
        data_dir=None if _ephemeral(args) else state_dir / DATA_DIR,
        secrets_dir=state_dir / SECRETS_DIR,
        service_argv=_service_argv_from_env(),
        keep_temp=args.keep_temp,
        log_level=args.log_level,
        log_format=args.log_format,
        startup_timeout=args.timeout,
        nats_cluster=args.nats_cluster,
        tls_dir=state_dir / TLS_DIR if args.tls else None,
    )
    if not args.tls:
        # a TLS set left by an earlier `up --tls` would make the CLI's commands talk TLS
        shutil.rmtree(state_dir / TLS_DIR, ignore_errors=True)
    status = 0
    try:
        try:
            stack.start()
        except (StartError, BinaryNotFoundError) as exc:
            print(f"holdem stack up failed: {exc}", file=sys.stderr)
            return 1
        state = describe(stack)
        write_state(state_dir, state)
        # for the CLI's commands run later, which call the services as "tools" (that key only)
        write_service_key(state_dir, DEV_SERVICE_KEYS.key(TOOLS).format())
        _print_summary(state, state_dir)
        if args.play:
            return _play_in_terminal(stack, args)
        if args.demo_hands:
            from libs.cli.demo import play_demo_summary

            # it watches as a spectator; `holdem verify` reads the table's private stream, so
            # its hints name the admin user (password: <state dir>/secrets/credentials.json)
            played, conserved = asyncio.run(
                play_demo_summary(
                    stack.address("table"),
                    stack.nats_url_for("spectator"),
                    args.demo_hands,
                    verify_url=stack.nats_url_for("admin"),
                    tls=None if stack.tls_dir is None else load_dir(stack.tls_dir, TOOLS),
                )
            )
            print(f"\n{played} hands played at table 'demo'", flush=True)
            if stack.secrets_dir is not None:
                print(
                    "(*** in the holdem verify hints: the NATS admin password, "
                    f"{stack.secrets_dir / 'credentials.json'})",
                    flush=True,
                )
            if args.exit_after_demo:
                return 0 if played == args.demo_hands and conserved else 1
            print("the stack keeps running: stop with Ctrl-C or `holdem stack down`", flush=True)
        while True:
            events = stack.supervise()
            for event in events:
                print(f"holdem stack: {event.describe()}", file=sys.stderr, flush=True)
                if event.kind == "exited":
                    path = stack.log_path(event.name)
                    print(f"last lines of {path}:\n{log_tail(path, 15)}", file=sys.stderr)
            if events:
                write_state(state_dir, describe(stack))  # new pids, restart counts
            time.sleep(SUPERVISE_INTERVAL)
    except _Shutdown:
        pass
    finally:
        stopping = True
        print("stopping the holdem stack...", file=sys.stderr, flush=True)
        stack.stop()
        with contextlib.suppress(FileNotFoundError):
            if (read_state(state_dir) or {}).get("pid") == os.getpid():
                state_path(state_dir).unlink()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        kept = f" (kept {stack.workdir})" if args.keep_temp and stack.workdir else ""
        print(f"holdem stack stopped{kept}", file=sys.stderr, flush=True)
    return status


def _ephemeral(args: argparse.Namespace) -> bool:
    """Whether this run's data goes with it: asked for, or a NATS cluster (its stores stay in
    the temp directory), or the demo (its table id is fixed, so it wants a fresh store)."""
    return bool(args.ephemeral or args.nats_cluster > 1 or args.demo_hands)


def _play_in_terminal(stack: LocalStack, args: argparse.Namespace) -> int:
    """``make run`` on a terminal: a 6-seat no-limit hold'em table with five AIs of mixed levels
    and the user in the terminal client; the stack stops when the client exits."""
    from libs.cli.house import open_house_table
    from libs.tui.app import PlayApp

    gateway = stack.address("gateway")
    # this stack's own CA (not whatever the CLI would find in $HOLDEM_STACK_DIR)
    ca = None if stack.tls_dir is None else load_dir(stack.tls_dir, TOOLS).ca
    print("opening a table with five AI opponents...", flush=True)
    table_id = asyncio.run(open_house_table(gateway, tls=ca or False))
    PlayApp(gateway, guest=args.player_name, table_id=table_id, buy_in=200, tls=ca or False).run()
    print(f"table {table_id}: watch it again with `holdem watch {table_id}` while the stack runs")
    return 0


def _up_detached(args: argparse.Namespace) -> int:
    """Run `stack up` in a new session in the background; return when its state file says it
    is up (everything SERVING), or fail with its log if it exits first."""
    state_dir: Path = args.state_dir
    state_dir.mkdir(parents=True, exist_ok=True)
    log_path = state_dir / DETACHED_LOG
    argv = [sys.executable, "-m", "libs.cli.main", "stack", "up", "--state-dir", str(state_dir)]
    argv += ["--timeout", str(args.timeout), "--log-level", args.log_level]
    argv += ["--log-format", args.log_format, "--nats-cluster", str(args.nats_cluster)]
    if args.keep_temp:
        argv.append("--keep-temp")
    if args.ephemeral:
        argv.append("--ephemeral")
    if args.tls:
        argv.append("--tls")
    log_path.write_bytes(b"")  # this run's output only
    proc = spawn(argv, log_path, outlive=True)
    deadline = time.monotonic() + args.timeout + 30
    while time.monotonic() < deadline:
        state = read_state(state_dir)
        if state is not None and state.get("pid") == proc.pid:
            _print_summary(state, state_dir)
            print(f"(running in the background; its output goes to {log_path})")
            return 0
        if proc.poll() is not None:
            print(f"holdem stack up failed; {log_path}:\n{log_tail(log_path)}", file=sys.stderr)
            return 1
        time.sleep(0.2)
    proc.terminate()
    print(f"holdem stack up timed out; {log_path}:\n{log_tail(log_path)}", file=sys.stderr)
    return 1


# ---------------------------------------------------------------------------------------------
# parser


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `stack up|status|down` to the `holdem` command."""
    stack = subparsers.add_parser("stack", help="run the whole platform as local processes")
    commands = stack.add_subparsers(dest="stack_command", required=True)

    def add_state_dir(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--state-dir",
            type=Path,
            default=default_stack_dir(),
            help="where the state file lives (default: $HOLDEM_STACK_DIR or ./.stack)",
        )

    up = commands.add_parser("up", help="start nats, redis and the seven services; wait")
    add_state_dir(up)
    up.add_argument("--keep-temp", action="store_true", help="keep logs and data on exit")
    up.add_argument(
        "--ephemeral",
        action="store_true",
        help="keep the JetStream store and Redis data in the temp directory (gone on exit) "
        "instead of <state dir>/data",
    )
    up.add_argument("--detach", action="store_true", help="run in the background")
    up.add_argument(
        "--tls",
        action="store_true",
        help="mutual TLS between the services and TLS at the gateway: a new CA and a "
        "certificate per service in <state dir>/tls (the CLI's commands use tools.pem)",
    )
    up.add_argument(
        "--timeout",
        type=number(1, 3600, "--timeout"),
        default=60.0,
        help="startup timeout (seconds)",
    )
    up.add_argument("--log-level", default="info", help="HOLDEM_LOG_LEVEL for the services")
    up.add_argument(
        "--log-format", default="json", choices=("json", "console"), help="HOLDEM_LOG_FORMAT"
    )
    up.add_argument(
        "--nats-cluster",
        type=int,
        default=1,
        choices=range(1, 6),
        metavar="N",
        help="run NATS as an N-node JetStream cluster (streams and buckets get N replicas)",
    )
    up.add_argument(
        "--demo-hands",
        type=whole_number(0, 100_000, "--demo-hands"),
        default=0,
        help="once up, seat six bots at a table and print N hands as they are played",
    )
    up.add_argument(
        "--exit-after-demo", action="store_true", help="stop the stack after the demo hands"
    )
    up.add_argument(
        "--play",
        action="store_true",
        help="once up, play at a 6-seat table with five AIs in the terminal client; stop after",
    )
    up.add_argument("--player-name", default="You", help="your name at the --play table")
    up.set_defaults(func=_cmd_up)

    status = commands.add_parser("status", help="health of a running stack")
    add_state_dir(status)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument(
        "--timeout",
        type=number(0.1, 60, "--timeout"),
        default=2.0,
        help="per-check timeout (seconds)",
    )
    status.set_defaults(func=stack_control.cmd_status)

    down = commands.add_parser("down", help="stop a running stack")
    add_state_dir(down)
    down.add_argument(
        "--timeout", type=number(0, 3600, "--timeout"), default=60.0, help="seconds before SIGKILL"
    )
    down.set_defaults(func=stack_control.cmd_down)
