//! The listening sockets: bound from Redis's `bind` list and `port`, and moved by `CONFIG SET
//! port` and `CONFIG SET bind` while the server runs.
//!
//! # Binding as Redis binds
//! Each address of the `bind` list is one socket (`SO_REUSEADDR`, IPv6 ones `IPV6_V6ONLY`
//! so that `* -::*` can bind both families on one port). `*` is every IPv4 address, `::*`
//! every IPv6 one; other names are resolved. An address written with a leading `-` is
//! optional: if it is not available on this host it is skipped. Addresses of a family the
//! host lacks are skipped too. Any other failure fails the whole list, and the sockets
//! bound so far are closed (Redis's `listenToPort`). An empty list or port 0 listens
//! nowhere (only for `CONFIG SET`: on the command line `--port 0` picks a free port).
//!
//! # Moving
//! [`Listeners`] holds the current sockets. [`Listeners::relisten`] closes them and binds
//! the new set (the same address and port may be asked for again, with another port or
//! the other way round); if that fails it binds the old set again, so the server listens
//! where it did — what Redis ends with once it rolled the configuration back. The accept
//! loop borrows the sockets only while it polls them, and is woken to poll the new set.

use std::cell::RefCell;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::task::Poll;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// Pending connections a socket queues (Redis's `tcp-backlog` default).
const BACKLOG: i32 = 511;

/// The sockets the server accepts connections on.
#[derive(Debug, Default)]
pub struct Listeners {
    current: RefCell<Vec<TcpListener>>,
    /// The bind list and port `current` was bound from.
    spec: RefCell<(Vec<String>, u16)>,
    changed: Notify,
}

impl Listeners {
    /// Starts with `sockets`, bound from `binds` and `port` (the port they got, if 0 was
    /// asked for).
    pub fn new(sockets: Vec<TcpListener>, binds: Vec<String>, port: u16) -> Listeners {
        Listeners {
            current: RefCell::new(sockets),
            spec: RefCell::new((binds, port)),
            changed: Notify::new(),
        }
    }

    /// Where the sockets listen.
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        self.current
            .borrow()
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .collect()
    }

    /// Listens on `binds` and `port` instead (see the module's "Moving"). Must run inside
    /// the tokio runtime.
    ///
    /// # Errors
    /// Why binding failed; the old sockets are kept then.
    pub fn relisten(&self, binds: &[String], port: u16) -> io::Result<()> {
        let bind = |binds: &[String], port| {
            if port == 0 {
                Ok(Vec::new())
            } else {
                bind_all(binds, port)
            }
        };
        self.current.borrow_mut().clear();
        self.changed.notify_one();
        match bind(binds, port) {
            Ok(sockets) => {
                *self.current.borrow_mut() = sockets;
                *self.spec.borrow_mut() = (binds.to_vec(), port);
                Ok(())
            }
            Err(e) => {
                let (old_binds, old_port) = self.spec.borrow().clone();
                match bind(&old_binds, old_port) {
                    Ok(sockets) => *self.current.borrow_mut() = sockets,
                    Err(again) => eprintln!(
                        "kvlab-server: # could not listen where it listened before: {again}"
                    ),
                }
                Err(e)
            }
        }
    }

    /// The next connection on any of the current sockets; follows [`Listeners::relisten`].
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        loop {
            let any = std::future::poll_fn(|cx| {
                for l in self.current.borrow().iter() {
                    if let Poll::Ready(r) = l.poll_accept(cx) {
                        return Poll::Ready(r);
                    }
                }
                Poll::Pending
            });
            tokio::select! {
                r = any => return r,
                () = self.changed.notified() => continue,
            }
        }
    }
}

/// Binds one socket per address of `binds` on `port` (see the module's "Binding as Redis
/// binds"). Port 0 asks the system for a free port, the same one for every address.
/// Must run inside the tokio runtime.
///
/// # Errors
/// The first address that could not be bound (and was not optional).
pub fn bind_all(binds: &[String], mut port: u16) -> io::Result<Vec<TcpListener>> {
    let mut sockets = Vec::new();
    for bind in binds {
        let (optional, name) = match bind.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, bind.as_str()),
        };
        match bind_one(name, port) {
            Ok(l) => {
                if port == 0 {
                    port = l.local_addr()?.port();
                }
                sockets.push(l);
            }
            Err(e) if skippable(&e, optional) => {
                eprintln!("kvlab-server: could not listen on {name}:{port}: {e} (skipped)");
            }
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("could not listen on {name}:{port}: {e}"),
                ))
            }
        }
    }
    Ok(sockets)
}

/// Failures `listenToPort` passes over: an optional address the host lacks, a family the
/// host has no support for.
fn skippable(e: &io::Error, optional: bool) -> bool {
    const EADDRNOTAVAIL: i32 = 99;
    const FAMILY: [i32; 5] = [92, 93, 94, 96, 97]; // ENOPROTOOPT … EAFNOSUPPORT (Linux)
    match e.raw_os_error() {
        Some(EADDRNOTAVAIL) => optional,
        Some(code) => FAMILY.contains(&code),
        None => false,
    }
}

fn bind_one(name: &str, port: u16) -> io::Result<TcpListener> {
    use socket2::{Domain, Socket, Type};
    let ip = match name {
        "*" => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        "::*" => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
        _ => match name.parse::<IpAddr>() {
            Ok(ip) => ip,
            Err(_) => (name, port)
                .to_socket_addrs()?
                .next()
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))?
                .ip(),
        },
    };
    let addr = SocketAddr::new(ip, port);
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    if addr.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    TcpListener::from_std(socket.into())
}
