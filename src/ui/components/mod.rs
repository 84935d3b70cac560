//! Views. Each takes plain data and [`Callback`](yew::Callback)s; none owns state.

pub mod command_line;
pub mod header;
pub mod log;
pub mod status_bar;
