// A SQL session over tables held in memory: the statements of a script
// (CREATE TABLE/VIEW/INDEX, DROP, INSERT, DELETE, UPDATE) change its tables,
// and a query runs as a view, either over the data already there or with the
// data arriving as the statements changed it, over several steps. The
// sqllogictest runner and the PostgreSQL-oracle runner are built on it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sql/catalog.h"
#include "sql/datetime.h"
#include "sql/dml.h"
#include "sql/parser.h"
#include "sql/plan.h"
#include "sql/sequences.h"
#include "zset/batch.h"

namespace sluice::sql {

class SqlSession {
 public:
  // `workers` per host, on `hosts` hosts joined by TCP, for the incremental
  // runs.
  explicit SqlSession(int workers = 2, int hosts = 1) : workers_(workers), hosts_(hosts) {}

  // Runs a script of DDL and DML statements; the first error stops it.
  Status Statement(const std::string& sql);

  // Runs one statement that changes tables (INSERT, UPDATE, DELETE, with
  // RETURNING, USING, FROM, or WITH queries that change data; a SELECT
  // whose WITH does) as a pipeline runs it (sql/dml.h): applies its changes
  // and returns its rows.
  Result<DmlOutcome> Modify(const std::string& sql);

  // Binds one SELECT over the session's tables and views, as a view binds
  // it (no nextval()).
  Result<BoundQuery> Bind(const std::string& sql) const;

  // Runs one SELECT once over the tables as they are, as an ad hoc query
  // runs: nextval() and its kin may be called, and the rows come in its
  // ORDER BY.
  Result<QueryRows> Query(const std::string& sql);

  // Runs `q` as a view: over the data already there (one step), or created
  // before the data, which then arrives in the order it was changed, spread
  // over a few steps. Returns the view's rows, each repeated by its
  // multiplicity.
  Result<std::vector<Row>> Evaluate(const BoundQuery& q, bool incremental);

  // Makes `table`'s contents the given rows (each value as PostgreSQL prints
  // it, nullopt for NULL), as one change: the rows that go and the rows that
  // come. For scripts whose data comes from elsewhere.
  Status SetContents(const std::string& table,
                     const std::vector<std::vector<std::optional<std::string>>>& rows);

  bool HasTable(const std::string& name) const { return tables_.count(name) > 0; }

  // DateStyle's input order, for the dates that statements and queries read
  // from text (SET datestyle in the runner's script).
  void set_date_order(DateOrder order) { settings_.date_order = order; }
  DateOrder date_order() const { return settings_.date_order; }
  // SET IntervalStyle: how interval text is read (datetime.h).
  void set_interval_style(IntervalStyle style) { settings_.interval_style = style; }
  // SET bytea_output: escape (true) or hex, for casts of bytea to text.
  void set_bytea_escape(bool escape) { settings_.bytea_escape = escape; }
  // The start of the current transaction, which 'now' and 'today' in text
  // read (datetime.h); unset, they read the clock. A runner beside another
  // database sets that database's, so that both read the same time.
  void set_transaction_time(std::optional<int64_t> micros) { transaction_time_ = micros; }
  const Catalog& catalog() const { return catalog_; }

 private:
  struct TableData {
    TableDef def;
    std::map<std::string, Weight> rows;         // current contents
    std::map<std::string, std::string> by_key;  // primary key -> row
    std::vector<BatchPtr> history;              // every change, in order
  };

  Status CreateTable(const std::string& sql, const Json& body);
  Status NoTable(const std::string& sql, const Json& rel, const std::string& name) const;
  Status Insert(const std::string& sql, const Json& body);
  Status Delete(const std::string& sql, const Json& body);
  Status Update(const std::string& sql, const Json& body);
  Status ReplaceableView(const ViewDef& v);
  Status SequenceStatement(const std::string& sql, const std::string& kind, const Json& body);
  // Whether an INSERT or UPDATE (its parse tree) needs the sequences: a
  // table with SERIAL or IDENTITY columns, or a call of nextval().
  bool UsesSequences(const Json& stmt) const;
  Status Apply(TableData& t, const std::vector<std::pair<std::string, Weight>>& changes);
  TableData* Find(const std::string& name);

  int workers_, hosts_;
  CastSettings settings_;  // SET DateStyle, IntervalStyle and bytea_output
  std::optional<int64_t> transaction_time_;
  Catalog catalog_;
  std::map<std::string, TableData> tables_;
  std::shared_ptr<Sequences> sequences_ = std::make_shared<Sequences>();
  std::shared_ptr<SequenceSession> sequence_session_ = std::make_shared<SequenceSession>();
};

}  // namespace sluice::sql
