// Compiling a program of 20 views (joins, aggregates, subqueries, top-k) from
// text to a running circuit on 2 workers: parse, bind, plan and lower.
#include <benchmark/benchmark.h>

#include <string>

#include "runtime/runtime.h"
#include "sql/program.h"

namespace sluice {
namespace {

std::string ProgramText() {
  std::string p = R"(
CREATE TABLE customer (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, nation INTEGER, segment VARCHAR);
CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer BIGINT, total DECIMAL(12,2), status VARCHAR, day DATE);
CREATE TABLE lineitem (order_id BIGINT, part BIGINT, quantity INTEGER, price DECIMAL(12,2), discount DOUBLE);
CREATE TABLE part (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR, brand VARCHAR, size INTEGER);
)";
  const char* views[] = {
      "SELECT c.segment, COUNT(*), SUM(o.total) FROM customer c JOIN orders o ON o.customer = c.id "
      "GROUP BY c.segment",
      "SELECT o.status, AVG(l.price), MAX(l.quantity) FROM orders o JOIN lineitem l ON l.order_id "
      "= o.id GROUP BY o.status",
      "SELECT p.brand, SUM(l.quantity * l.price) FROM lineitem l JOIN part p ON p.id = l.part "
      "WHERE p.size > 10 GROUP BY p.brand HAVING SUM(l.quantity) > 100",
      "SELECT c.name, o.total FROM customer c LEFT JOIN orders o ON o.customer = c.id WHERE "
      "c.nation = 3",
      "SELECT id, total FROM orders ORDER BY total DESC LIMIT 10",
      "SELECT DISTINCT status FROM orders",
      "SELECT name FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id "
      "AND o.total > 1000)",
      "SELECT name FROM customer c WHERE id NOT IN (SELECT customer FROM orders WHERE status = "
      "'open')",
      "SELECT o.id, (SELECT COUNT(*) FROM lineitem l WHERE l.order_id = o.id) FROM orders o",
      "SELECT nation, COUNT(DISTINCT segment) FROM customer GROUP BY nation",
      "SELECT p.name, l.quantity FROM part p JOIN lineitem l ON l.part = p.id JOIN orders o ON "
      "o.id = l.order_id WHERE o.status = 'shipped'",
      "SELECT segment FROM customer UNION SELECT status FROM orders",
      "SELECT id FROM part EXCEPT SELECT part FROM lineitem",
      "SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END AS size, COUNT(*) FROM orders "
      "GROUP BY 1",
      "SELECT c.nation, SUM(l.price * (1 - l.discount)) FROM customer c JOIN orders o ON "
      "o.customer = c.id JOIN lineitem l ON l.order_id = o.id GROUP BY c.nation",
      "SELECT brand, MIN(size), MAX(size) FROM part GROUP BY brand",
      "SELECT o.day, COUNT(*) FROM orders o WHERE o.total BETWEEN 10 AND 500 GROUP BY o.day",
      "SELECT name, nation FROM customer WHERE name LIKE 'A%' AND segment IS NOT NULL",
      "SELECT l.order_id, SUM(l.quantity) FROM lineitem l GROUP BY l.order_id HAVING COUNT(*) > 3",
      "SELECT COALESCE(c.segment, 'none'), COUNT(o.id) FROM customer c FULL JOIN orders o ON "
      "o.customer = c.id GROUP BY 1",
  };
  int i = 0;
  for (const char* v : views) p += "CREATE VIEW v" + std::to_string(i++) + " AS " + v + ";\n";
  return p;
}

void BM_CompileProgram(benchmark::State& state) {
  const std::string text = ProgramText();
  for (auto _ : state) {
    auto p = sql::CompileProgram(text);
    if (!p.ok()) {
      state.SkipWithError(p.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(p->views.size());
  }
}

void BM_CompileToRunningCircuit(benchmark::State& state) {
  const std::string text = ProgramText();
  for (auto _ : state) {
    auto p = sql::CompileProgram(text);
    if (!p.ok()) {
      state.SkipWithError(p.status().ToString().c_str());
      return;
    }
    sql::EvalErrors errors;
    RuntimeOptions opts;
    opts.workers = 2;
    auto rt = Runtime::Start(opts, [&](Circuit& c) { return sql::BuildProgram(*p, c, &errors); });
    if (!rt.ok() || !(*rt)->Step().ok()) {
      state.SkipWithError("the circuit did not start");
      return;
    }
  }
}

BENCHMARK(BM_CompileProgram)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileToRunningCircuit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
