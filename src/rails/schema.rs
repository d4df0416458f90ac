//! The column types a Rails app's database schema declares, from `db/schema.rb`
//! (`create_table "versions" do |t| t.boolean "prerelease" ... end`) or, when the app dumps
//! SQL, `db/structure.sql` (`CREATE TABLE public.versions ( prerelease boolean ...`).
//! Read line by line: both files are generated in one layout.
//!
//! Why it matters for specs: `if prerelease` on a boolean column is a true/false case
//! (`let(:prerelease) { true }`), not a presence; a spec sets it up with the column's type.
//!
//! Does not: run migrations, read a database, or know columns added at runtime.

use std::collections::BTreeMap;
use std::path::Path;

/// Column types by table: `versions` → `prerelease` → `boolean`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Schema {
    tables: BTreeMap<String, BTreeMap<String, String>>,
    /// The file it was read from (`db/schema.rb`, `db/structure.sql`).
    pub file: Option<&'static str>,
}

impl Schema {
    /// The schema of the app at `root` (empty when it has neither file).
    pub fn load(root: &Path) -> Schema {
        if let Ok(bytes) = std::fs::read(root.join("db/schema.rb")) {
            return Schema {
                file: Some("db/schema.rb"),
                ..Schema::from_schema_rb(&String::from_utf8_lossy(&bytes))
            };
        }
        if let Ok(bytes) = std::fs::read(root.join("db/structure.sql")) {
            return Schema {
                file: Some("db/structure.sql"),
                ..Schema::from_structure_sql(&String::from_utf8_lossy(&bytes))
            };
        }
        Schema::default()
    }

    /// The type of `column` of `table` (`boolean`, `string`, `integer`, ...).
    pub fn column_type(&self, table: &str, column: &str) -> Option<&str> {
        self.tables.get(table)?.get(column).map(String::as_str)
    }

    /// Whether the schema knows any table.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Reads `db/schema.rb`.
    pub fn from_schema_rb(text: &str) -> Schema {
        let mut schema = Schema::default();
        let mut table: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("create_table ") {
                table = first_string(rest);
                if let Some(t) = &table {
                    schema.tables.entry(t.clone()).or_default();
                }
                continue;
            }
            if line == "end" {
                table = None;
                continue;
            }
            let (Some(t), Some(rest)) = (&table, line.strip_prefix("t.")) else {
                continue;
            };
            let Some((kind, args)) = rest.split_once(' ') else {
                continue;
            };
            if !kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                continue;
            }
            if let Some(column) = first_string(args) {
                if let Some(columns) = schema.tables.get_mut(t) {
                    columns.insert(column, kind.to_string());
                }
            }
        }
        schema
    }

    /// Reads `db/structure.sql` (PostgreSQL's and MySQL's dumps).
    pub fn from_structure_sql(text: &str) -> Schema {
        let mut schema = Schema::default();
        let mut table: Option<String> = None;
        for line in text.lines() {
            let trimmed = line.trim();
            let upper = trimmed.to_ascii_uppercase();
            if upper.starts_with("CREATE TABLE ") {
                let name = trimmed
                    .get("CREATE TABLE ".len()..)
                    .unwrap_or_default()
                    .trim_start_matches("IF NOT EXISTS ")
                    .split([' ', '('])
                    .next()
                    .unwrap_or_default();
                let name = name
                    .rsplit('.')
                    .next()
                    .unwrap_or(name)
                    .trim_matches(['"', '`']);
                table = Some(name.to_string());
                schema.tables.entry(name.to_string()).or_default();
                continue;
            }
            if trimmed.starts_with(')') {
                table = None;
                continue;
            }
            let Some(t) = &table else { continue };
            let mut words = trimmed.split_whitespace();
            let (Some(column), Some(kind)) = (words.next(), words.next()) else {
                continue;
            };
            let column = column.trim_matches(['"', '`']);
            if column.eq_ignore_ascii_case("constraint") || column.eq_ignore_ascii_case("primary") {
                continue;
            }
            let kind = kind.trim_end_matches(',').to_ascii_lowercase();
            let kind = if kind == "boolean" || kind == "bool" || kind.starts_with("tinyint(1)") {
                "boolean".to_string()
            } else {
                kind
            };
            if let Some(columns) = schema.tables.get_mut(t) {
                columns.insert(column.to_string(), kind);
            }
        }
        schema
    }
}

/// The first double- or single-quoted string of `text`, or a symbol (`:name`).
fn first_string(text: &str) -> Option<String> {
    let text = text.trim_start();
    for q in ['"', '\''] {
        if let Some(rest) = text.strip_prefix(q) {
            return rest.split(q).next().map(str::to_string);
        }
    }
    let rest = text.strip_prefix(':')?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The table of a model class by Rails' default: its last segment, underscored and made
/// plural (`Rubygem` → `rubygems`, `Admin::User` → `users`).
pub fn table_of(class: &str) -> String {
    let last = class.rsplit("::").next().unwrap_or(class);
    super::routes::inflect::pluralize(&crate::naming::underscore(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_rb_and_structure_sql_give_the_column_types() {
        let rb = Schema::from_schema_rb(
            "ActiveRecord::Schema[7.1].define(version: 1) do\n  create_table \"versions\", force: :cascade do |t|\n    t.boolean \"prerelease\", default: false, null: false\n    t.string \"number\"\n    t.datetime \"yanked_at\"\n    t.index [\"number\"], name: \"idx\"\n  end\n\n  create_table :users do |t|\n    t.boolean :admin\n  end\nend\n",
        );
        assert_eq!(rb.column_type("versions", "prerelease"), Some("boolean"));
        assert_eq!(rb.column_type("versions", "number"), Some("string"));
        assert_eq!(rb.column_type("users", "admin"), Some("boolean"));
        assert_eq!(rb.column_type("versions", "idx"), None);
        let sql = Schema::from_structure_sql(
            "CREATE TABLE public.traces (\n    id bigint NOT NULL,\n    visible boolean DEFAULT true NOT NULL,\n    name character varying\n);\n\nCREATE TABLE `notes` (\n  `closed` tinyint(1) NOT NULL,\n  PRIMARY KEY (`id`)\n);\n",
        );
        assert_eq!(sql.column_type("traces", "visible"), Some("boolean"));
        assert_eq!(sql.column_type("traces", "name"), Some("character"));
        assert_eq!(sql.column_type("notes", "closed"), Some("boolean"));
    }

    #[test]
    fn tables_of_models() {
        assert_eq!(table_of("Rubygem"), "rubygems");
        assert_eq!(table_of("Admin::User"), "users");
        assert_eq!(table_of("Category"), "categories");
    }
}
