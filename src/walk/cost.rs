//! What a KV command costs, in Redis's terms: which keys it touches and the time complexity
//! the command table documents for it. Shown beside each reply in a walkthrough.

use crate::engine::table::{self, docs};

/// The cost of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvCost {
    /// The command's name in upper case (`ZRANGE`), or the first word as typed when unknown.
    pub name: String,
    /// The keys it names, from the command table's key positions.
    pub keys: Vec<Vec<u8>>,
    /// The documented time complexity (empty for an unknown command, and in the browser
    /// until the table's texts are fetched: see [`crate::engine::table::docs`]).
    pub complexity: String,
}

/// The cost of `argv`: its keys from the command table's key positions and its documented
/// complexity. Movable-key commands (SORT, ZUNIONSTORE…) report the keys the table's first
/// and last positions name.
pub fn kv_cost(argv: &[Vec<u8>]) -> KvCost {
    let first = argv.first().cloned().unwrap_or_default();
    let name = String::from_utf8_lossy(&first).to_ascii_uppercase();
    let Some(cmd) = table::lookup(&first) else {
        return KvCost {
            name,
            keys: Vec::new(),
            complexity: String::new(),
        };
    };
    let keys = cmd
        .key_positions(argv.len())
        .into_iter()
        .filter_map(|i| argv.get(i).cloned())
        .collect();
    KvCost {
        name,
        keys,
        complexity: docs::complexity(cmd, cmd.name),
    }
}

// The browser build reads complexities once fetched (see `engine::table::docs`).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn keys_and_complexity_come_from_the_table() {
        let argv: Vec<Vec<u8>> = ["sinter", "tag:ruby", "tag:web"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let c = kv_cost(&argv);
        assert_eq!(c.name, "SINTER");
        assert_eq!(c.keys, vec![b"tag:ruby".to_vec(), b"tag:web".to_vec()]);
        assert!(c.complexity.contains("O(N*M)"));
        assert_eq!(kv_cost(&[b"nosuch".to_vec()]).complexity, "");
    }
}
