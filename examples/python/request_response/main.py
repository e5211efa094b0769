"""Request and response: a service and its client.

A service is a named endpoint that answers requests: one server runs a handler, any number of
clients call it, and every response goes back to the client that asked. Requests and responses
are any value MessagePack encodes (dicts, lists, numbers, str, bytes, numpy arrays); a dict
whose keys are a Rust struct's field names is that struct to a Rust server or client, so
Python and Rust peers interoperate. Like topics, services are found by name within the domain
($NERVE_DOMAIN, default 0), across processes, without a broker.

Run it with:

    python examples/python/request_response/main.py
"""

import sys
import threading

import nerve

NAME = "examples/request_response/add_two_ints"


def check(ok: bool, what: str) -> None:
    """Stops the example with a non-zero exit code when `ok` is false."""
    if not ok:
        sys.exit(f"FAILED: {what}")


def add_two_ints(request: dict) -> dict:
    """The handler: runs on the server's worker threads, one request at a time per worker."""
    return {"sum": request["a"] + request["b"]}


def main() -> None:
    service = nerve.Service(NAME)
    # The server runs until close() (here: the end of the `with` block). `workers` handler
    # threads serve requests side by side.
    with service.server(add_two_ints, workers=2) as server:
        client = service.client()
        check(client.wait_for_server(5.0), "the server did not come up")

        # A call waits for its response (with the GIL released), up to `timeout` seconds.
        for a, b in [(2, 3), (-7, 7), (10**12, 1)]:
            response = client.call({"a": a, "b": b}, timeout=5.0)
            check(response == {"sum": a + b}, f"{a} + {b}: got {response}")

        # A client may be shared by threads: each gets its own response.
        failures: list[str] = []

        def caller(t: int) -> None:
            for i in range(20):
                response = client.call({"a": t, "b": i}, timeout=5.0)
                if response != {"sum": t + i}:
                    failures.append(f"thread {t}: {t} + {i} gave {response}")

        threads = [threading.Thread(target=caller, args=(t * 100,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        check(not failures, "; ".join(failures))

        # An exception in the handler reaches the caller as nerve.HandlerError, with its type
        # and message; the server keeps serving.
        try:
            client.call({"a": 1}, timeout=5.0)
            check(False, "a request without 'b' should fail")
        except nerve.HandlerError as e:
            check("KeyError" in str(e), f"unexpected error text: {e}")
            print(f"a bad request is answered with an error: {e}")

        # Every request is counted: `handled` (answered, errors included) and `failed`.
        stats = server.stats()
        print(f"server stats: {stats}")
        check(stats["handled"] == 3 + 4 * 20 + 1, f"handled {stats['handled']} requests")
        check(stats["failed"] == 1, f"{stats['failed']} requests failed")

    # Once the server is closed, a call fails at once with NoServer (never hangs).
    try:
        client.call({"a": 1, "b": 2}, timeout=5.0)
        check(False, "a call without a server should fail")
    except nerve.NoServer:
        pass

    print(
        "ok: 83 requests answered with the right sums (4 threads sharing one client), "
        "a failing handler and a missing server reported as errors"
    )


if __name__ == "__main__":
    main()
