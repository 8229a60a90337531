//! Transcripts as the systems under test read and write them: pi `AgentMessage` arrays, chat
//! messages, and the case files of the regression corpus.
//!
//! Messages are kept as `serde_json::Value`s so every unknown role, block type and field survives a
//! round trip with an equal value; the accessors here give the systems a typed view of them.

pub mod build;
pub mod case;
pub mod format_shapes;
pub mod io;
pub mod js;
pub mod session_file;
pub mod shapes;
