"""Pub/sub and blocking commands through redis-py, against kvlab-server.

Run from the repository root after `cargo build` (needs `pip install redis pytest`):
`python3 -m pytest tests/py` or `python3 tests/py/test_pubsub_blocking.py`. The module starts
its own kvlab-server on a free port (KVLAB_SERVER names another binary).
"""

import os
import socket
import sys
import threading
import time
import unittest

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_redis_py import KvlabServer  # noqa: E402


def setUpModule():
    global SERVER
    SERVER = KvlabServer()


def tearDownModule():
    SERVER.stop()


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=SERVER.port, protocol=kw.pop("protocol", 2), **kw)


def next_message(p, timeout=5.0):
    """The next message (not a subscription notice) of `p`, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = p.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if m is not None:
            return m
    raise AssertionError("no message within %.1fs" % timeout)


def wait_until(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached")


def blocked_count(r):
    return sum(1 for c in r.client_list() if "b" in c["flags"])


class PubSub(unittest.TestCase):
    def test_channels_and_patterns(self):
        r = client()
        p = r.pubsub()
        p.subscribe("news")
        p.psubscribe("n*")
        wait_until(lambda: r.pubsub_numpat() == 1)
        self.assertEqual(r.publish("news", "hello"), 2)
        got = [next_message(p), next_message(p)]
        kinds = sorted((m["type"], m["channel"], m["data"]) for m in got)
        self.assertEqual(
            kinds,
            [(("message"), b"news", b"hello"), ("pmessage", b"news", b"hello")],
        )
        self.assertEqual([m.get("pattern") for m in got if m["type"] == "pmessage"], [b"n*"])
        p.close()

    def test_unsubscribe_from_everything(self):
        r = client()
        p = r.pubsub()
        p.subscribe("a", "b")
        p.psubscribe("c*")
        wait_until(lambda: r.pubsub_numsub("a", "b") == [(b"a", 1), (b"b", 1)])
        p.unsubscribe()
        p.punsubscribe()
        wait_until(lambda: r.pubsub_numsub("a", "b") == [(b"a", 0), (b"b", 0)] and r.pubsub_numpat() == 0)
        self.assertEqual(r.publish("a", "x"), 0)
        p.close()

    def test_resp3_pushes(self):
        r = client(protocol=3)
        p = r.pubsub()
        p.subscribe("r3")
        wait_until(lambda: r.pubsub_numsub("r3") == [(b"r3", 1)])
        self.assertEqual(client().publish("r3", "pushed"), 1)
        m = next_message(p)
        self.assertEqual((m["type"], m["channel"], m["data"]), ("message", b"r3", b"pushed"))
        p.close()

    def test_a_subscriber_that_hangs_up_leaves_nothing(self):
        r = client()
        s = socket.create_connection(("127.0.0.1", SERVER.port))
        s.sendall(b"SUBSCRIBE gone\r\n")
        wait_until(lambda: r.pubsub_numsub("gone") == [(b"gone", 1)])
        s.close()
        wait_until(lambda: r.pubsub_numsub("gone") == [(b"gone", 0)])


class Blocking(unittest.TestCase):
    def test_two_waiters_are_served_in_order(self):
        r = client()
        r.delete("q")
        results = {}

        def wait(name):
            results[name] = client().blpop("q", timeout=10)

        first = threading.Thread(target=wait, args=("first",))
        first.start()
        wait_until(lambda: blocked_count(r) == 1)
        second = threading.Thread(target=wait, args=("second",))
        second.start()
        wait_until(lambda: blocked_count(r) == 2)
        r.rpush("q", "one", "two")
        first.join(5)
        second.join(5)
        self.assertEqual(results, {"first": (b"q", b"one"), "second": (b"q", b"two")})
        self.assertEqual(blocked_count(r), 0)

    def test_timeouts(self):
        r = client()
        start = time.monotonic()
        self.assertIsNone(r.blpop("empty", timeout=0.3))
        self.assertGreaterEqual(time.monotonic() - start, 0.29)
        self.assertIsNone(r.bzpopmin("emptyz", timeout=0.2))
        self.assertIsNone(r.blmove("empty", "dst", 0.2, "LEFT", "RIGHT"))
        with self.assertRaisesRegex(redis.ResponseError, "timeout is negative"):
            r.blpop("empty", timeout=-1)

    def test_blmove_and_bzpopmax_are_served(self):
        r = client()
        r.delete("src", "dst", "z")
        out = {}

        def move():
            out["move"] = client().blmove("src", "dst", 10, "LEFT", "RIGHT")

        def zpop():
            out["zpop"] = client().bzpopmax("z", timeout=10)

        threads = [threading.Thread(target=move), threading.Thread(target=zpop)]
        for t in threads:
            t.start()
        wait_until(lambda: blocked_count(r) == 2)
        r.rpush("src", "item")
        r.zadd("z", {"a": 1, "b": 2})
        for t in threads:
            t.join(5)
        self.assertEqual(out, {"move": b"item", "zpop": (b"z", b"b", 2.0)})
        self.assertEqual(r.lrange("dst", 0, -1), [b"item"])

    def test_disconnect_while_blocked_leaves_nothing(self):
        r = client()
        r.delete("k")
        s = socket.create_connection(("127.0.0.1", SERVER.port))
        s.sendall(b"BLPOP k 0\r\n")
        wait_until(lambda: blocked_count(r) == 1)
        s.close()
        wait_until(lambda: blocked_count(r) == 0)
        self.assertEqual(r.rpush("k", "v"), 1)
        self.assertEqual(r.llen("k"), 1)

    def test_client_unblock(self):
        r = client()
        waiter = client()
        wid = waiter.client_id()
        out = {}

        def wait():
            try:
                out["reply"] = waiter.blpop("never", timeout=0)
            except redis.ResponseError as e:
                out["error"] = str(e)

        t = threading.Thread(target=wait)
        t.start()
        wait_until(lambda: blocked_count(r) == 1)
        self.assertEqual(r.client_unblock(wid, error=True), 1)
        t.join(5)
        self.assertEqual(out, {"error": "UNBLOCKED client unblocked via CLIENT UNBLOCK"})


if __name__ == "__main__":
    unittest.main()
