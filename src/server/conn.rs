//! One connection's task: read, run the batch, write (see the [server](super) module).
//!
//! Writing never holds up reading. Replies go to an output buffer that is written as far as
//! the socket takes without waiting; what is left waits for the socket to become writable
//! while the task goes on reading and running requests. A client may therefore send a
//! pipeline of any size before reading a single reply — Redis buffers normal clients'
//! output without limit too — instead of both sides blocking on full socket buffers.
//!
//! A batch's replies are written after the other connections that had input ready have
//! run theirs (`RunOthersFirst`), as Redis writes all replies in `beforeSleep`: back to
//! back, the writes mostly find their clients still awake, and waking a sleeping client
//! is a large part of a write's cost (under `redis-benchmark -P 16 -c 50`, the server's
//! kernel time per request fell by a third).

use std::io;
use std::rc::Rc;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

use super::request::{QueryBuffer, QUERY_BUFFER_LIMIT, READ_CHUNK};
use super::shared::{ConnHandle, Shared};
use crate::engine::{ClientId, Engine};

/// Output buffers that grew beyond this (a big reply) are given back once written.
const OUT_KEEP: usize = 1024 * 1024;

/// While this many bytes wait for a slow socket, what the engine queues for the client
/// stays in the engine, where `client-output-buffer-limit` counts it: a subscriber that
/// does not read is then disconnected by that limit instead of growing this buffer
/// without end.
const DRAIN_LIMIT: usize = 256 * 1024;

/// What to do after a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Read more.
    Read,
    /// Write what is pending, then close (`QUIT`, a protocol error); read nothing more.
    Close,
    /// Close at once without writing anything more: the engine closed the client
    /// (`CLIENT KILL`, output over its limit), or an HTTP request arrived.
    Abort,
}

/// Replies not yet written: `buf[sent..]`.
#[derive(Debug)]
struct Output {
    buf: Vec<u8>,
    sent: usize,
}

impl Output {
    fn pending(&self) -> bool {
        self.sent < self.buf.len()
    }

    /// Writes as much as the socket takes now, without waiting.
    fn flush(&mut self, stream: &TcpStream) -> io::Result<()> {
        while self.pending() {
            match stream.try_write(&self.buf[self.sent..]) {
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if !self.pending() {
            self.buf.clear();
            self.sent = 0;
            if self.buf.capacity() > OUT_KEEP {
                self.buf = Vec::with_capacity(READ_CHUNK);
            }
        } else if self.sent > self.buf.len() / 2 {
            // Moving the rest costs less than what was written: linear overall.
            self.buf.drain(..self.sent);
            self.sent = 0;
        }
        Ok(())
    }
}

/// Serves client `id` on `stream` until either side closes. The client must already be
/// connected in the engine and `handle` registered in `shared`; both are removed on return.
pub async fn serve_connection(
    shared: Rc<Shared>,
    mut stream: TcpStream,
    id: ClientId,
    handle: Rc<ConnHandle>,
) {
    let _registered = Registered {
        shared: &shared,
        id,
    };
    // Borrowed halves: reading needs `&mut`, waiting for writability `&`, at the same time.
    let (mut reader, writer) = stream.split();
    let writer = writer.as_ref();
    let mut query = QueryBuffer::new();
    let mut out = Output {
        buf: Vec::with_capacity(READ_CHUNK),
        sent: 0,
    };
    let mut closing = false;
    // One registration with the Notify that lives across reads; renewed once it fires.
    let mut woken = std::pin::pin!(handle.wake.notified());
    let mut last_read = tokio::time::Instant::now();
    loop {
        // Query-buffer housekeeping: the server's tick asks for it while there is room to
        // give back (Shared::request_trims).
        handle.wasting.set(!closing && query.wasting());
        tokio::select! {
            biased;
            ready = writer.writable(), if out.pending() => {
                if ready.is_err() {
                    return;
                }
            }
            read = reader.read_buf(query.read_target()), if !closing => match read {
                Ok(0) | Err(_) => return,
                Ok(_) => last_read = tokio::time::Instant::now(),
            },
            () = woken.as_mut() => woken.set(handle.wake.notified()),
        }
        if handle.trim.replace(false) && !closing {
            // Redis's idle test: more than 2 whole seconds since the client last sent.
            if query.trim(last_read.elapsed().as_secs() > 2) {
                let (len, free) = query.usage();
                shared.engine.borrow_mut().note_query_buffer(id, len, free);
            }
        }
        if handle.kill.get() {
            return;
        }
        let next = if closing {
            flush_queue(&shared, id, &handle, &mut out.buf)
        } else {
            run_batch(&shared, id, &handle, &mut query, &mut out.buf)
        };
        match next {
            Next::Abort => return,
            Next::Close => closing = true,
            Next::Read => {}
        }
        if !closing && query.unparsed() > QUERY_BUFFER_LIMIT {
            return;
        }
        if out.pending() {
            // Redis writes its replies in `beforeSleep`, after it has run every client with
            // input: the writes then come back to back and mostly find the clients awake,
            // where waking a client that went back to sleep costs more than the write.
            // Going to the back of the queue once lets the other ready connections run
            // first, the same way. A client killed meanwhile loses what was not yet
            // written, as in Redis.
            RunOthersFirst(false).await;
            if handle.kill.get() {
                return;
            }
        }
        if out.flush(writer).is_err() || (closing && !out.pending()) {
            return;
        }
        // Output left in the engine by back-pressure: come back for it now that the
        // socket took everything.
        if !out.pending() && shared.engine.borrow().has_pushes(id) {
            handle.wake.notify_one();
        }
    }
}

/// A future that is pending once, waking itself: its task goes to the back of the local
/// run queue, behind the tasks already woken, and runs again before the runtime polls for
/// new events (unlike `tokio::task::yield_now`, which waits for that poll).
struct RunOthersFirst(bool);

impl std::future::Future for RunOthersFirst {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// Runs every complete request in `query` for client `id` through
/// [`Engine::submit_into`], which writes a command's replies straight into `out` when
/// nothing else waits for the client, then appends everything the engine queued for the
/// client — replies, pushed messages, the late reply of a command that blocked — to `out`,
/// in the engine's order. Each reply is
/// encoded in the protocol the client speaks after its command (`HELLO 3` answers in
/// RESP3). Then wakes the other connections that were sent something meanwhile (a
/// `PUBLISH`, a push that served a blocked client, a `CLIENT KILL`).
///
/// A blocked client's further requests are still handed to the engine, which keeps them
/// until the client is unblocked, as Redis leaves them in its query buffer.
///
/// [`Engine::submit_into`]: crate::engine::Engine::submit_into
fn run_batch(
    shared: &Shared,
    id: ClientId,
    handle: &ConnHandle,
    query: &mut QueryBuffer,
    out: &mut Vec<u8>,
) -> Next {
    take_outbox(handle, out);
    let mut engine = shared.engine.borrow_mut();
    let mut next = drain(&mut engine, id, out);
    while next == Next::Read {
        query.set_unauthenticated(must_authenticate(&engine, id));
        match query.next_request() {
            Ok(Some(argv)) => {
                if let Some(name) = argv.first().filter(|name| is_http_request(name)) {
                    eprintln!(
                        "kvlab-server: an HTTP request (\"{}\") arrived on client {id}; \
                         closing the connection (cross-protocol attack guard)",
                        String::from_utf8_lossy(name)
                    );
                    out.clear();
                    return Next::Abort;
                }
                let (len, free) = query.usage();
                engine.note_query_buffer(id, len, free);
                if out.len() < DRAIN_LIMIT {
                    engine.submit_into(id, argv, out);
                } else {
                    engine.submit(id, argv);
                }
                if engine.shutdown_requested() {
                    // Redis exits inside SHUTDOWN: nothing after it runs or is answered.
                    out.clear();
                    shared.wake_ready(&engine, id);
                    shared.print_log(&mut engine);
                    return Next::Abort;
                }
                next = drain(&mut engine, id, out);
            }
            Ok(None) => {
                query.compact();
                let (len, free) = query.usage();
                engine.note_query_buffer(id, len, free);
                break;
            }
            Err(e) => {
                e.write_reply(out);
                engine.note_error_reply("ERR Protocol error");
                next = Next::Close;
            }
        }
    }
    shared.wake_ready(&engine, id);
    shared.print_log(&mut engine);
    next
}

/// True while client `id` must still authenticate: the default user has a password
/// (`requirepass`) or is off, and it has not
/// sent a good `AUTH` (a client connected before the password was set stays authenticated,
/// as in Redis).
fn must_authenticate(engine: &Engine, id: ClientId) -> bool {
    engine.server().acl.auth_required() && engine.client(id).is_some_and(|c| !c.authenticated)
}

/// What a connection does when it only has output to look at (it is closing): takes what
/// the engine queued and says whether to stop at once.
fn flush_queue(shared: &Shared, id: ClientId, handle: &ConnHandle, out: &mut Vec<u8>) -> Next {
    take_outbox(handle, out);
    let mut engine = shared.engine.borrow_mut();
    match drain(&mut engine, id, out) {
        Next::Abort => Next::Abort,
        _ => Next::Close,
    }
}

/// Appends what the engine queued for `id`, encoded for its protocol, and reads its
/// closing flags: killed ([`Next::Abort`], and nothing is written), `QUIT` ([`Next::Close`]).
fn drain(engine: &mut Engine, id: ClientId, out: &mut Vec<u8>) -> Next {
    let Some(c) = engine.client(id) else {
        return Next::Abort;
    };
    if c.close_asap {
        out.clear();
        return Next::Abort;
    }
    if out.len() >= DRAIN_LIMIT {
        // Back-pressure: leave the rest queued in the engine (see DRAIN_LIMIT); the
        // connection comes back for it once the socket took what is pending.
        return Next::Read;
    }
    let proto = c.proto;
    let close = c.close_after_reply;
    engine.drain_pushes(id, |reply| reply.write_resp(proto, out));
    if close {
        Next::Close
    } else {
        Next::Read
    }
}

/// Moves messages queued by others for this client into its output.
fn take_outbox(handle: &ConnHandle, out: &mut Vec<u8>) {
    let mut outbox = handle.outbox.borrow_mut();
    if !outbox.is_empty() {
        out.append(&mut outbox);
    }
}

/// True for `POST` and `Host:` (any case): the first lines of an HTTP request. Redis
/// compares C strings, so a NUL ends the name.
fn is_http_request(name: &[u8]) -> bool {
    let name = match name.iter().position(|&b| b == 0) {
        Some(n) => &name[..n],
        None => name,
    };
    name.eq_ignore_ascii_case(b"post") || name.eq_ignore_ascii_case(b"host:")
}

/// Tells a connection over [`super::MAX_CLIENTS`] why it is closed, best effort.
pub async fn refuse(stream: TcpStream) {
    let _ = stream.try_write(b"-ERR max number of clients reached\r\n");
}

/// Removes the client from the engine and the handle table when the task ends, however it
/// ends (hang-up, close, or a panic unwinding through the task).
struct Registered<'a> {
    shared: &'a Shared,
    id: ClientId,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        if let Ok(mut conns) = self.shared.conns.try_borrow_mut() {
            conns.remove(&self.id);
        }
        if let Ok(mut engine) = self.shared.engine.try_borrow_mut() {
            engine.disconnect(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writes wait for the connections already woken, not for the next poll of the
    /// sockets: a task that yields runs again after the others queued, before any new
    /// event could be seen.
    #[test]
    fn run_others_first_lets_the_queued_tasks_go_first() {
        let order = Rc::new(std::cell::RefCell::new(Vec::new()));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let mut tasks = Vec::new();
            for name in ["a", "b", "c"] {
                let order = Rc::clone(&order);
                tasks.push(tokio::task::spawn_local(async move {
                    order.borrow_mut().push(format!("{name} runs"));
                    RunOthersFirst(false).await;
                    order.borrow_mut().push(format!("{name} writes"));
                }));
            }
            for t in tasks {
                t.await.expect("task");
            }
        });
        assert_eq!(
            *order.borrow(),
            ["a runs", "b runs", "c runs", "a writes", "b writes", "c writes"]
        );
    }

    #[test]
    fn http_guard_matches_like_strcasecmp() {
        assert!(is_http_request(b"POST"));
        assert!(is_http_request(b"post"));
        assert!(is_http_request(b"Host:"));
        assert!(is_http_request(b"HOST:\0junk"));
        assert!(!is_http_request(b"Host"));
        assert!(!is_http_request(b"posts"));
        assert!(!is_http_request(b"GET"));
    }
}
