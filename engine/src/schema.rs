//! The JSON Schema (2020-12) of every component, kept in `schema/` at the workspace root.

/// The schema document, as served at `/v1/schema.json` and printed by `passback schema`.
pub const SCHEMA: &str = include_str!("../../schema/passback.schema.json");
