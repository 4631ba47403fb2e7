#include <gtest/gtest.h>

#include "pgwire/codec.h"
#include "pgwire/protocol.h"
#include "pgwire/scram.h"
#include "pgwire/statement.h"
#include "types/time_tz.h"

namespace sluice::pgwire {
namespace {

// RFC 7677's example exchange: user "user", password "pencil".
TEST(ScramTest, TheRfcExample) {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  ASSERT_TRUE(salt.ok());
  const ScramSecrets secrets = ScramSecrets::Make({"wrong", "pencil"}, 4096, *salt);
  ScramExchange scram(secrets, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  auto first = scram.First("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(
      *first,
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  size_t which = 99;
  auto final = scram.Final(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
      "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
      &which);
  ASSERT_TRUE(final.ok()) << final.status().ToString();
  EXPECT_EQ(*final, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_EQ(which, 1u);
}

TEST(ScramTest, AWrongProofOrNonceIsRefused) {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  const ScramSecrets secrets = ScramSecrets::Make({"not pencil"}, 4096, *salt);
  ScramExchange scram(secrets, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  ASSERT_TRUE(scram.First("n,,n=user,r=rOprNGfwEbeRWgbNEkqO").ok());
  size_t which = 0;
  EXPECT_FALSE(scram
                   .Final("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                          "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                          &which)
                   .ok());
  EXPECT_FALSE(
      scram.Final("c=biws,r=other,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", &which).ok());
  ScramExchange plus(secrets);
  EXPECT_FALSE(plus.First("p=tls-server-end-point,,n=user,r=abc").ok());
  EXPECT_FALSE(plus.First("garbage").ok());
}

TEST(Base64Test, RoundTrips) {
  for (const std::string& s :
       std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
    auto back = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(Base64Decode("abc").ok());
}

std::string Hex(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(CodecTest, BinaryValuesArePostgresqls) {
  std::string out;
  ASSERT_TRUE(EncodeBinary(Value::Int(-2), SqlType::Integer(), &out).ok());
  EXPECT_EQ(Hex(out), "fffffffe");
  out.clear();
  // 2000-01-02 is day 1 of PostgreSQL's epoch.
  ASSERT_TRUE(EncodeBinary(Value::Int(10958), SqlType::Date(), &out).ok());
  EXPECT_EQ(Hex(out), "00000001");
  out.clear();
  // NUMERIC -12.5: 2 digits (0012, 5000), weight 0, negative, scale 1.
  ASSERT_TRUE(EncodeBinary(Value::Decimal(-125, 1), SqlType::Decimal(10, 1), &out).ok());
  EXPECT_EQ(Hex(out), "0002000040000001000c1388");
  out.clear();
  ASSERT_TRUE(EncodeBinary(Value::List({Value::Int(1), Value::Null()}),
                           SqlType::Array(SqlType::Integer()), &out)
                  .ok());
  EXPECT_EQ(Hex(out),
            "00000001"
            "00000001"
            "00000017"
            "00000002"
            "00000001"
            "0000000400000001"
            "ffffffff");
  out.clear();
  // '[0:1][1:1]={{1},{2}}'::int[]: two dimensions in the one type, each
  // with its length and lower bound.
  ASSERT_TRUE(
      EncodeBinary(
          Value::BoundedList({Value::List({Value::Int(1)}), Value::List({Value::Int(2)})}, {0, 1}),
          SqlType::Array(SqlType::Integer()), &out)
          .ok());
  EXPECT_EQ(Hex(out),
            "00000002"
            "00000000"
            "00000017"
            "00000002"
            "00000000"
            "00000001"
            "00000001"
            "0000000400000001"
            "0000000400000002");
  out.clear();
  EXPECT_FALSE(
      EncodeBinary(Value::List({Value::Int(1)}), SqlType::Row({"a"}, {SqlType::Integer()}), &out)
          .ok());
}

// int2vector, oidvector, point and money as PostgreSQL 15 sends them (the
// bytes libpq read from it for '11 22 33'::int2vector and the others).
TEST(CodecTest, PostgresKindsInBinary) {
  auto binary = [](const Value& v, const SqlType& t) {
    std::string out;
    EXPECT_TRUE(EncodeBinary(v, t, &out).ok()) << t.ToString();
    return Hex(out);
  };
  auto ints = [](std::vector<int64_t> xs) {
    std::vector<Value> items;
    for (int64_t x : xs) items.push_back(Value::Int(x));
    return Value::BoundedList(std::move(items), {0});
  };
  EXPECT_EQ(binary(ints({11, 22, 33}), SqlType::Int2Vector()),
            "000000010000000000000015000000030000000000000002000b000000020016000000020021");
  EXPECT_EQ(binary(ints({1, 4294967295}), SqlType::OidVector()),
            "00000001000000000000001a0000000200000000000000040000000100000004ffffffff");
  EXPECT_EQ(binary(Value::List({}), SqlType::Int2Vector()),
            "0000000100000000000000150000000000000000");
  EXPECT_EQ(
      binary(Value::BoundedList({Value::Double(1.5), Value::Double(-2)}, {0}), SqlType::Point()),
      "3ff8000000000000c000000000000000");
  EXPECT_EQ(binary(Value::Int(1234), SqlType::Money()), "00000000000004d2");
  EXPECT_EQ(
      binary(Value::List({ints({1, 2})}), SqlType::Array(SqlType::Int2Vector())),
      "0000000100000000000000160000000100000001000000200000000100000000000000150000000200000000"
      "000000020001000000020002");
}

TEST(CodecTest, BinaryParametersBecomeText) {
  EXPECT_EQ(*BinaryParamToText(23, std::string("\xff\xff\xff\xfe", 4)), "-2");
  EXPECT_EQ(*BinaryParamToText(16, std::string("\x01", 1)), "true");
  EXPECT_EQ(*BinaryParamToText(1082, std::string("\x00\x00\x00\x01", 4)), "2000-01-02");
  EXPECT_EQ(
      *BinaryParamToText(1700, std::string("\x00\x02\x00\x00\x40\x00\x00\x01\x00\x0c\x13\x88", 12)),
      "-12.5");
  EXPECT_EQ(*BinaryParamToText(1700, std::string("\x00\x01\xff\xff\x00\x00\x00\x04\x00\x05", 10)),
            "0.0005");
  EXPECT_FALSE(BinaryParamToText(23, "abc").ok());
  EXPECT_FALSE(BinaryParamToText(600, "abcd").ok());  // point
}

// timetz: microseconds since midnight, then the zone's seconds west of UTC.
TEST(CodecTest, TimeWithTimeZoneIsTimeThenZoneWest) {
  std::string out;
  const int64_t eleven = 11LL * 3600 * 1000000;
  ASSERT_TRUE(
      EncodeBinary(Value::Int(TimeTz{eleven, -19800}.Encode()), SqlType::TimeTz(), &out).ok());
  EXPECT_EQ(out, std::string("\x00\x00\x00\x09\x38\x58\x0c\x00\xff\xff\xb2\xa8", 12));
  EXPECT_EQ(*BinaryParamToText(1266, out), "11:00:00+05:30");
  EXPECT_FALSE(BinaryParamToText(1266, out.substr(0, 8)).ok());
  EXPECT_EQ(PgTypeOf(SqlType::TimeTz()).oid, 1266u);
  EXPECT_EQ(PgTypeOf(SqlType::TimeTz()).name, "time with time zone");
}

TEST(CodecTest, CopyTextLines) {
  std::vector<CopyField> f;
  ASSERT_TRUE(ParseCopyTextLine("1\ta\\tb\t\\N\t\\\\N\t\\101\\x41", '\t', "\\N", &f).ok());
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[1].text, "a\tb");
  EXPECT_TRUE(f[2].null);
  EXPECT_FALSE(f[3].null);
  EXPECT_EQ(f[3].text, "\\N");
  EXPECT_EQ(f[4].text, "AA");
  EXPECT_FALSE(ParseCopyTextLine("a\\", '\t', "\\N", &f).ok());
  std::string out;
  AppendCopyText("a\tb\\c\n", '\t', &out);
  EXPECT_EQ(out, "a\\tb\\\\c\\n");
  out.clear();
  AppendCsvField({"say \"hi\", ok", false}, ',', &out);
  AppendCsvField({"", false}, ',', &out);
  AppendCsvField({"", true}, ',', &out);
  EXPECT_EQ(out, "\"say \"\"hi\"\", ok\"\"\"");
}

TEST(StatementTest, SplitsAndClassifies) {
  std::vector<Statement> st;
  ASSERT_TRUE(
      SplitStatements("SELECT 1; INSERT INTO t VALUES (1);\n BEGIN; COMMIT; SET x = 3; SHOW x", &st)
          .ok());
  ASSERT_EQ(st.size(), 6u);
  EXPECT_EQ(st[0].kind, StatementKind::kSelect);
  EXPECT_EQ(st[1].kind, StatementKind::kModify);
  EXPECT_EQ(st[1].text, "INSERT INTO t VALUES (1)");
  EXPECT_EQ(st[1].offset, 10u);
  EXPECT_EQ(st[2].kind, StatementKind::kBegin);
  EXPECT_EQ(st[3].kind, StatementKind::kCommit);
  EXPECT_EQ(st[4].kind, StatementKind::kSet);
  EXPECT_EQ(st[4].value, "3");
  EXPECT_EQ(st[5].kind, StatementKind::kShow);
  ASSERT_TRUE(SplitStatements("  ", &st).ok());
  EXPECT_TRUE(st.empty());
  ASSERT_TRUE(SplitStatements("TRUNCATE t", &st).ok());
  EXPECT_EQ(st[0].kind, StatementKind::kUnsupported);
  EXPECT_NE(st[0].unsupported.find("TRUNCATE is not supported"), std::string::npos);
  EXPECT_FALSE(SplitStatements("SELEC 1", &st).ok());
}

TEST(StatementTest, Subscribe) {
  std::vector<Statement> st;
  ASSERT_TRUE(SplitStatements("SUBSCRIBE TO \"My View\"", &st).ok());
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].kind, StatementKind::kSubscribe);
  EXPECT_EQ(st[0].name, "My View");
  EXPECT_TRUE(st[0].snapshot);
  EXPECT_FALSE(st[0].copy.to_stdout);
  ASSERT_TRUE(SplitStatements(
                  "copy (subscribe v with (snapshot = false)) to stdout with (format csv);", &st)
                  .ok());
  EXPECT_EQ(st[0].kind, StatementKind::kSubscribe);
  EXPECT_EQ(st[0].name, "v");
  EXPECT_FALSE(st[0].snapshot);
  EXPECT_TRUE(st[0].copy.to_stdout);
  EXPECT_TRUE(st[0].copy.csv);
  // A COPY without its closing part is not a SUBSCRIBE (and not SQL).
  EXPECT_FALSE(SplitStatements("COPY (SUBSCRIBE v", &st).ok());
}

TEST(StatementTest, Copy) {
  std::vector<Statement> st;
  ASSERT_TRUE(SplitStatements("COPY t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true)", &st).ok());
  EXPECT_EQ(st[0].kind, StatementKind::kCopyFrom);
  EXPECT_EQ(st[0].copy.table, "t");
  EXPECT_EQ(st[0].copy.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(st[0].copy.csv);
  EXPECT_TRUE(st[0].copy.header);
  EXPECT_EQ(st[0].copy.delimiter, ',');
  ASSERT_TRUE(SplitStatements("COPY (SELECT a FROM t WHERE b = ')') TO STDOUT", &st).ok());
  EXPECT_EQ(st[0].kind, StatementKind::kCopyTo);
  EXPECT_EQ(st[0].copy.query, "SELECT a FROM t WHERE b = ')'");
  ASSERT_TRUE(SplitStatements("COPY t FROM '/etc/passwd'", &st).ok());
  EXPECT_EQ(st[0].kind, StatementKind::kUnsupported);
  EXPECT_FALSE(SplitStatements("COPY t FROM STDIN (FORMAT binary)", &st).ok());
}

TEST(StatementTest, ParametersBecomeLiterals) {
  std::vector<Statement> st;
  ASSERT_TRUE(SplitStatements("SELECT $1, '$2', $2::int, $10", &st).ok());
  EXPECT_EQ(st[0].params, 10);
  std::vector<std::optional<std::string>> params(10);
  params[0] = "it's";
  params[1] = "7";
  params[9] = "x";
  std::vector<uint32_t> oids(10, 0);
  oids[1] = 23;
  auto text = SubstituteParams(st[0], params, oids);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "SELECT 'it''s', '$2', CAST('7' AS integer)::int, 'x'");
  params[9].reset();
  EXPECT_EQ(*SubstituteParams(st[0], params, oids),
            "SELECT 'it''s', '$2', CAST('7' AS integer)::int, NULL");
}

TEST(StatementTest, KeysOfWhere) {
  format::Relation rel;
  rel.name = "t";
  rel.columns = {"k1", "k2", "v"};
  rel.schema = {SqlType::BigInt(false), SqlType::Varchar(), SqlType::Integer()};
  rel.key = {0, 1};
  auto keys = KeysOfWhere("DELETE FROM t WHERE k1 IN (1, -2) AND 'x' = k2", rel);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[1][0].ToString(), Value::Int(-2).ToString());
  EXPECT_EQ((*keys)[1][1].ToString(), Value::String("x").ToString());
  EXPECT_TRUE((*keys)[1][2].is_null());
  EXPECT_EQ(KeysOfWhere("DELETE FROM t WHERE k1 = 1", rel).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(KeysOfWhere("DELETE FROM t WHERE k1 = 1 AND k2 = 'a' AND v = 3", rel).status().code(),
            StatusCode::kUnimplemented);
  EXPECT_FALSE(KeysOfWhere("DELETE FROM t WHERE k1 = 'one' AND k2 = 'a'", rel).ok());
}

TEST(StatementTest, CopyReaderReadsPiecesAndReportsLines) {
  format::Relation rel;
  rel.name = "t";
  rel.columns = {"a", "b"};
  rel.schema = {SqlType::Integer(), SqlType::Varchar()};
  CopySpec csv;
  csv.csv = true;
  csv.delimiter = ',';
  csv.null_marker = "";
  csv.header = true;
  CopyReader r(csv, rel);
  ASSERT_TRUE(r.Init().ok());
  // A record split across pieces, and a quoted newline.
  ASSERT_TRUE(r.Feed("a,b\n1,\"x").ok());
  ASSERT_TRUE(r.Feed("\ny\"\n2,\n3,\"\"").ok());
  auto changes = r.Finish();
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_EQ(changes->size(), 3u);

  CopyReader extra(csv, rel);
  ASSERT_TRUE(extra.Init().ok());
  ASSERT_TRUE(extra.Feed("a,b\n1,x,1\n").ok());
  auto e1 = extra.Finish();
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.status().message().find("line 2: extra data after last expected column"),
            std::string::npos)
      << e1.status().ToString();

  CopySpec text;
  text.columns = {"b", "a"};
  CopyReader bad(text, rel);
  ASSERT_TRUE(bad.Init().ok());
  ASSERT_TRUE(bad.Feed("x\t1\ny\tnot a number\nz\t3\n").ok());
  auto e = bad.Finish();
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("COPY t, line 2"), std::string::npos)
      << e.status().ToString();

  CopyReader end(text, rel);
  ASSERT_TRUE(end.Init().ok());
  ASSERT_TRUE(end.Feed("x\t1\n\\.\nignored\n").ok());
  auto one = end.Finish();
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
}

TEST(ProtocolTest, ErrorsHaveSqlstatesAndPositions) {
  EXPECT_EQ(SqlStateOf(Status::Unimplemented("x")), "0A000");
  EXPECT_EQ(SqlStateOf(Status::InvalidArgument("line 1, column 3: relation \"t\" does not exist")),
            "42P01");
  EXPECT_EQ(SqlStateOf(Status::InvalidArgument("column \"c\" does not exist")), "42703");
  EXPECT_EQ(SqlStateOf(Status::InvalidArgument("line 1, column 1: syntax error at or near \"x\"")),
            "42601");
  EXPECT_EQ(SqlStateOf(Status::InvalidArgument("division by zero")), "22012");
  const std::string query = "SELECT 1;\nSELECT nope FROM t";
  const std::string statement = "SELECT nope FROM t";
  PgError e = ErrorFromStatus(
      Status::InvalidArgument(
          "line 1, column 8: column \"nope\" does not exist\n  SELECT nope FROM t\n         ^"),
      query, statement, 10);
  EXPECT_EQ(e.message, "column \"nope\" does not exist");
  EXPECT_EQ(e.position, 18);
  EXPECT_EQ(e.code, "42703");
  Writer w;
  WriteError(w, e);
  EXPECT_EQ(w.buffer()[0], 'E');
  EXPECT_NE(w.buffer().find(std::string("P18\0", 4)), std::string::npos);
  // A check constraint's failing row is the DETAIL, as PostgreSQL sends it.
  e = ErrorFromStatus(Status::InvalidArgument(
      "new row for relation \"t\" violates check constraint \"t_a_check\" (failing row "
      "contains (-1, (x,y)))"));
  EXPECT_EQ(e.code, "23514");
  EXPECT_EQ(e.message, "new row for relation \"t\" violates check constraint \"t_a_check\"");
  EXPECT_EQ(e.detail, "Failing row contains (-1, (x,y)).");
}

}  // namespace
}  // namespace sluice::pgwire
