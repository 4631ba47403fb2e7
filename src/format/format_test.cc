#include "format/format.h"

#include <gtest/gtest.h>

#include "dataflow/operators/upsert.h"
#include "format/json.h"
#include "types/row_codec.h"
#include "types/time_tz.h"

namespace sluice::format {
namespace {

Relation People(bool keyed) {
  Relation r;
  r.name = "people";
  r.columns = {"id", "name", "score", "born", "seen", "tags", "ok"};
  r.schema = {SqlType::BigInt(false), SqlType::Varchar(),   SqlType::Decimal(30, 10),
              SqlType::Date(),        SqlType::Timestamp(), SqlType::Array(SqlType::Integer()),
              SqlType::Boolean()};
  if (keyed) r.key = {0};
  return r;
}

struct Decoded {
  ChangeBuffer changes;
  std::vector<RecordError> errors;
  uint64_t error_count = 0;
  Position end;
};

Decoded Decode(const FormatOptions& o, const Relation& rel, std::string_view data) {
  Decoded d;
  auto dec = MakeDecoder(o, rel);
  EXPECT_TRUE(dec.ok());
  d.end = (*dec)->Decode(data, Position{}, &d.changes, &d.errors, &d.error_count);
  return d;
}

std::string Row(const Relation& rel, std::string_view bytes) {
  return RowToString(rel.schema, bytes);
}

TEST(JsonTest, InsertsAndDeletesEveryType) {
  Relation rel = People(false);
  FormatOptions o;
  Decoded d = Decode(
      o, rel,
      R"({"insert": {"id": 1, "name": "ann", "score": 12345678901234567890.0123456789, "born": "2001-02-03", "seen": "2024-01-31 10:15:00.5", "tags": [1, null, 3], "ok": true}}
{"delete": {"ID": 2, "Name": "b\"ob\n"}}

  {"insert": {"id": 3}}
)");
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 3u);
  EXPECT_EQ(d.changes.kind(0), ChangeKind::kInsert);
  EXPECT_EQ(Row(rel, d.changes.payload(0)),
            "(1, 'ann', 12345678901234567890.0123456789, 11356, 1706696100500000, [1, NULL, 3], "
            "true)");
  EXPECT_EQ(d.changes.kind(1), ChangeKind::kDelete);
  EXPECT_EQ(Row(rel, d.changes.payload(1)), "(2, 'b\"ob\n', NULL, NULL, NULL, NULL, NULL)");
  EXPECT_EQ(Row(rel, d.changes.payload(2)), "(3, NULL, NULL, NULL, NULL, NULL, NULL)");
  EXPECT_EQ(d.end.record, 4u);
  EXPECT_EQ(d.end.line, 5u);
}

// A column a record leaves out takes its DEFAULT, in order or not, keyed or
// not; a NOT NULL column with a default may be left out, one without not.
TEST(JsonTest, MissingColumnsTakeTheirDefaults) {
  for (bool keyed : {false, true}) {
    Relation rel = People(keyed);
    rel.schema[6] = SqlType::Boolean(false);
    rel.defaults.assign(rel.columns.size(), Value::Null());
    rel.defaults[1] = Value::String("anon");
    rel.defaults[6] = Value::Bool(true);
    FormatOptions o;
    Decoded d = Decode(o, rel,
                       R"({"insert": {"id": 1}}
{"insert": {"id": 2, "name": null, "ok": false}}
{"insert": {"ok": false, "id": 3}}
)");
    ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
    ASSERT_EQ(d.changes.size(), 3u);
    EXPECT_EQ(Row(rel, d.changes.payload(0)), "(1, 'anon', NULL, NULL, NULL, NULL, true)");
    EXPECT_EQ(Row(rel, d.changes.payload(1)), "(2, NULL, NULL, NULL, NULL, NULL, false)");
    EXPECT_EQ(Row(rel, d.changes.payload(2)), "(3, 'anon', NULL, NULL, NULL, NULL, false)");
    rel.defaults[6] = Value::Null();
    Decoded bad = Decode(o, rel, R"({"insert": {"id": 4}})");
    ASSERT_EQ(bad.errors.size(), 1u);
    EXPECT_NE(bad.errors[0].reason.find("column \"ok\": NOT NULL column is missing"),
              std::string::npos)
        << bad.errors[0].reason;
  }
}

// Every shape of value the decoder takes, escapes and errors included,
// fields in and out of column order, read through Decode and DecodePadded
// alike.
TEST(JsonTest, EveryShapeOfValue) {
  Relation rel;
  rel.name = "shapes";
  rel.columns = {"id", "d", "r", "t", "b", "v", "m", "w", "n", "s", "x", "i"};
  rel.schema = {SqlType::Integer(false),
                SqlType::Double(),
                SqlType::Real(),
                SqlType::Time(),
                SqlType::Varbinary(),
                SqlType::Variant(),
                SqlType::Map(SqlType::Varchar(), SqlType::Integer()),
                SqlType::Row({"a", "b"}, {SqlType::Integer(), SqlType::Varchar()}),
                SqlType::Numeric(),
                SqlType::SmallInt(),
                SqlType::Boolean(),
                SqlType::Interval()};
  FormatOptions o;
  const std::string data =
      "{\"insert\": {\"id\": 1, \"d\": -1.5e3, \"r\": 2, \"t\": \"10:11:12.5\", \"b\": [0, 255],"
      " \"v\": {\"k\": [1, 2.5, \"s\", null, true, {\"z\": {}}]}, \"m\": {\"a\": 1, \"b\": null},"
      " \"w\": {\"B\": \"x\\u00e9\\n\", \"a\": 3}, \"n\": 12.3400, \"s\": \"7\", \"x\": \"true\","
      " \"i\": \"1 day 02:00:00\"}}\n"
      "{\"insert\": {\"\\u0069d\": 2, \"D\": \"NaN\", \"v\": \"\\ud83d\\ude00 \\\"q\\\"\", \"n\": "
      "1e2}}\n"
      "\t{\"insert\":{\"id\":3,\"v\":-12345678901234567890,\"d\":1E400}}\r\n"
      "{\"insert\": {\"id\": 4, \"b\": [256]}}\n"
      "{\"insert\": {\"id\": 5, \"s\": 70000}}\n"
      "{\"insert\": {\"id\": 6, \"m\": [1]}}\n"
      "{\"insert\": {\"id\": 7, \"w\": {\"c\": 1}}}\n"
      "{\"insert\": {\"id\": 8, \"t\": \"25:00\"}}\n"
      "{\"insert\": {\"id\": 9, \"x\": 1}}\n"
      "{\"insert\": {\"id\": \"\\u00\"}}\n"
      "{\"insert\": {\"id\": 10, \"v\": [1, }}\n"
      "{\"insert\": {\"id\": 11}}\n"
      "{\"insert\": {\"x\": false, \"s\": -3, \"id\": 12, \"d\": 0.5}}\n"
      "{\"delete\": {\"id\": 13, \"d\": 1, \"t\": \"01:02\", \"s\": 4, \"r\": 1}}\n"
      "{\"insert\": {\"id\": 14, \"d\": 1, \"id\": 15}}\n"
      "{\"insert\": {\"d\": 1}}";
  Decoded d = Decode(o, rel, data);
  // Records 1, 2, 12, 13 and 14 are good; 3 to 11, 15 and 16 each fail,
  // named by record and column (a double out of range, a byte of 256, a
  // SMALLINT of 70000, an array for a MAP, an unknown ROW field, a time of
  // 25:00, a number for a BOOLEAN, a column twice, a NOT NULL column
  // missing), or as malformed JSON (a bad escape, a bad array).
  ASSERT_EQ(d.changes.size(), 5u);
  ASSERT_EQ(d.error_count, 11u);
  ASSERT_EQ(d.errors.size(), 11u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(d.errors[i].record, 3 + i) << d.errors[i].ToString();
  const char* columns[] = {"d", "b", "s", "m", "w", "t", "x"};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_NE(d.errors[i].reason.find("column \"" + std::string(columns[i]) + "\""),
              std::string::npos)
        << d.errors[i].ToString();
  }
  EXPECT_EQ(d.errors[9].record, 15u);
  EXPECT_NE(d.errors[9].reason.find("column \"id\" given twice"), std::string::npos)
      << d.errors[9].ToString();
  EXPECT_EQ(d.errors[10].record, 16u);
  EXPECT_NE(d.errors[10].reason.find("column \"id\": NOT NULL column is missing"),
            std::string::npos)
      << d.errors[10].ToString();
  EXPECT_EQ(Row(rel, d.changes.payload(1)),
            "(2, nan, NULL, NULL, NULL, '\xF0\x9F\x98\x80 \"q\"', NULL, NULL, 100, NULL, NULL, "
            "NULL)");
  EXPECT_EQ(Row(rel, d.changes.payload(2)),
            "(11, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
  EXPECT_EQ(Row(rel, d.changes.payload(3)),
            "(12, 0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -3, false, NULL)");
  EXPECT_EQ(d.changes.kind(4), ChangeKind::kDelete);
  EXPECT_EQ(Row(rel, d.changes.payload(4)),
            "(13, 1, 1, 3720000000, NULL, NULL, NULL, NULL, NULL, 4, NULL, NULL)");
  std::string padded = data;
  padded.resize(data.size() + Decoder::kPadding, ' ');
  Decoded p;
  auto dec = MakeDecoder(o, rel);
  ASSERT_TRUE(dec.ok());
  p.end = (*dec)->DecodePadded(std::string_view(padded).substr(0, data.size()), Position{},
                               &p.changes, &p.errors, &p.error_count);
  ASSERT_EQ(p.changes.size(), d.changes.size());
  for (size_t i = 0; i < p.changes.size(); ++i) {
    EXPECT_EQ(p.changes.payload(i), d.changes.payload(i));
  }
  EXPECT_EQ(p.error_count, d.error_count);
  EXPECT_EQ(p.end.line, d.end.line);
}

// Timestamps as JavaScript and most producers write them: a T, fractions,
// and a zone (converted to UTC); a malformed zone is a bad record.
// A JSON number of more than 38 digits is a NUMERIC in arbitrary precision
// (as PostgreSQL's numeric holds it); a DECIMAL(p,s) too small for it says so.
TEST(JsonTest, NumbersBeyondThirtyEightDigits) {
  Relation rel;
  rel.name = "wide";
  rel.columns = {"id", "n", "d"};
  rel.schema = {SqlType::Integer(false), SqlType::Numeric(), SqlType::Decimal(10, 2)};
  FormatOptions o;
  Decoded d =
      Decode(o, rel,
             "{\"insert\": {\"id\": 1, \"n\": 123456789012345678901234567890123456789012.5}}\n"
             "{\"insert\": {\"id\": 2, \"n\": -1e45}}\n"
             "{\"insert\": {\"id\": 3, \"d\": 123456789012345678901234567890123456789}}\n");
  ASSERT_EQ(d.changes.size(), 2u);
  EXPECT_EQ(Row(rel, d.changes.payload(0)),
            "(1, 123456789012345678901234567890123456789012.5, NULL)");
  EXPECT_EQ(Row(rel, d.changes.payload(1)),
            "(2, -1000000000000000000000000000000000000000000000, NULL)");
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_NE(d.errors[0].ToString().find("column \"d\": numeric field overflow"), std::string::npos)
      << d.errors[0].ToString();
}

// A JSONB column takes the field's JSON, whatever it holds, in canonical
// form; a JSON column keeps it as written; output writes them as JSON.
TEST(JsonTest, DocumentColumnsTakeTheFieldsJson) {
  Relation rel;
  rel.name = "docs";
  rel.columns = {"id", "j", "t"};
  rel.schema = {SqlType::Integer(false), SqlType::Json(true), SqlType::Json(false)};
  FormatOptions o;
  Decoded d = Decode(o, rel,
                     "{\"insert\": {\"id\": 1, \"j\": {\"b\": [1, 2e1], \"a\": {}, \"b\": 1.50}, "
                     "\"t\": {\"b\":  1, \"a\": [ ]} }}\n"
                     "{\"insert\": {\"id\": 2, \"j\": \"text\", \"t\": [1,\"x\"]}}\n"
                     "{\"insert\": {\"id\": 3, \"j\": -0, \"t\": null}}\n");
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 3u);
  EXPECT_EQ(Row(rel, d.changes.payload(0)),
            "(1, '{\"a\": {}, \"b\": 1.50}', '{\"b\":  1, \"a\": [ ]}')");
  EXPECT_EQ(Row(rel, d.changes.payload(1)), "(2, '\"text\"', '[1,\"x\"]')");
  EXPECT_EQ(Row(rel, d.changes.payload(2)), "(3, '0', NULL)");
  std::string out;
  AppendJsonValue(Value::String("{\"a\": 1}"), SqlType::Json(true), &out);
  EXPECT_EQ(out, "{\"a\": 1}");
}

TEST(JsonTest, TimestampsWithZonesAreUtc) {
  Relation rel = People(false);
  FormatOptions o;
  const int64_t ten = 1767261600000000;  // 2026-01-01 10:00:00 UTC
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"2026-01-01T10:00:00Z", ten},
      {"2026-01-01T10:00:00.000Z", ten},
      {"2026-01-01T10:00:00.25z", ten + 250000},
      {"2026-01-01T12:00:00+02:00", ten},
      {"2026-01-01T12:30:00+0230", ten},
      {"2026-01-01 05:00:00-05", ten},
      {"2026-01-01 05:00:00 -05:00", ten},
      {"2026-01-01T10:00:00", ten},
      {"2026-01-01 10:00", ten}};
  for (const auto& [text, micros] : cases) {
    Decoded d = Decode(o, rel, R"({"insert": {"id": 1, "seen": ")" + text + "\"}}");
    ASSERT_TRUE(d.errors.empty()) << text << ": " << d.errors[0].ToString();
    EXPECT_EQ(Row(rel, d.changes.payload(0)),
              "(1, NULL, NULL, NULL, " + std::to_string(micros) + ", NULL, NULL)")
        << text;
  }
  for (const std::string bad : {"2026-01-01T10:00:00+25:00", "2026-01-01T10:00:00+2",
                                "2026-01-01T10:00:00Q", "2026-01-01T10:00:00+02:00:00"}) {
    Decoded d = Decode(o, rel, R"({"insert": {"id": 1, "seen": ")" + bad + "\"}}");
    EXPECT_EQ(d.errors.size(), 1u) << bad;
  }
  // A number is milliseconds since 1970 (UTC), as JavaScript's Date.now().
  const std::vector<std::pair<std::string, int64_t>> numbers = {
      {"1767261600000", ten}, {"1767261600000.25", ten + 250}, {"-1000", -1000000}, {"0", 0}};
  for (const auto& [text, micros] : numbers) {
    Decoded d = Decode(o, rel, R"({"insert": {"id": 1, "seen": )" + text + "}}");
    ASSERT_TRUE(d.errors.empty()) << text << ": " << d.errors[0].ToString();
    EXPECT_EQ(Row(rel, d.changes.payload(0)),
              "(1, NULL, NULL, NULL, " + std::to_string(micros) + ", NULL, NULL)")
        << text;
  }
  for (const std::string bad : {"true", "999999999999999999999", "253402300800000"}) {
    Decoded d = Decode(o, rel, R"({"insert": {"id": 1, "seen": )" + bad + "}}");
    ASSERT_EQ(d.errors.size(), 1u) << bad;
    EXPECT_NE(d.errors[0].reason.find("milliseconds"), std::string::npos) << d.errors[0].reason;
  }
}

TEST(JsonTest, BadRecordsNameRecordLineColumnAndReason) {
  Relation rel = People(false);
  FormatOptions o;
  Decoded d = Decode(o, rel,
                     "{\"insert\": {\"id\": 1}}\n"
                     "{\"insert\": {\"id\": \"x\"}}\n"
                     "{\"insert\": {\"id\": 2, \"nope\": 1}}\n"
                     "{\"insert\": {\"id\": 3,, }}\n"
                     "{\"insert\": {\"name\": \"no id\"}}\n"
                     "{\"upsert\": {\"id\": 4}}\n"
                     "{\"insert\": {\"id\": 5, \"born\": \"2001-13-01\"}}\n"
                     "{\"insert\": {\"id\": 6}} x\n"
                     "[1]\n"
                     "{\"insert\": {\"id\": 7, \"tags\": [1, \"a\"]}}\n"
                     "{\"insert\": {\"id\": 8}}\n");
  EXPECT_EQ(d.changes.size(), 2u);
  ASSERT_EQ(d.error_count, 9u);
  ASSERT_EQ(d.errors.size(), 9u);
  auto err = [&](size_t i) { return d.errors[i].ToString(); };
  EXPECT_EQ(d.errors[0].record, 2u);
  EXPECT_EQ(d.errors[0].line, 2u);
  EXPECT_EQ(d.errors[0].column, 19u);
  EXPECT_NE(err(0).find("column \"id\": invalid input syntax for type bigint"), std::string::npos)
      << err(0);
  EXPECT_NE(err(1).find("unknown column \"nope\" of table people"), std::string::npos) << err(1);
  EXPECT_EQ(d.errors[2].line, 4u);
  EXPECT_NE(err(3).find("column \"id\": NOT NULL column is missing"), std::string::npos) << err(3);
  EXPECT_NE(err(4).find("unknown operation \"upsert\""), std::string::npos) << err(4);
  EXPECT_NE(err(5).find("column \"born\""), std::string::npos) << err(5);
  EXPECT_NE(err(6).find("trailing characters"), std::string::npos) << err(6);
  EXPECT_EQ(d.errors[6].column, 23u);
  EXPECT_NE(err(7).find("must be a JSON object"), std::string::npos) << err(7);
  EXPECT_NE(err(8).find("column \"tags\""), std::string::npos) << err(8);
  EXPECT_EQ(Row(rel, d.changes.payload(1)), "(8, NULL, NULL, NULL, NULL, NULL, NULL)");
}

TEST(JsonTest, ArraysOfRecordsAndRawRows) {
  Relation rel = People(false);
  FormatOptions o;
  o.array = true;
  Decoded d = Decode(o, rel, "[{\"insert\": {\"id\": 1}},\n {\"delete\": {\"id\": 2}}]");
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 2u);
  EXPECT_EQ(d.changes.kind(1), ChangeKind::kDelete);
  Decoded bad = Decode(o, rel, "[{\"insert\": {\"id\": 1}},\n {\"insert\": {\"id\": true}}]");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].record, 2u);
  EXPECT_EQ(bad.errors[0].line, 2u);
  o.array = false;
  o.update_format = "raw";
  Decoded raw = Decode(o, rel, "{\"id\": 5, \"name\": \"e\"}\n");
  ASSERT_EQ(raw.changes.size(), 1u);
  EXPECT_EQ(Row(rel, raw.changes.payload(0)), "(5, 'e', NULL, NULL, NULL, NULL, NULL)");
}

TEST(JsonTest, KeyedTablesTakeKeysAndUpdates) {
  Relation rel = People(true);
  FormatOptions o;
  Decoded d = Decode(o, rel,
                     "{\"insert\": {\"id\": 1, \"name\": \"ann\"}}\n"
                     "{\"delete\": {\"id\": 1}}\n"
                     "{\"update\": {\"id\": 1, \"ok\": false}}\n"
                     "{\"update\": {\"name\": \"no key\"}}\n");
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_NE(d.errors[0].reason.find("primary key column \"id\" is missing"), std::string::npos);
  ASSERT_EQ(d.changes.size(), 3u);
  const Schema key = {SqlType::BigInt(false)};
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(RowToString(key, d.changes.key(i)), "(1)");
  EXPECT_EQ(d.changes.payload(1), "");
  EXPECT_EQ(d.changes.kind(2), ChangeKind::kUpdate);
  std::string fields;
  ASSERT_TRUE(EncodeRow({SqlType::BigInt(false), SqlType::Boolean()},
                        {Value::Int(1), Value::Bool(false)}, &fields)
                  .ok());
  EXPECT_EQ(d.changes.payload(2),
            EncodeUpdatePatch({true, false, false, false, false, false, true}, fields));
  Relation plain = People(false);
  Decoded u = Decode(o, plain, "{\"update\": {\"id\": 1}}\n");
  ASSERT_EQ(u.errors.size(), 1u);
  EXPECT_NE(u.errors[0].reason.find("needs a primary key"), std::string::npos);
}

TEST(JsonTest, EncodesRecordsThatDecodeBack) {
  Relation rel = People(false);
  FormatOptions o;
  auto enc = MakeEncoder(o, rel);
  ASSERT_TRUE(enc.ok());
  std::string row, out;
  ASSERT_TRUE(
      EncodeRow(rel.schema,
                {Value::Int(7), Value::String("a \"q\"\n"), Value::Decimal(12345, 2),
                 Value::Int(10), Value::Int(1500000), Value::List({Value::Int(1)}), Value::Null()},
                &row)
          .ok());
  ASSERT_TRUE((*enc)->Encode(row, 2, &out).ok());
  ASSERT_TRUE((*enc)->Encode(row, -1, &out).ok());
  const std::string one =
      R"({"id":7,"name":"a \"q\"\n","score":123.4500000000,"born":"1970-01-11","seen":"1970-01-01 00:00:01.5","tags":[1],"ok":null})";
  EXPECT_EQ(out, "{\"insert\":" + one + "}\n{\"insert\":" + one + "}\n{\"delete\":" + one + "}\n");
  Decoded d = Decode(o, rel, out);
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(d.changes.payload(i), row);
  EXPECT_EQ(d.changes.kind(2), ChangeKind::kDelete);
}

// A TIME WITH TIME ZONE is its text in JSON and CSV alike: read with its
// zone (or in UTC without one), written as PostgreSQL prints it, and read
// back as it was.
TEST(FormatTest, TimesWithZonesAreTheirText) {
  Relation rel;
  rel.name = "t";
  rel.columns = {"id", "tz"};
  rel.schema = {SqlType::Integer(), SqlType::TimeTz()};
  const auto tz = [](int64_t micros, int32_t zone_west) {
    return std::to_string(TimeTz{micros, zone_west}.Encode());
  };
  FormatOptions json;
  Decoded d = Decode(json, rel,
                     R"({"insert": {"id": 1, "tz": "11:00-08"}}
{"insert": {"id": 2, "tz": "11:00:00.5+05:30"}}
{"insert": {"id": 3, "tz": "1:00 PST"}}
{"insert": {"id": 4, "tz": "11:00"}}
{"insert": {"id": 5, "tz": "11:00 XYZ"}}
{"insert": {"id": 6, "tz": 11}}
)");
  ASSERT_EQ(d.errors.size(), 2u);
  EXPECT_NE(d.errors[0].reason.find("time with time zone"), std::string::npos)
      << d.errors[0].reason;
  ASSERT_EQ(d.changes.size(), 4u);
  const int64_t h = 3600000000;
  EXPECT_EQ(Row(rel, d.changes.payload(0)), "(1, " + tz(11 * h, 8 * 3600) + ")");
  EXPECT_EQ(Row(rel, d.changes.payload(1)), "(2, " + tz(11 * h + 500000, -19800) + ")");
  EXPECT_EQ(Row(rel, d.changes.payload(2)), "(3, " + tz(1 * h, 8 * 3600) + ")");
  EXPECT_EQ(Row(rel, d.changes.payload(3)), "(4, " + tz(11 * h, 0) + ")");
  std::string rows;
  for (size_t i = 0; i < 4; ++i) {
    auto enc = MakeEncoder(json, rel);
    ASSERT_TRUE(enc.ok());
    std::string out;
    ASSERT_TRUE((*enc)->Encode(std::string(d.changes.payload(i)), 1, &out).ok());
    rows += out;
  }
  EXPECT_EQ(rows,
            "{\"insert\":{\"id\":1,\"tz\":\"11:00:00-08\"}}\n"
            "{\"insert\":{\"id\":2,\"tz\":\"11:00:00.5+05:30\"}}\n"
            "{\"insert\":{\"id\":3,\"tz\":\"01:00:00-08\"}}\n"
            "{\"insert\":{\"id\":4,\"tz\":\"11:00:00+00\"}}\n");
  Decoded back = Decode(json, rel, rows);
  ASSERT_TRUE(back.errors.empty()) << back.errors[0].ToString();
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(back.changes.payload(i), d.changes.payload(i));

  FormatOptions csv;
  csv.name = "csv";
  Decoded c = Decode(csv, rel, "1,11:00-08\n2,10:00:00+05:30:15\n");
  ASSERT_TRUE(c.errors.empty()) << c.errors[0].ToString();
  ASSERT_EQ(c.changes.size(), 2u);
  EXPECT_EQ(Row(rel, c.changes.payload(1)), "(2, " + tz(10 * h, -(5 * 3600 + 30 * 60 + 15)) + ")");
  auto enc = MakeEncoder(csv, rel);
  ASSERT_TRUE(enc.ok());
  std::string out;
  ASSERT_TRUE((*enc)->Encode(std::string(c.changes.payload(0)), 1, &out).ok());
  ASSERT_TRUE((*enc)->Encode(std::string(c.changes.payload(1)), 1, &out).ok());
  EXPECT_EQ(out, "1,11:00:00-08,1\n2,10:00:00+05:30:15,1\n");
}

// An INT[] or DATE[] value of two dimensions is a JSON array of arrays, each
// element in its type's JSON, and reads back as it was.
TEST(JsonTest, MultidimensionalArraysAreNestedJsonArrays) {
  Relation rel;
  rel.name = "m";
  rel.columns = {"d", "i"};
  rel.schema = {SqlType::Array(SqlType::Date()), SqlType::Array(SqlType::Integer())};
  FormatOptions o;
  auto enc = MakeEncoder(o, rel);
  ASSERT_TRUE(enc.ok());
  std::string row, out;
  ASSERT_TRUE(EncodeRow(rel.schema,
                        {Value::List({Value::List({Value::Int(10)}), Value::List({Value::Null()})}),
                         Value::List({Value::List({Value::Int(1), Value::Int(2)})})},
                        &row)
                  .ok());
  ASSERT_TRUE((*enc)->Encode(row, 1, &out).ok());
  EXPECT_EQ(out, R"({"insert":{"d":[["1970-01-11"],[null]],"i":[[1,2]]}})"
                 "\n");
  Decoded d = Decode(o, rel, out);
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(d.changes.payload(0), row);
}

TEST(FormatTest, AJsonPathIsReadAndKeptAsPostgresPrintsIt) {
  Relation rel;
  rel.name = "rules";
  rel.columns = {"id", "path"};
  rel.schema = {SqlType::Integer(false), SqlType::JsonPath()};
  FormatOptions o;
  Decoded d = Decode(o, rel,
                     "{\"insert\": {\"id\": 1, \"path\": \"$.a ? (@>1)\"}}\n"
                     "{\"insert\": {\"id\": 2, \"path\": \"$.a +\"}}\n");
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].record, 2u);
  EXPECT_NE(d.errors[0].reason.find("jsonpath"), std::string::npos) << d.errors[0].reason;
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(Row(rel, d.changes.payload(0)), "(1, '$.\"a\"?(@ > 1)')");
  o.name = "csv";
  d = Decode(o, rel, "3,strict $.b[last]\n4,$$\n");
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].record, 2u);
  ASSERT_EQ(d.changes.size(), 1u);
  EXPECT_EQ(Row(rel, d.changes.payload(0)), "(3, 'strict $.\"b\"[last]')");
}

TEST(CsvTest, QuotesNullsWeightsAndErrors) {
  Relation rel;
  rel.name = "t";
  rel.columns = {"a", "s", "d"};
  rel.schema = {SqlType::Integer(), SqlType::Varchar(), SqlType::Date()};
  FormatOptions o;
  o.name = "csv";
  Decoded d = Decode(o, rel,
                     "1,plain,2024-01-02\n"
                     "2,\"with, comma and \"\"quotes\"\"\nand a newline\",\n"
                     ",\"\",2024-01-03,-1\n"
                     "x,bad,\n"
                     "4,four\n"
                     "5,\"five\"x,\n"
                     "6,six,2024-02-30\r\n"
                     "7,seven,,3\n");
  ASSERT_EQ(d.errors.size(), 4u);
  EXPECT_EQ(d.errors[0].record, 4u);
  EXPECT_EQ(d.errors[0].line, 5u);
  EXPECT_EQ(d.errors[0].column, 1u);
  EXPECT_NE(d.errors[0].reason.find("column \"a\""), std::string::npos) << d.errors[0].reason;
  EXPECT_NE(d.errors[1].reason.find("expected 3 fields"), std::string::npos);
  EXPECT_NE(d.errors[2].reason.find("after a closing quote"), std::string::npos);
  EXPECT_EQ(d.errors[3].line, 8u);
  EXPECT_EQ(d.errors[3].column, 7u);
  ASSERT_EQ(d.changes.size(), 6u);
  EXPECT_EQ(Row(rel, d.changes.payload(0)), "(1, 'plain', 19724)");
  EXPECT_EQ(Row(rel, d.changes.payload(1)),
            "(2, 'with, comma and \"quotes\"\nand a newline', NULL)");
  EXPECT_EQ(d.changes.kind(2), ChangeKind::kDelete);
  EXPECT_EQ(Row(rel, d.changes.payload(2)), "(NULL, '', 19725)");
  for (size_t i = 3; i < 6; ++i) EXPECT_EQ(Row(rel, d.changes.payload(i)), "(7, 'seven', NULL)");
  EXPECT_EQ(d.end.line, 10u);
  // A chunk ends after the last newline outside quotes.
  auto dec = MakeDecoder(o, rel);
  EXPECT_EQ((*dec)->CompleteRecords("1,a,\n2,\"b\nc"), 5u);
}

TEST(CsvTest, EncodesWithWeights) {
  Relation rel;
  rel.name = "t";
  rel.columns = {"a", "s", "xs"};
  rel.schema = {SqlType::Integer(), SqlType::Varchar(), SqlType::Array(SqlType::Integer())};
  FormatOptions o;
  o.name = "csv";
  auto enc = MakeEncoder(o, rel);
  std::string row, out;
  ASSERT_TRUE(EncodeRow(rel.schema,
                        {Value::Null(), Value::String("a,\"b\""),
                         Value::List({Value::Int(1), Value::Int(2)})},
                        &row)
                  .ok());
  ASSERT_TRUE((*enc)->Encode(row, -2, &out).ok());
  EXPECT_EQ(out, ",\"a,\"\"b\"\"\",\"{1,2}\",-2\n");
  Decoded d = Decode(o, rel, out);
  ASSERT_TRUE(d.errors.empty()) << d.errors[0].ToString();
  ASSERT_EQ(d.changes.size(), 2u);
  EXPECT_EQ(d.changes.payload(0), row);
}

TEST(FormatTest, OptionsNameUnknownSettings) {
  EXPECT_TRUE(ParseFormatOptions("json", R"({"update_format": "raw", "array": true})").ok());
  auto bad = ParseFormatOptions("json", R"({"colour": 1})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown setting \"colour\""), std::string::npos);
  EXPECT_FALSE(ParseFormatOptions("xml", "").ok());
}

}  // namespace
}  // namespace sluice::format
