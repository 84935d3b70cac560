//! The differential tests' pair: a real `redis-server` (a [`process`] guard) and an
//! in-process engine, each with one client, so that a command runs on both and the two
//! replies compare as values.

use kvlab::engine::{ClientId, Engine, ManualClock, Reply};

use super::process::{self, ServerGuard};
use super::resp::{parse_bytes, RespClient};

/// Both sides. The engine's clock stands still at [`Sides::CLOCK_MS`].
pub struct Sides {
    /// The client of the real server.
    pub redis: RespClient,
    /// The engine.
    pub engine: Engine,
    /// The engine's client.
    pub id: ClientId,
    /// The protocol both clients speak (2, or 3 after [`Sides::resp3`]).
    resp: u8,
    _guard: ServerGuard,
}

impl Sides {
    /// The engine's clock (a date in 2023, so TTLs and stream IDs look real).
    pub const CLOCK_MS: i64 = 1_700_000_000_000;

    /// Starts `redis-server` with `extra` arguments, and an engine, both in RESP2.
    pub fn start(extra: &[&str]) -> Sides {
        let guard = process::redis_server(extra);
        let redis = guard.client();
        let mut engine = Engine::new(Box::new(ManualClock::at_ms(Self::CLOCK_MS)), 1);
        let id = engine.connect();
        Sides {
            redis,
            engine,
            id,
            resp: 2,
            _guard: guard,
        }
    }

    /// Switches both clients to RESP3 (`HELLO 3`).
    pub fn resp3(mut self) -> Sides {
        let hello = [b"HELLO".to_vec(), b"3".to_vec()];
        self.redis.call(&hello).expect("HELLO 3 to redis");
        self.engine.execute(self.id, hello.to_vec());
        self.resp = 3;
        self
    }

    /// The real server's reply.
    pub fn redis(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.redis.call(argv).expect("redis reply")
    }

    /// The engine's reply, encoded as the client's protocol and parsed back, as a client
    /// of `kvlab-server` would read it.
    pub fn kvlab(&mut self, argv: &[Vec<u8>]) -> Reply {
        let r = self.engine.execute(self.id, argv.to_vec());
        parse_bytes(&r.to_resp(self.resp)).expect("the engine's reply parses back")
    }

    /// Both replies: (redis, kvlab).
    pub fn both(&mut self, argv: &[Vec<u8>]) -> (Reply, Reply) {
        (self.redis(argv), self.kvlab(argv))
    }
}
