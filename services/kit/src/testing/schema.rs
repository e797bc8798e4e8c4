//! The shape a database's migrations left, read the same way from SQLite and PostgreSQL:
//! tables, columns with their nullability, primary keys, unique and plain indexes. Column
//! types differ by design (TIMESTAMPTZ on PostgreSQL, TEXT on SQLite) and index names are the
//! engines' own, so neither is compared. Text-search indexes are each engine's own too (a
//! pg_trgm GIN index, an FTS5 virtual table with its shadow tables): only B-tree indexes and
//! ordinary tables are read. [`assert_parity`] fails when the two migration sets of a service
//! disagree.

use std::collections::{BTreeMap, BTreeSet};

use crate::db::{Backend, Db, Migrations, query};

use super::TestDb;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    pub tables: BTreeMap<String, Table>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// Column name → nullable.
    pub columns: BTreeMap<String, bool>,
    pub primary_key: Vec<String>,
    pub indexes: BTreeSet<Index>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Index {
    pub columns: Vec<String>,
    pub unique: bool,
    /// Has a `WHERE` clause.
    pub partial: bool,
}

/// Reads the schema of `db` (the migrations' bookkeeping table left out).
pub async fn read(db: &Db) -> Schema {
    let mut schema = Schema::default();
    for name in table_names(db).await {
        let table = match db.backend() {
            Backend::Sqlite => sqlite_table(db, &name).await,
            Backend::Postgres => postgres_table(db, &name).await,
        };
        schema.tables.insert(name, table);
    }
    schema
}

/// Migrates a fresh database on each backend and fails with both shapes when they differ.
pub async fn assert_parity(migrations: &Migrations) {
    let sqlite_db = TestDb::new(Backend::Sqlite).await;
    let postgres_db = TestDb::new(Backend::Postgres).await;
    let sqlite = read(&sqlite_db.connect(migrations).await).await;
    let postgres = read(&postgres_db.connect(migrations).await).await;
    assert!(!sqlite.tables.is_empty(), "no tables were created");
    assert_eq!(
        sqlite, postgres,
        "the SQLite (left) and PostgreSQL (right) migrations disagree"
    );
}

fn expect<T>(result: Result<T, crate::db::DbError>, what: &str) -> T {
    result.unwrap_or_else(|e| panic!("reading {what}: {e}"))
}

async fn table_names(db: &Db) -> Vec<String> {
    let sql = match db.backend() {
        Backend::Sqlite => {
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' \
             AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%' ORDER BY name"
        }
        Backend::Postgres => {
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE' \
             AND table_name NOT LIKE '\\_sqlx%' ORDER BY 1"
        }
    };
    let rows: Vec<(String,)> = expect(query(sql).fetch_all(db).await, "tables");
    rows.into_iter().map(|(name,)| name).collect()
}

async fn sqlite_table(db: &Db, table: &str) -> Table {
    let columns: Vec<(String, i64, i64)> = expect(
        query("SELECT name, \"notnull\", pk FROM pragma_table_info($1) ORDER BY pk, cid")
            .bind(table)
            .fetch_all(db)
            .await,
        "columns",
    );
    let mut out = Table::default();
    for (name, not_null, pk) in &columns {
        // SQLite lets a non-integer PRIMARY KEY hold NULL; PostgreSQL never does. Gatehouse
        // never writes one, so a key column counts as NOT NULL on both.
        out.columns.insert(name.clone(), *not_null == 0 && *pk == 0);
        if *pk > 0 {
            out.primary_key.push(name.clone());
        }
    }
    let indexes: Vec<(String, i64, String, i64)> = expect(
        query("SELECT name, \"unique\", origin, partial FROM pragma_index_list($1)")
            .bind(table)
            .fetch_all(db)
            .await,
        "indexes",
    );
    for (name, unique, origin, partial) in indexes {
        if origin == "pk" {
            continue;
        }
        let columns: Vec<(String,)> = expect(
            query("SELECT name FROM pragma_index_info($1) ORDER BY seqno")
                .bind(name.as_str())
                .fetch_all(db)
                .await,
            "index columns",
        );
        out.indexes.insert(Index {
            columns: columns.into_iter().map(|(c,)| c).collect(),
            unique: unique != 0,
            partial: partial != 0,
        });
    }
    out
}

async fn postgres_table(db: &Db, table: &str) -> Table {
    let columns: Vec<(String, String)> = expect(
        query(
            "SELECT column_name::text, is_nullable::text FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name = $1",
        )
        .bind(table)
        .fetch_all(db)
        .await,
        "columns",
    );
    let mut out = Table::default();
    for (name, nullable) in columns {
        out.columns.insert(name, nullable == "YES");
    }
    let indexes: Vec<(String, i64, i64, i64)> = expect(
        query(
            "SELECT array_to_string(ARRAY( \
                 SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord) \
                 JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
                 ORDER BY k.ord), ','), \
             ix.indisunique::int::int8, ix.indisprimary::int::int8, \
             (ix.indpred IS NOT NULL)::int::int8 \
             FROM pg_index ix \
             JOIN pg_class t ON t.oid = ix.indrelid \
             JOIN pg_namespace n ON n.oid = t.relnamespace \
             JOIN pg_class i ON i.oid = ix.indexrelid \
             JOIN pg_am am ON am.oid = i.relam \
             WHERE n.nspname = 'public' AND t.relname = $1 AND am.amname = 'btree'",
        )
        .bind(table)
        .fetch_all(db)
        .await,
        "indexes",
    );
    for (columns, unique, primary, partial) in indexes {
        let columns: Vec<String> = columns.split(',').map(str::to_string).collect();
        if primary != 0 {
            out.primary_key = columns;
        } else {
            out.indexes.insert(Index {
                columns,
                unique: unique != 0,
                partial: partial != 0,
            });
        }
    }
    out
}
