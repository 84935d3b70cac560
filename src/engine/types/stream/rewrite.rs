//! The commands that rebuild a stream on an empty server, as Redis's AOF rewrite writes them.

use super::Stream;

impl Stream {
    /// Commands that rebuild this stream under `key` on an empty server, as Redis's AOF
    /// rewrite (`rewriteStreamObject`) writes them: the entries with `XADD` (an empty stream
    /// is made by `XADD … MAXLEN 0 0-1` of a placeholder), `XSETID` with the last ID, entries
    /// added and max deleted ID, then per group `XGROUP CREATE … ENTRIESREAD`, an
    /// `XCLAIM … TIME RETRYCOUNT JUSTID FORCE` per pending entry (delivery time and count
    /// kept) and `XGROUP CREATECONSUMER` for consumers with nothing pending. Used by export
    /// (a file that `redis-cli` loads into a real Redis) and by snapshots. **O(N + P)**.
    pub fn rewrite(&self, key: &[u8]) -> Vec<Vec<Vec<u8>>> {
        let b = |s: &str| s.as_bytes().to_vec();
        let mut out = Vec::new();
        if self.entries.is_empty() {
            out.push(vec![
                b("XADD"),
                key.to_vec(),
                b("MAXLEN"),
                b("0"),
                b("0-1"),
                b("x"),
                b("y"),
            ]);
        }
        for (id, fields) in &self.entries {
            let mut argv = vec![b("XADD"), key.to_vec(), id.to_bytes()];
            for (f, v) in fields {
                argv.push(f.clone());
                argv.push(v.clone());
            }
            out.push(argv);
        }
        out.push(vec![
            b("XSETID"),
            key.to_vec(),
            self.last_id.to_bytes(),
            b("ENTRIESADDED"),
            self.entries_added.to_string().into_bytes(),
            b("MAXDELETEDID"),
            self.max_deleted_entry_id.to_bytes(),
        ]);
        for (name, g) in &self.groups {
            out.push(vec![
                b("XGROUP"),
                b("CREATE"),
                key.to_vec(),
                name.clone(),
                g.last_id.to_bytes(),
                b("ENTRIESREAD"),
                g.entries_read.to_string().into_bytes(),
            ]);
            for (id, nack) in &g.pel {
                out.push(vec![
                    b("XCLAIM"),
                    key.to_vec(),
                    name.clone(),
                    nack.consumer.clone(),
                    b("0"),
                    id.to_bytes(),
                    b("TIME"),
                    nack.delivery_time.to_string().into_bytes(),
                    b("RETRYCOUNT"),
                    nack.delivery_count.to_string().into_bytes(),
                    b("JUSTID"),
                    b("FORCE"),
                ]);
            }
            for (consumer, c) in &g.consumers {
                if c.pending.is_empty() {
                    out.push(vec![
                        b("XGROUP"),
                        b("CREATECONSUMER"),
                        key.to_vec(),
                        name.clone(),
                        consumer.clone(),
                    ]);
                }
            }
        }
        out
    }
}
