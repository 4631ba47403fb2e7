#include "coordinator/coordinator.h"

#include <gtest/gtest.h>

namespace sluice::coordinator {
namespace {

pipeline::ProgramInfo Describe(const std::string& text) {
  auto p = sql::CompileProgram(text);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  auto info = pipeline::DescribeProgram(*p, "/tmp");
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  return *info;
}

const char* kProgram = R"(
CREATE TABLE t (id BIGINT) WITH (connectors = '[
  {"name": "in1", "transport": {"name": "file_input", "config": {"path": "a"}}},
  {"name": "in2", "transport": {"name": "file_input", "config": {"path": "b"}}}]');
CREATE MATERIALIZED VIEW a AS SELECT COUNT(*) AS n FROM t;
CREATE MATERIALIZED VIEW b AS SELECT MAX(id) AS m FROM t;
CREATE VIEW c AS SELECT id FROM t WHERE id > 0;
)";

// Largest first, each on the least loaded host; ties go by name.
TEST(AssignHostsTest, SpreadsByCostWithTiesByName) {
  Assignment a = AssignHosts(Describe(kProgram), 2, {});
  // a and b (3 each) go to hosts 0 and 1 by name; then c and t (1 each).
  EXPECT_EQ(a.output_host.at("a"), 0);
  EXPECT_EQ(a.output_host.at("b"), 1);
  EXPECT_EQ(a.output_host.at("c"), 0);
  EXPECT_EQ(a.output_host.at("t"), 1);
  EXPECT_EQ(a.input_host.at("in1"), 0);
  EXPECT_EQ(a.input_host.at("in2"), 1);
  // The same program gives the same assignment.
  Assignment again = AssignHosts(Describe(kProgram), 2, {});
  EXPECT_EQ(again.output_host, a.output_host);
  EXPECT_EQ(again.input_host, a.input_host);
}

// A recorded assignment stays when connectors are added, views renamed or
// the estimate would now choose otherwise; new streams go around it.
TEST(AssignHostsTest, KeepsWhatACheckpointRecorded) {
  Assignment before = AssignHosts(Describe(kProgram), 2, {});
  const std::string changed = R"(
CREATE TABLE t (id BIGINT) WITH (connectors = '[
  {"name": "in1", "transport": {"name": "file_input", "config": {"path": "a"}}},
  {"name": "in2", "transport": {"name": "file_input", "config": {"path": "b"}}},
  {"name": "in0", "transport": {"name": "file_input", "config": {"path": "c"}}}]');
CREATE MATERIALIZED VIEW a AS SELECT COUNT(*) AS n FROM t;
CREATE MATERIALIZED VIEW b WITH (connectors = '[
  {"name": "o1", "transport": {"name": "file_output", "config": {"path": "o1"}}, "format": {"name": "json"}},
  {"name": "o2", "transport": {"name": "file_output", "config": {"path": "o2"}}, "format": {"name": "json"}}]')
  AS SELECT MAX(id) AS m FROM t;
CREATE VIEW c2 AS SELECT id FROM t WHERE id > 0;
)";
  // Without the record, b (now 7) would go first, to host 0.
  EXPECT_EQ(AssignHosts(Describe(changed), 2, {}).output_host.at("b"), 0);
  Assignment after = AssignHosts(Describe(changed), 2, before);
  EXPECT_EQ(after.output_host.at("a"), before.output_host.at("a"));
  EXPECT_EQ(after.output_host.at("b"), before.output_host.at("b"));
  EXPECT_EQ(after.output_host.at("t"), before.output_host.at("t"));
  EXPECT_EQ(after.input_host.at("in1"), before.input_host.at("in1"));
  EXPECT_EQ(after.input_host.at("in2"), before.input_host.at("in2"));
  // New: c2 on the lighter host (0: a=3; host 1 has b=7, t=1), in0 on 0.
  EXPECT_EQ(after.output_host.at("c2"), 0);
  EXPECT_EQ(after.output_host.count("c"), 0u);
  EXPECT_EQ(after.input_host.at("in0"), 0);
}

}  // namespace
}  // namespace sluice::coordinator
