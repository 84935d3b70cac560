//! `kvlab-server`: serves the engine over RESP on TCP, like `redis-server`.
//!
//! `kvlab-server [--bind ADDR] [--port PORT] [--seed N]`; see [`kvlab::server`].

use kvlab::server::{Invocation, Options, USAGE};

fn main() {
    match Options::from_args(std::env::args().skip(1)) {
        Ok(Invocation::Help) => println!("{USAGE}"),
        Ok(Invocation::Serve(opts)) => {
            if let Err(e) = kvlab::server::run(&opts) {
                eprintln!("kvlab-server: {e}");
                std::process::exit(1);
            }
        }
        Err(msg) => {
            eprintln!("kvlab-server: {msg}\n{USAGE}");
            std::process::exit(2);
        }
    }
}
