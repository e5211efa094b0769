"""Publish and subscribe: the smallest nerve program.

A topic is a named channel of messages of one type, kept in shared memory (/dev/shm). Any
number of publishers and subscribers open it by name, in this process or in others: the name
(within the domain set by $NERVE_DOMAIN, default 0) is the rendezvous, there is no broker.

Here a publisher sends 50 velocity commands while a subscriber thread waits for them, and a
second topic carries plain Python dicts. Run it with:

    python examples/python/publish_subscribe/main.py
"""

import sys
import threading
import time

import nerve

COUNT = 50


def check(ok: bool, what: str) -> None:
    """Stops the example with a non-zero exit code when `ok` is false."""
    if not ok:
        sys.exit(f"FAILED: {what}")


def main() -> None:
    # A topic of CmdVel, a fixed-size message: sending is one memcpy into the topic's ring of
    # `depth` slots. A subscriber that falls more than `depth` messages behind loses the
    # oldest ones, and its stats() say how many.
    topic = nerve.Topic("examples/publish_subscribe/cmd_vel", nerve.CmdVel, depth=64)
    # A subscriber receives what is published after it opened (pass history=N for the last N
    # messages sent before), so open it before publishing.
    sub = topic.subscriber()
    pub = topic.publisher()

    received: list[nerve.Struct] = []  # every message class derives from nerve.Struct

    def listen() -> None:
        # recv() waits with the GIL released (other threads run meanwhile) and returns None
        # when the timeout passes first.
        while len(received) < COUNT:
            msg = sub.recv(timeout=5.0)
            if msg is None:
                return
            received.append(msg)

    listener = threading.Thread(target=listen)
    listener.start()

    sent = []
    for i in range(COUNT):
        # Messages are created with keywords; the fields left out keep their defaults.
        msg = nerve.CmdVel(stamp_ns=time.monotonic_ns(), linear=0.1 * i, angular=-0.05 * i)
        pub.send(msg)
        sent.append(msg)
        time.sleep(0.001)
    listener.join()

    # Messages compare equal when their bytes are equal.
    check(len(received) == COUNT, f"received {len(received)} of {COUNT} messages")
    check(received == sent, "the messages received differ from those sent")
    stats = sub.stats()
    check(stats.lost == 0, f"{stats.lost} messages lost")

    # A topic of dict (or any value MessagePack encodes: lists, numbers, str, bytes, numpy
    # arrays). Sent through a shared chunk instead of a fixed slot.
    status = nerve.Topic("examples/publish_subscribe/status", dict)
    status_sub = status.subscriber()
    report = {"node": "talker", "sent": COUNT, "last_linear": sent[-1].linear}
    status.publisher().send(report)
    got = status_sub.recv(timeout=5.0)
    check(got == report, f"status: sent {report}, received {got}")

    print(f"received {stats.received} CmdVel messages, lost {stats.lost}; status {got}")
    print(f"ok: {COUNT} CmdVel messages and one dict published and received intact")


if __name__ == "__main__":
    main()
