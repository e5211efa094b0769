r"""nerve ⇄ ROS 2: a process that carries topics and services both ways between a nerve domain
and a running ROS 2 graph, on ROS 2's own client library (rclpy).

Run it from a Python that can import both ``nerve`` and ``rclpy`` (a sourced ROS 2 install, or
rclpy's wheels from PyPI: ``pip install ros-rclpy ros-rmw-fastrtps-cpp ros-sensor-msgs …``)::

    python -m nerve.ros2_bridge                        # every eligible topic, both ways
    python -m nerve.ros2_bridge --export 'robot/**' --import '/scan' \
        --service arm/home=std_srvs/srv/Trigger
    nerve bridge ros2 …                                # the same, through the CLI

What crosses:

- **nerve → ROS 2**: a topic of a standard type with a ROS 2 form (``nerve._nerve.ros2_types()``)
  that some other process publishes. ``robot/imu`` becomes ``/robot/imu``. Each message is
  converted field by field in Rust and published as CDR bytes (a frame copied once, from the
  chunk into the bytes rclpy publishes).
- **ROS 2 → nerve**: a topic published by some other ROS 2 node whose type nerve has. Each
  message arrives as CDR bytes (``raw=True``) and is decoded into a loaned chunk.
- **Services**: every ROS 2 service (but the nodes' parameter and type-description services)
  is served on nerve under its name, requests and responses as dicts; a nerve service named
  with ``--service NAME=pkg/srv/Type`` is served in ROS 2 with that type.
- **QoS**: ROS 2 → nerve subscribes with the best QoS the publishers offer
  (``qos_profile_best_available``): a BEST_EFFORT publisher makes the nerve topic
  ``best_effort`` (else ``reliable``), a TRANSIENT_LOCAL one is received with its retained
  messages, which nerve subscribers joining later get from the topic's history. nerve → ROS 2
  publishes RELIABLE (so default ROS 2 subscribers match; KEEP_LAST never blocks the bridge),
  with the topic's depth, TRANSIENT_LOCAL (late ROS 2 subscribers get the last ``depth``
  messages sent since the bridge started).
- **No echo loops**: a message the bridge brought into one side is not sent back out of it,
  on a topic bridged both ways (nerve: hashes of the messages it published, checked by its
  reader; ROS 2: hashes of the bytes it published, checked by its subscription).

Anything eligible by name but not bridged (a type nerve or this Python lacks, an invalid name) is
reported once with the reason, and listed in ``--status-file``.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("nerve.ros2_bridge")

NODE_NAME = "nerve_bridge"

#: ROS 2 topics and services never bridged: ROS 2's own plumbing.
ROS_PLUMBING = ("/rosout", "/parameter_events")
ROS_PLUMBING_SERVICE_TYPES = ("rcl_interfaces/srv/", "type_description_interfaces/srv/")

#: Where several nerve types share one ROS 2 type, the one a topic coming from ROS 2 gets.
PREFERRED = {
    "geometry_msgs/msg/Twist": "nerve/Twist",
    "sensor_msgs/msg/Image": "nerve/Image",
    "sensor_msgs/msg/PointCloud2": "nerve/PointCloud2",
}


def ros_name(nerve_name: str) -> str:
    """``robot/imu`` → ``/robot/imu``."""
    return "/" + nerve_name.lstrip("/")


def nerve_name(ros: str) -> str:
    """``/robot/imu`` → ``robot/imu``."""
    return ros.lstrip("/")


def _matches(name: str, globs: list[str]) -> bool:
    """Whether a name matches one of the globs (``*`` within a level, ``**`` across levels;
    none given: every name)."""
    if not globs:
        return True
    bare = name.lstrip("/")
    return any(fnmatch.fnmatchcase(bare, g.lstrip("/").replace("**", "*")) for g in globs)


# -- ROS 2 message classes, and their values as dicts (services carry dicts in nerve) ----------


def ros_class(type_name: str) -> Any:
    """``sensor_msgs/msg/Imu`` → the generated class (ImportError if its package is absent)."""
    pkg, kind, name = type_name.split("/")
    return getattr(importlib.import_module(f"{pkg}.{kind}"), name)


def to_dict(msg: Any) -> Any:
    """A ROS 2 message as plain values (nested messages as dicts, arrays as lists)."""
    if hasattr(msg, "get_fields_and_field_types"):
        return {f: to_dict(getattr(msg, f)) for f in msg.get_fields_and_field_types()}
    if isinstance(msg, (list, tuple)):
        return [to_dict(v) for v in msg]
    if hasattr(msg, "tolist"):  # array.array, numpy arrays
        return msg.tolist()
    return msg


def from_dict(cls: Any, value: Any) -> Any:
    """A dict back as a message of ``cls``; unknown keys raise ValueError naming them."""
    msg = cls()
    if value is None:
        return msg
    if not isinstance(value, dict):
        raise ValueError(f"{cls.__name__}: a dict of fields expected, got {type(value).__name__}")
    fields = list(msg.get_fields_and_field_types())
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(map(str, unknown))} "
                         f"(its fields: {', '.join(fields)})")
    for i, f in enumerate(fields):
        if f not in value:
            continue
        current, v = getattr(msg, f), value[f]
        if hasattr(current, "get_fields_and_field_types"):
            setattr(msg, f, from_dict(type(current), v))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            elem = msg.SLOT_TYPES[i].value_type
            setattr(msg, f, [from_dict(ros_class(f"{'/'.join(elem.namespaces)}/{elem.name}"), e)
                             for e in v])
        else:
            setattr(msg, f, v)
    return msg


# -- configuration --------------------------------------------------------------------------


@dataclass
class Config:
    domain: int | None = None
    export: list[str] = field(default_factory=list)
    import_: list[str] = field(default_factory=list)
    #: nerve service name → ROS 2 service type, served in ROS 2.
    services: dict[str, str] = field(default_factory=dict)
    #: Serve ROS 2's services on nerve (those matching ``import_``).
    import_services: bool = True
    period: float = 0.5
    call_timeout: float = 5.0
    status_file: str | None = None

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> tuple[Config, argparse.Namespace]:
        p = argparse.ArgumentParser(
            prog="nerve bridge ros2",
            description="Carry topics and services both ways between nerve and ROS 2.")
        p.add_argument("--config", help="a YAML file: domain, export, import, services, "
                       "import_services, period, call_timeout (flags override it)")
        p.add_argument("--domain", type=int, help="nerve's domain (default: NERVE_DOMAIN or 0)")
        p.add_argument("--ros-domain", type=int,
                       help="ROS_DOMAIN_ID (default: the environment's, else 0)")
        p.add_argument("--export", action="append", default=[], metavar="GLOB",
                       help="nerve topics to publish in ROS 2 (repeatable; default all), "
                            "e.g. 'robot/**'")
        p.add_argument("--import", dest="import_", action="append", default=[],
                       metavar="GLOB", help="ROS 2 topics and services to bring into nerve "
                                            "(repeatable; default all), e.g. '/scan'")
        p.add_argument("--service", action="append", default=[], metavar="NAME=TYPE",
                       help="serve nerve service NAME in ROS 2 as TYPE "
                            "(e.g. arm/home=std_srvs/srv/Trigger; repeatable)")
        p.add_argument("--no-import-services", action="store_true",
                       help="do not serve ROS 2's services on nerve")
        p.add_argument("--status-file", help="keep what is bridged and skipped here (JSON)")
        p.add_argument("--period", type=float,
                       help="look for new topics and services this often, in seconds (0.5)")
        p.add_argument("--duration", type=float, help="stop after this many seconds")
        p.add_argument("-v", "--verbose", action="store_true")
        a = p.parse_args(argv)
        c = cls()
        if a.config:
            c.merge(load_yaml(a.config))
        c.domain = a.domain if a.domain is not None else c.domain
        c.export += a.export
        c.import_ += a.import_
        for s in a.service:
            name, sep, type_name = s.partition("=")
            if not sep or type_name.count("/") != 2:
                p.error(f"--service {s!r}: NAME=pkg/srv/Type expected, "
                        "e.g. arm/home=std_srvs/srv/Trigger")
            c.services[name.strip("/")] = type_name
        c.import_services = c.import_services and not a.no_import_services
        c.status_file = a.status_file or c.status_file
        c.period = a.period if a.period is not None else c.period
        return c, a

    def merge(self, d: dict[str, Any]) -> None:
        known = {"domain", "export", "import", "services", "import_services", "period",
                 "call_timeout", "status_file"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown key {', '.join(unknown)} "
                             f"(known: {', '.join(sorted(known))})")
        self.domain = d.get("domain", self.domain)
        self.export += list(d.get("export", []))
        self.import_ += list(d.get("import", []))
        self.services.update({k.strip("/"): v for k, v in (d.get("services") or {}).items()})
        self.import_services = bool(d.get("import_services", self.import_services))
        self.period = float(d.get("period", self.period))
        self.call_timeout = float(d.get("call_timeout", self.call_timeout))
        self.status_file = d.get("status_file", self.status_file)


def load_yaml(path: str) -> dict[str, Any]:
    import yaml

    with open(path) as f:
        d = yaml.safe_load(f) or {}
    if not isinstance(d, dict):
        raise ValueError(f"{path}: a mapping expected at the top")
    return d


# -- the bridge -------------------------------------------------------------------------------


class Bridge:
    """One rclpy node and nerve's readers, writers and services, rediscovering both graphs every
    ``config.period`` seconds on the node's executor."""

    def __init__(self, config: Config) -> None:
        import rclpy
        import rclpy.qos

        import nerve

        self._nerve = nerve
        self._n = nerve._nerve
        self._qos = rclpy.qos
        self.config = config
        self.domain = config.domain if config.domain is not None else nerve.default_domain()
        self.to_ros = dict(self._n.ros2_types())
        self.to_nerve: dict[str, str] = {}
        for nt, rt in self._n.ros2_types():
            self.to_nerve.setdefault(rt, nt)
        self.to_nerve.update(PREFERRED)
        self.node = rclpy.create_node(NODE_NAME)
        # The subscriptions rcl feeds straight into nerve (`Ros2Writer.intake`): on a node of
        # their own that no executor spins.
        self.intake_node = rclpy.create_node(NODE_NAME + "_intake")
        self.stop = threading.Event()
        self.exports: dict[str, dict[str, Any]] = {}
        self.imports: dict[str, dict[str, Any]] = {}
        self.ros_services: dict[str, Any] = {}   # ROS 2 services served on nerve
        self.nerve_services: dict[str, Any] = {}  # nerve services served in ROS 2
        self.skipped: dict[str, str] = {}
        self.echo_nerve: dict[str, Any] = {}
        self.echo_ros: dict[str, Any] = {}
        self.lock = threading.Lock()
        for name, type_name in config.services.items():
            self._serve_nerve_service(name, type_name)
        # What `nerve bridge status` and `nerve doctor` show of this bridge: its status, on a
        # latest-only topic of its own (the last one stays when the bridge stops).
        self._view = nerve.Topic(self._n.ROS2_VIEW_TOPIC, dict, latest_only=True, depth=2,
                                 domain=self.domain, max_message_bytes=1 << 20).publisher()
        self.timer = self.node.create_timer(config.period, self.discover)

    # -- discovery ----------------------------------------------------------------------------

    def discover(self) -> None:
        try:
            self._discover_nerve()
            self._discover_ros()
            if self.config.import_services:
                self._discover_ros_services()
            self._write_status()
            self._view.send(self.status())
        except Exception:  # a failed round is retried next period; never kills the bridge
            log.exception("discovery failed (retried in %.1f s)", self.config.period)

    def _skip(self, what: str, reason: str) -> None:
        if self.skipped.get(what) != reason:
            self.skipped[what] = reason
            log.warning("not bridged: %s: %s", what, reason)

    def _class_or_skip(self, what: str, ros_type: str | None, no_type: str) -> Any:
        """The message class of `ros_type`, or None with the reason reported (`no_type` when
        there is no type to bridge as)."""
        if ros_type is None:
            self._skip(what, no_type)
            return None
        try:
            return ros_class(ros_type)
        except (ImportError, AttributeError) as e:
            self._skip(what, f"this Python has no {ros_type} ({e}); install its package")
            return None

    def _echo(self, table: dict[str, Any], name: str) -> Any:
        if name not in table:
            table[name] = self._n.EchoFilter()
        return table[name]

    def _discover_nerve(self) -> None:
        present = set()
        for t in self._nerve.topics(self.domain):
            name, type_name = t["name"], t["type_name"]
            present.add(name)
            if name in self.exports or t["kind"] != "user":
                continue
            if not _matches(name, self.config.export):
                continue
            own = 1 if ros_name(name) in self.imports else 0
            if t["publishers"] - own <= 0:
                continue  # nobody but the bridge publishes it
            what = f"nerve topic '{name}' ({type_name}) → ROS 2"
            ros_type = self.to_ros.get(type_name)
            cls = self._class_or_skip(what, ros_type,
                                      "its type has no ROS 2 form (see `nerve interface list`)")
            if ros_type is None or cls is None:
                continue
            try:
                self._export(name, t, cls, ros_type)
                self.skipped.pop(what, None)
            except Exception as e:
                self._skip(what, str(e))
        for name in [n for n in self.exports if n not in present]:
            self._unexport(name)

    def _export(self, name: str, t: dict[str, Any], cls: Any, ros_type: str) -> None:
        q = self._qos
        qos = q.QoSProfile(
            history=q.HistoryPolicy.KEEP_LAST,
            depth=max(1, min(int(t["depth"]), 100)),
            # RELIABLE whatever the nerve topic's reliability: ROS 2 subscribers are RELIABLE
            # by default and would not match a BEST_EFFORT writer, and a KEEP_LAST writer
            # never blocks the bridge (a sample nobody acknowledged in time is replaced).
            reliability=q.ReliabilityPolicy.RELIABLE,
            durability=q.DurabilityPolicy.TRANSIENT_LOCAL,
        )
        pub = self.node.create_publisher(cls, ros_name(name), qos)
        echo_ros = self._echo(self.echo_ros, ros_name(name))
        entry: dict[str, Any] = {"ros": ros_name(name), "type": ros_type, "publisher": pub,
                                 "sent": 0, "failed": 0}
        try:
            # A Rust thread publishing through rcl itself: no GIL per message.
            if os.environ.get("NERVE_ROS2_BRIDGE_PUMP") == "python":
                raise RuntimeError("NERVE_ROS2_BRIDGE_PUMP=python")
            entry["pump"] = self._n.Ros2Pump(
                name, pub.handle.pointer, domain=self.domain,
                echo=self._echo(self.echo_nerve, name), ros_echo=echo_ros)
            how = "rcl"
        except (RuntimeError, AttributeError) as e:
            # rclpy without the handle's address, or rcl not where expected: a Python thread.
            reader = self._n.Ros2Reader(name, domain=self.domain,
                                        echo=self._echo(self.echo_nerve, name))
            stop = threading.Event()
            entry["thread"] = threading.Thread(
                target=self._pump, args=(name, reader, pub, echo_ros, stop),
                name=f"export {name}", daemon=True)
            entry["stop"] = stop
            how = f"rclpy ({e})"
        self.exports[name] = entry
        if "thread" in entry:
            entry["thread"].start()
        log.info("nerve '%s' → ROS 2 '%s' (%s, via %s)", name, ros_name(name), ros_type, how)

    def _unexport(self, name: str) -> None:
        e = self.exports.pop(name)
        self._stop_export(e)
        self.node.destroy_publisher(e["publisher"])
        log.info("nerve '%s' gone: no longer in ROS 2", name)

    @staticmethod
    def _stop_export(e: dict[str, Any]) -> None:
        if "pump" in e:
            e["sent"], e["failed"] = e["pump"].counts()
            e["pump"].close()
        else:
            e["stop"].set()
            e["thread"].join(timeout=2.0)

    def _pump(self, name: str, reader: Any, pub: Any, echo_ros: Any, stop: threading.Event) -> None:
        """nerve → ROS 2 for one topic: the reader waits with the GIL released."""
        stats = self.exports[name]
        while not (stop.is_set() or self.stop.is_set()):
            try:
                cdr = reader.recv(0.2)
            except self._nerve.Decode as e:
                stats["failed"] += 1
                log.warning("%s", e)
                continue
            except self._nerve.NerveError as e:
                log.error("nerve topic '%s': %s; export stops", name, e)
                return
            if cdr is None:
                continue
            if ros_name(name) in self.imports:
                echo_ros.imported(cdr)
            pub.publish(cdr)
            stats["sent"] += 1

    def _discover_ros(self) -> None:
        for ros, types in self.node.get_topic_names_and_types():
            if ros in self.imports or ros in ROS_PLUMBING or not _matches(ros, self.config.import_):
                continue
            infos = self.node.get_publishers_info_by_topic(ros)
            outside = [i for i in infos if i.node_name != NODE_NAME]
            if not outside:
                continue
            ros_type = types[0]
            what = f"ROS 2 topic '{ros}' ({ros_type}) → nerve"
            nerve_type = self.to_nerve.get(ros_type)
            cls = self._class_or_skip(
                what, ros_type if nerve_type else None,
                "nerve has no standard type for it (see `nerve interface list`)")
            if nerve_type is None or cls is None:
                continue
            best_effort = any(i.qos_profile.reliability == self._qos.ReliabilityPolicy.BEST_EFFORT
                              for i in outside)
            try:
                self._import(ros, cls, ros_type, nerve_type, best_effort)
                self.skipped.pop(what, None)
            except Exception as e:
                self._skip(what, str(e))

    def _import(self, ros: str, cls: Any, ros_type: str, nerve_type: str,
                best_effort: bool) -> None:
        name = nerve_name(ros)
        writer = self._n.Ros2Writer(name, nerve_type, domain=self.domain,
                                    reliability="best_effort" if best_effort else "reliable",
                                    echo=self._echo(self.echo_nerve, name))
        echo_ros = self._echo(self.echo_ros, ros)
        echo_ros.watch()  # the exporter of this topic (if any) notes what it publishes
        stats = {"ros": ros, "nerve": name, "type": nerve_type, "received": 0, "failed": 0}

        qos = self._qos.qos_profile_best_available
        how = "rcl"
        try:
            # rcl calls back on its own thread and the message goes into nerve there: no
            # executor, no Python per message. The subscription's node is spun by nobody.
            if os.environ.get("NERVE_ROS2_BRIDGE_PUMP") == "python":
                raise RuntimeError("NERVE_ROS2_BRIDGE_PUMP=python")
            sub = self.intake_node.create_subscription(cls, ros, _never, qos, raw=True)
            try:
                stats["intake"] = self._n.Ros2Intake(writer, sub.handle.pointer,
                                                     ros_echo=echo_ros)
            except (RuntimeError, AttributeError):
                self.intake_node.destroy_subscription(sub)
                raise
        except (RuntimeError, AttributeError) as e:
            how = f"rclpy ({e})"

            def on_message(cdr: bytes) -> None:
                if echo_ros.is_echo(cdr):
                    return
                try:
                    writer.send(cdr)
                    stats["received"] += 1
                except self._nerve.NerveError as e:
                    stats["failed"] += 1
                    log.warning("%s", e)

            sub = self.node.create_subscription(cls, ros, on_message, qos, raw=True)
        stats["subscription"] = sub
        self.imports[ros] = stats
        log.info("ROS 2 '%s' (%s) → nerve '%s' (%s%s, via %s)", ros, ros_type, name, nerve_type,
                 ", best effort" if best_effort else "", how)

    # -- services -----------------------------------------------------------------------------

    def _discover_ros_services(self) -> None:
        own = {n for n, _ in self.node.get_service_names_and_types_by_node(
            NODE_NAME, self.node.get_namespace())}
        for ros, types in self.node.get_service_names_and_types():
            if ros in self.ros_services or ros in own or not types:
                continue
            if types[0].startswith(ROS_PLUMBING_SERVICE_TYPES):
                continue
            if nerve_name(ros) in self.config.services or not _matches(ros, self.config.import_):
                continue
            what = f"ROS 2 service '{ros}' ({types[0]}) → nerve"
            try:
                self._serve_ros_service(ros, types[0])
                self.skipped.pop(what, None)
            except Exception as e:
                self._skip(what, str(e))

    def _serve_ros_service(self, ros: str, type_name: str) -> None:
        """A ROS 2 service served on nerve: each nerve request (a dict) becomes a ROS 2
        request, called and waited for in a nerve worker thread."""
        srv = ros_class(type_name)
        client = self.node.create_client(srv, ros)
        timeout = self.config.call_timeout
        rpc = self._nerve.rpc
        stats = {"type": type_name, "calls": 0, "failed": 0}

        def handler(request: Any) -> Any:
            req = from_dict(srv.Request, request)
            done = threading.Event()
            future = client.call_async(req)
            future.add_done_callback(lambda _f: done.set())
            if not done.wait(timeout):
                client.remove_pending_request(future)
                stats["failed"] += 1
                raise rpc.CallTimeout(f"ROS 2 service '{ros}' did not answer in {timeout} s")
            stats["calls"] += 1
            return to_dict(future.result())

        server = rpc.Service(nerve_name(ros), domain=self.domain).server(handler, workers=2)
        stats["server"], stats["client"] = server, client
        self.ros_services[ros] = stats
        log.info("ROS 2 service '%s' (%s) → nerve service '%s'", ros, type_name, nerve_name(ros))

    def _serve_nerve_service(self, name: str, type_name: str) -> None:
        """A nerve service served in ROS 2 as ``type_name``."""
        srv = ros_class(type_name)
        client = self._nerve.rpc.Service(name, domain=self.domain).client()
        timeout = self.config.call_timeout
        stats: dict[str, Any] = {"type": type_name, "calls": 0, "failed": 0}

        def callback(request: Any, response: Any) -> Any:
            try:
                answer = client.call(to_dict(request), timeout=timeout)
                stats["calls"] += 1
                return from_dict(type(response), answer)
            except (self._nerve.NerveError, ValueError) as e:
                stats["failed"] += 1
                log.error("nerve service '%s' called from ROS 2: %s", name, e)
                return response

        stats["service"] = self.node.create_service(srv, ros_name(name), callback)
        self.nerve_services[name] = stats
        log.info("nerve service '%s' → ROS 2 service '%s' (%s)", name, ros_name(name), type_name)

    # -- status -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        def plain(d: dict[str, Any]) -> dict[str, Any]:
            if "pump" in d:
                d["sent"], d["failed"] = d["pump"].counts()
            if "intake" in d:
                d["received"], d["failed"] = d["intake"].counts()
            return {k: v for k, v in d.items() if isinstance(v, (str, int, float))}

        return {
            "pid": os.getpid(),
            "domain": self.domain,
            "exports": {n: plain(e) for n, e in self.exports.items()},
            "imports": {n: plain(e) for n, e in self.imports.items()},
            "ros_services": {n: plain(e) for n, e in self.ros_services.items()},
            "nerve_services": {n: plain(e) for n, e in self.nerve_services.items()},
            "skipped": dict(self.skipped),
        }

    def _write_status(self) -> None:
        path = self.config.status_file
        if not path:
            return
        tmp = f"{path}.tmp"
        with open(tmp, "w") as f:
            json.dump(self.status(), f, indent=1)
        os.replace(tmp, path)

    def close(self) -> None:
        self.stop.set()
        for e in self.exports.values():
            self._stop_export(e)
        for s in self.ros_services.values():
            s["server"].close()
        self._write_status()
        self._view.send({**self.status(), "stopped": True})
        for i in self.imports.values():
            if "intake" in i:
                i["intake"].close()
        self.intake_node.destroy_node()
        self.node.destroy_node()


def _never(_msg: Any) -> None:
    """The callback of a subscription rcl feeds into nerve directly: never called."""


def make_executor(node: Any) -> Any:
    """rclpy's EventsExecutor where it exists (lower latency per message), else the
    single-threaded one."""
    try:
        from rclpy.experimental import EventsExecutor

        ex = EventsExecutor()
    except ImportError:
        from rclpy.executors import SingleThreadedExecutor

        ex = SingleThreadedExecutor()
    ex.add_node(node)
    return ex


def main(argv: list[str] | None = None) -> int:
    config, args = Config.from_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="[nerve ros2 bridge] %(levelname)s %(message)s", stream=sys.stderr)
    if args.ros_domain is not None:
        os.environ["ROS_DOMAIN_ID"] = str(args.ros_domain)
    try:
        import rclpy
    except ImportError as e:
        print(f"nerve bridge ros2: this Python ({sys.executable}) cannot import rclpy: {e}.\n"
              "Run it from a ROS 2 environment (source /opt/ros/<distro>/setup.bash), or install "
              "rclpy from PyPI: pip install ros-rclpy ros-rmw-fastrtps-cpp ros-sensor-msgs "
              "ros-geometry-msgs ros-std-msgs; NERVE_ROS2_PYTHON names the interpreter "
              "`nerve bridge ros2` uses.", file=sys.stderr)
        return 3
    rclpy.init()
    bridge = Bridge(config)
    executor = make_executor(bridge.node)
    stopping = threading.Event()

    def on_signal(_sig: int, _frame: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(f"nerve ros2 bridge up: nerve domain {bridge.domain}, ROS_DOMAIN_ID "
          f"{os.environ.get('ROS_DOMAIN_ID', '0')}. Ctrl-C stops it", flush=True)
    end = time.monotonic() + args.duration if args.duration else None
    try:
        while not stopping.is_set() and (end is None or time.monotonic() < end):
            executor.spin_once(timeout_sec=0.1)
    finally:
        bridge.close()
        executor.shutdown()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
