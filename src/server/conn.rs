//! One connection's task: read, run the batch, write (see the [server](super) module).
//!
//! Writing never holds up reading. Replies go to an output buffer that is written as far as
//! the socket takes without waiting; what is left waits for the socket to become writable
//! while the task goes on reading and running requests. A client may therefore send a
//! pipeline of any size before reading a single reply — Redis buffers normal clients'
//! output without limit too — instead of both sides blocking on full socket buffers.

use std::io;
use std::rc::Rc;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

use super::request::{QueryBuffer, QUERY_BUFFER_LIMIT, READ_CHUNK};
use super::{ConnHandle, Shared};
use crate::engine::{ClientId, Engine};

/// Output buffers that grew beyond this (a big reply) are given back once written.
const OUT_KEEP: usize = 1024 * 1024;

/// What to do after a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Read more.
    Read,
    /// Write what is pending, then close (`QUIT`, a protocol error); read nothing more.
    Close,
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
    loop {
        tokio::select! {
            biased;
            ready = writer.writable(), if out.pending() => {
                if ready.is_err() {
                    return;
                }
            }
            read = reader.read_buf(query.read_target()), if !closing => match read {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            },
            () = woken.as_mut() => woken.set(handle.wake.notified()),
        }
        if handle.kill.get() {
            return;
        }
        if !closing {
            match run_batch(&shared, id, &handle, &mut query, &mut out.buf) {
                // An HTTP request: drop the connection without a word, as Redis does.
                None => return,
                Some(Next::Close) => closing = true,
                Some(Next::Read) => {}
            }
            if query.unparsed() > QUERY_BUFFER_LIMIT {
                return;
            }
        }
        if out.flush(writer).is_err() || (closing && !out.pending()) {
            return;
        }
    }
}

/// Runs every complete request in `query` for client `id`, appending the replies (and any
/// messages queued for the client) to `out`. `None` means: close without writing anything.
fn run_batch(
    shared: &Shared,
    id: ClientId,
    handle: &ConnHandle,
    query: &mut QueryBuffer,
    out: &mut Vec<u8>,
) -> Option<Next> {
    take_outbox(handle, out);
    let mut engine = shared.engine.borrow_mut();
    if take_queued(&mut engine, id, out) {
        return Some(Next::Close);
    }
    loop {
        match query.next_request() {
            Ok(Some(argv)) => {
                if let Some(name) = argv.first().filter(|name| is_http_request(name)) {
                    eprintln!(
                        "kvlab-server: an HTTP request (\"{}\") arrived on client {id}; \
                         closing the connection (cross-protocol attack guard)",
                        String::from_utf8_lossy(name)
                    );
                    out.clear();
                    return None;
                }
                engine.submit(id, argv);
                let close = take_queued(&mut engine, id, out);
                take_outbox(handle, out);
                shared.wake_others(&engine, Some(id));
                if close {
                    return Some(Next::Close);
                }
            }
            Ok(None) => break,
            Err(e) => {
                e.write_reply(out);
                return Some(Next::Close);
            }
        }
    }
    query.compact();
    Some(Next::Read)
}

/// Encodes everything the engine queued for client `id` (its replies, the messages others
/// published to it, keyspace events) into `out`, in the client's current protocol, so a
/// `HELLO 3` reply is already RESP3. True if the connection must close after writing:
/// `QUIT` ([`Client::close_after_reply`]), or the engine closed the client
/// ([`Client::close_asap`]: output limit exceeded; its queue was dropped) or forgot it.
///
/// [`Client::close_after_reply`]: crate::engine::Client::close_after_reply
/// [`Client::close_asap`]: crate::engine::Client::close_asap
fn take_queued(engine: &mut Engine, id: ClientId, out: &mut Vec<u8>) -> bool {
    let Some((proto, close)) = engine
        .client(id)
        .map(|c| (c.proto, c.close_after_reply || c.close_asap))
    else {
        return true;
    };
    for reply in engine.take_pushes(id) {
        reply.write_resp(proto, out);
    }
    close
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
