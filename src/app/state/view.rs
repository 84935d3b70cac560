//! The keyspace browser and the value view: the key index of the shown database, its
//! rows, the selected key's value and the set-operation diagram.

use std::rc::Rc;

use super::model::{Shared, State, Venn, ViewData, VIEW_LIMIT};
use crate::engine::inspect::{self, ValueView};
use crate::engine::{ClientId, Reply};

impl State {
    /// Follows the active pane's database.
    pub(super) fn sync_db(&mut self) {
        let Some(client) = self.pane(self.ws.active).map(|p| p.client) else {
            return;
        };
        if self.db_of(client) != self.ws.index_db {
            self.rebuild_index();
            self.view = None;
        }
    }

    pub(super) fn rebuild_index(&mut self) {
        let db = self
            .pane(self.ws.active)
            .map_or(0, |p| self.db_of(p.client));
        self.ws.index_db = db;
        self.ws.engine.read(|e| {
            if let Some(d) = e.server().dbs.get(db) {
                let mut index = self.ws.index.borrow_mut();
                index.rebuild(d);
                index.set_filter(self.filter.as_bytes());
            }
        });
        self.refresh_rows();
    }

    pub(super) fn refresh_rows(&mut self) {
        let delim = if self.flat { "" } else { self.delim.as_str() };
        self.rows = Shared(Rc::new(self.ws.index.borrow().rows(delim.as_bytes())));
        self.keys_version += 1;
    }

    pub(super) fn refresh_view(&mut self, changed_by: Option<String>) {
        let Some(old) = self.view.clone() else {
            return;
        };
        let (meta, value) = self.ws.engine.read(|e| {
            let d = e.server().dbs.get(self.ws.index_db);
            (
                d.and_then(|d| inspect::meta(d, &old.key)),
                d.and_then(|d| inspect::snapshot(d, &old.key, VIEW_LIMIT)),
            )
        });
        let changed = value != old.value;
        self.view = Some(Rc::new(ViewData {
            key: old.key.clone(),
            meta,
            prev: if changed {
                old.value.clone()
            } else {
                old.prev.clone()
            },
            changed_by: if changed {
                changed_by.or(old.changed_by.clone())
            } else {
                old.changed_by.clone()
            },
            value,
        }));
    }

    pub(super) fn make_venn(
        &self,
        client: ClientId,
        op: &'static str,
        keys: Vec<Vec<u8>>,
        result: &[Reply],
    ) -> Option<Rc<Venn>> {
        let db = self.db_of(client);
        let sets = self.ws.engine.read(|e| {
            let d = e.server().dbs.get(db)?;
            keys.into_iter()
                .map(|k| match inspect::snapshot(d, &k, VIEW_LIMIT) {
                    Some(ValueView::Set(m, _)) => Some((k, m)),
                    None => Some((k, Vec::new())),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
        })?;
        let result = result
            .iter()
            .filter_map(|r| match r {
                Reply::Bulk(b) => Some(b.clone()),
                _ => None,
            })
            .collect();
        Some(Rc::new(Venn {
            op: op.to_string(),
            sets,
            result,
        }))
    }
}
