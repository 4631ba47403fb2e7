#include "cli/demo.h"

#include <cstdio>

#include "dataflow/operators/aggregate.h"
#include "dataflow/operators/index.h"
#include "dataflow/operators/input.h"
#include "dataflow/operators/join.h"
#include "dataflow/operators/output.h"
#include "runtime/runtime.h"
#include "types/row_codec.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {
namespace {

// customers(id BIGINT NOT NULL, country VARCHAR NOT NULL)
const Schema kCustomers = {SqlType::BigInt(false), SqlType::Varchar(-1, false)};
// orders(id BIGINT NOT NULL, customer BIGINT NOT NULL, amount DECIMAL(10,2) NOT NULL)
const Schema kOrders = {SqlType::BigInt(false), SqlType::BigInt(false),
                        SqlType::Decimal(10, 2, false)};
// revenue(country VARCHAR, orders BIGINT, total DECIMAL(38,2), biggest DECIMAL(10,2))
const Schema kRevenue = {SqlType::Varchar(-1, false), SqlType::BigInt(false),
                         SqlType::Decimal(38, 2), SqlType::Decimal(10, 2)};

// SELECT c.country, COUNT(*), SUM(o.amount), MAX(o.amount)
// FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.country
Status BuildRevenue(Circuit& c) {
  Stream* customers = Index(c, AddInput(c, "customers"), kCustomers, {0}, {1});
  Stream* orders = Index(c, AddInput(c, "orders"), kOrders, {1}, {2});
  JoinSpec spec;
  spec.matched = [](std::string_view, std::string_view amount, std::string_view country,
                    std::string* k, std::string* v) {
    k->assign(country);
    v->assign(amount);
    return Status::OK();
  };
  Stream* joined = Join(c, orders, customers, std::move(spec));
  Stream* revenue = Aggregate(c, joined, {SqlType::Decimal(10, 2, false)},
                              {{AggKind::kCountStar}, {AggKind::kSum, 0}, {AggKind::kMax, 0}});
  AddOutput(c, revenue, "revenue");
  return Status::OK();
}

Result<BatchPtr> Rows(const Schema& schema,
                      const std::vector<std::pair<std::vector<Value>, Weight>>& rows) {
  BatchBuilder b;
  for (const auto& [values, w] : rows) {
    std::string row;
    SLUICE_RETURN_IF_ERROR(EncodeRow(schema, values, &row));
    b.Push(row, w);
  }
  SLUICE_ASSIGN_OR_RETURN(MemBatchPtr batch, b.Finish());
  return BatchPtr(std::move(batch));
}

Value Dec(int64_t cents) { return Value::Decimal(cents, 2); }

}  // namespace

int RunDemo(int workers) {
  RuntimeOptions opts;
  opts.workers = workers;
  auto rt = Runtime::Start(opts, BuildRevenue);
  if (!rt.ok()) {
    std::fprintf(stderr, "error: %s\n", rt.status().ToString().c_str());
    return 1;
  }
  struct StepInput {
    const char* what;
    std::vector<std::pair<std::vector<Value>, Weight>> customers, orders;
  };
  std::vector<StepInput> steps = {
      {"insert 3 customers and 4 orders",
       {{{Value::Int(1), Value::String("NL")}, 1},
        {{Value::Int(2), Value::String("FR")}, 1},
        {{Value::Int(3), Value::String("NL")}, 1}},
       {{{Value::Int(10), Value::Int(1), Dec(2500)}, 1},
        {{Value::Int(11), Value::Int(2), Dec(990)}, 1},
        {{Value::Int(12), Value::Int(3), Dec(12000)}, 1},
        {{Value::Int(13), Value::Int(1), Dec(450)}, 1}}},
      {"delete order 12 (NL's biggest); MAX falls back to the next one",
       {},
       {{{Value::Int(12), Value::Int(3), Dec(12000)}, -1}}},
      {"customer 2 moves from FR to DE; FR's group disappears",
       {{{Value::Int(2), Value::String("FR")}, -1}, {{Value::Int(2), Value::String("DE")}, 1}},
       {}},
  };
  std::printf("Sluice engine demo, %d worker(s)\n", workers);
  std::printf(
      "view: SELECT country, COUNT(*), SUM(amount), MAX(amount) FROM orders JOIN customers\n"
      "      ON orders.customer = customers.id GROUP BY country\n\n");
  for (size_t i = 0; i < steps.size(); ++i) {
    auto cust = Rows(kCustomers, steps[i].customers);
    auto ord = Rows(kOrders, steps[i].orders);
    Status s = cust.ok() ? Status::OK() : cust.status();
    if (s.ok()) s = ord.ok() ? Status::OK() : ord.status();
    if (s.ok()) s = (*rt)->Push("customers", *cust);
    if (s.ok()) s = (*rt)->Push("orders", *ord);
    if (s.ok()) s = (*rt)->Step();
    auto out = s.ok() ? (*rt)->Output("revenue") : Result<BatchPtr>(s);
    if (!out.ok()) {
      std::fprintf(stderr, "error: %s\n", out.status().ToString().c_str());
      return 1;
    }
    std::printf("step %zu: %s\n", i + 1, steps[i].what);
    // Retractions first, then insertions, as a reader of a change log expects.
    for (bool retractions : {true, false}) {
      auto c = (*out)->NewCursor();
      for (; c->KeyValid(); c->StepKey()) {
        if ((c->weight() < 0) != retractions) continue;
        std::printf("  %+lld %s\n", static_cast<long long>(c->weight()),
                    RowToString(kRevenue, c->key()).c_str());
      }
    }
  }
  return 0;
}

}  // namespace sluice
