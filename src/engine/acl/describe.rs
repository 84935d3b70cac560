//! A user's rules as `ACL LIST` and `ACL GETUSER` print them (Redis's `ACLDescribeUser`):
//! flags, password hashes, key patterns, channels, then the command rules — `+@all` or
//! `-@all`, the categories that best fit the user's commands, then single commands.

use std::collections::HashSet;

use super::RowHandler;
use super::{row_id, rows, User, CATEGORIES};
use crate::engine::table::row::Table as RowTable;
use crate::engine::table::CommandRow;

impl User {
    /// The full rules string: `on nopass ~* &* +@all`.
    pub fn describe<H: RowHandler>(&self, table: &'static RowTable<H>) -> String {
        let mut out: Vec<String> = self.flags().into_iter().map(String::from).collect();
        out.extend(self.passwords.iter().map(|h| format!("#{h}")));
        let keys = self.describe_keys();
        if !keys.is_empty() {
            out.push(keys);
        }
        out.push(self.describe_channels());
        out.push(self.describe_commands(table));
        out.join(" ")
    }

    /// The key patterns: `~*`, or each as `~p`, `%R~p`, `%W~p` (empty when none).
    pub fn describe_keys(&self) -> String {
        if self.all_keys {
            return "~*".into();
        }
        let pats: Vec<String> = self
            .keys
            .iter()
            .map(|p| {
                let perm = match (p.read, p.write) {
                    (true, true) => "~",
                    (true, false) => "%R~",
                    _ => "%W~",
                };
                format!("{perm}{}", String::from_utf8_lossy(&p.pattern))
            })
            .collect();
        pats.join(" ")
    }

    /// The channels as `ACL LIST` shows them: `&*`, or `resetchannels` and each pattern.
    fn describe_channels(&self) -> String {
        if self.all_channels {
            return "&*".into();
        }
        let mut out = vec!["resetchannels".to_string()];
        out.extend(self.channel_list());
        out.join(" ")
    }

    /// The channel patterns as `&p` (`&*` for all), as `ACL GETUSER` shows them.
    pub fn channel_list(&self) -> Vec<String> {
        if self.all_channels {
            return vec!["&*".into()];
        }
        self.channels
            .iter()
            .map(|c| format!("&{}", String::from_utf8_lossy(c)))
            .collect()
    }

    /// The command rules, found as Redis's `ACLDescribeSelectorCommandRules` finds them:
    /// start from `+@all` (future bit set) or `-@all`; apply, while one fits, the category
    /// with more commands in agreement with the user than against it and the fewest
    /// against; then name each command still different. O(categories² × commands).
    pub fn describe_commands<H: RowHandler>(&self, table: &'static RowTable<H>) -> String {
        let all = rows(table);
        let cats: Vec<Vec<&str>> = all.iter().map(|(c, _)| c.acl_categories()).collect();
        let additive = !self.future;
        let mut rules = vec![if additive { "-@all" } else { "+@all" }.to_string()];
        let mut fake: HashSet<usize> = if additive {
            HashSet::new()
        } else {
            all.iter().map(|(c, _)| row_id(c)).collect()
        };
        let mut temp = self.allowed.clone();
        let mut applied = [false; CATEGORIES.len()];
        loop {
            let mut best = None;
            let (mut mindiff, mut maxsame) = (usize::MAX, 0);
            for (j, cat) in CATEGORIES.iter().enumerate() {
                if applied[j] {
                    continue;
                }
                let (mut on, mut off) = (0, 0);
                for ((c, _), cs) in all.iter().zip(&cats) {
                    if cs.contains(cat) {
                        if temp.contains(&row_id(c)) {
                            on += 1;
                        } else {
                            off += 1;
                        }
                    }
                }
                let (diff, same) = if additive { (off, on) } else { (on, off) };
                if same > diff && (diff < mindiff || (diff == mindiff && same > maxsame)) {
                    best = Some(j);
                    mindiff = diff;
                    maxsame = same;
                }
            }
            let Some(j) = best else { break };
            for ((c, _), cs) in all.iter().zip(&cats) {
                if cs.contains(&CATEGORIES[j]) {
                    change(&mut fake, c, additive);
                    change(&mut temp, c, !additive);
                }
            }
            rules.push(format!(
                "{}@{}",
                if additive { "+" } else { "-" },
                CATEGORIES[j]
            ));
            applied[j] = true;
        }
        for (c, name) in &all {
            let mine = self.allowed.contains(&row_id(c));
            if mine != fake.contains(&row_id(c)) {
                rules.push(format!("{}{name}", if mine { "+" } else { "-" }));
                change(&mut fake, c, mine);
            }
        }
        rules.join(" ")
    }
}

/// Sets a row and its subcommands in a command set.
fn change<H: RowHandler>(set: &mut HashSet<usize>, c: &'static CommandRow<H>, allow: bool) {
    for r in std::iter::once(c).chain(c.subcommands.iter()) {
        if allow {
            set.insert(row_id(r));
        } else {
            set.remove(&row_id(r));
        }
    }
}
