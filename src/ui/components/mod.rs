//! Views. Each takes plain data and [`Callback`](yew::Callback)s; none owns app state.

pub mod browser;
pub mod command_line;
pub mod debugger;
pub mod header;
pub mod log;
pub mod pane;
pub mod rdb_io;
pub mod script_editor;
pub mod status_bar;
pub mod tab_badge;
pub mod value_view;
pub mod workspaces;
