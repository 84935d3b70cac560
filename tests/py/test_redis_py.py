"""kvlab-server as redis-py sees it.

Run: `pip install redis` then `python3 tests/py/test_redis_py.py` (or pytest) from the
repository root after `cargo build`. KVLAB_SERVER names another binary. Tests that need a
command the engine lacks are skipped, saying which.
"""

import os
import subprocess
import threading
import unittest

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("KVLAB_SERVER", os.path.join(ROOT, "target", "debug", "kvlab-server"))


class KvlabServer:
    """Starts kvlab-server on a free port; stop() kills it."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [BINARY, "--bind", "127.0.0.1", "--port", "0", "--seed", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline().strip()
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def setUpModule():
    global SERVER
    SERVER = KvlabServer()


def tearDownModule():
    SERVER.stop()


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=SERVER.port, protocol=kw.pop("protocol", 2), **kw)


def skip_unless_known(test, r, *command):
    try:
        return r.execute_command(*command)
    except redis.ResponseError as e:
        if "unknown command" in str(e):
            test.skipTest(f"the engine has no {command[0]} yet")
        raise


class RedisPy(unittest.TestCase):
    def test_ping_set_get(self):
        r = client()
        self.assertTrue(r.ping())
        self.assertTrue(r.set("greeting", "hello world"))
        self.assertEqual(r.get("greeting"), b"hello world")
        self.assertIsNone(r.get("missing"))

    def test_binary_values(self):
        r = client()
        value = bytes(range(256)) * 4 + b"\r\n$3\r\n"
        key = b"k\x00\xff\r\n"
        r.set(key, value)
        self.assertEqual(r.get(key), value)

    def test_large_value(self):
        r = client()
        value = os.urandom(10 * 1024 * 1024)
        r.set("big", value)
        self.assertEqual(r.get("big"), value)

    def test_pipeline(self):
        r = client()
        p = r.pipeline(transaction=False)
        for i in range(1000):
            p.set(f"p:{i}", i)
            p.get(f"p:{i}")
        replies = p.execute()
        self.assertEqual(replies[0::2], [True] * 1000)
        self.assertEqual(replies[1::2], [str(i).encode() for i in range(1000)])

    def test_errors_are_response_errors(self):
        r = client()
        with self.assertRaisesRegex(redis.ResponseError, "unknown command 'NOSUCH'"):
            r.execute_command("NOSUCH", "a")
        with self.assertRaisesRegex(redis.ResponseError, "wrong number of arguments for 'get'"):
            r.execute_command("GET")
        self.assertTrue(r.ping())

    def test_threads_share_a_pool(self):
        pool = redis.ConnectionPool(host="127.0.0.1", port=SERVER.port, protocol=2, max_connections=16)
        errors = []

        def work(n):
            try:
                r = redis.Redis(connection_pool=pool)
                for i in range(100):
                    r.set(f"t{n}:{i}", i)
                    assert r.get(f"t{n}:{i}") == str(i).encode()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_resp3(self):
        # Asking with HELLO 3 itself would hand a RESP3 map to a RESP2 parser.
        if client().execute_command("COMMAND", "INFO", "HELLO") == [None]:
            self.skipTest("the engine has no HELLO yet")
        r = client(protocol=3)
        self.assertTrue(r.ping())
        r.set("r3", "v")
        self.assertEqual(r.get("r3"), b"v")
        self.assertIsNone(r.get("missing"))


if __name__ == "__main__":
    unittest.main()
