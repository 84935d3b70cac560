//! `kvlab-server`: serves the engine over RESP on TCP.
fn main() {}
