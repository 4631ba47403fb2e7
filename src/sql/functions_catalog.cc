// The functions of pg_catalog that clients' catalog queries call (psql's
// \d commands, drivers' type lookups): format_type, pg_table_is_visible,
// pg_get_userbyid, pg_get_expr, the description functions, and the session's
// facts (current_schema(), current_database(), version()). Over the objects of
// pipeline/pg_catalog.h: one database, one role, the schemas public and
// pg_catalog (both on the search path), no comments, rules, statistics
// objects or publications. pg_get_viewdef and its kin need the catalog's
// text, so the binder binds them (binder_expr.cc).
#include "sql/catalog.h"
#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

// pg_table_is_visible(oid), pg_type_is_visible(oid): every relation and
// type lives in a schema of the search path.
Status Visible(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Bool(true);
  return Status::OK();
}

// format_type(type_oid, typmod): NULL for a NULL type; a NULL typmod is -1.
Status FormatType(const SqlType&, const Value* a, size_t, Value* out) {
  if (a[0].is_null()) {
    *out = Value::Null();
    return Status::OK();
  }
  const int64_t typmod = a[1].is_null() ? -1 : a[1].int_value();
  *out = Value::String(PgFormatType(static_cast<uint32_t>(a[0].int_value()),
                                    static_cast<int32_t>(typmod), !a[1].is_null()));
  return Status::OK();
}

// pg_get_userbyid(role_oid), in PostgreSQL's words for an unknown role.
Status UserById(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(a[0].int_value() == kPgUserOid
                           ? std::string(kPgUserName)
                           : "unknown (OID=" + std::to_string(a[0].int_value()) + ")");
  return Status::OK();
}

// pg_get_expr(expression, relation [, pretty]): the catalog keeps
// expressions (pg_attrdef.adbin, ...) as their text already.
Status GetExpr(const SqlType&, const Value* a, size_t, Value* out) {
  *out = a[0];
  return Status::OK();
}

// What has no answer here, as PostgreSQL answers for an object without one:
// obj_description, col_description and shobj_description (no comments),
// pg_get_ruledef (no rules), pg_get_statisticsobjdef_columns (no statistics
// objects).
Status NoObject(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Null();
  return Status::OK();
}

// pg_relation_is_publishable(oid): no relation is in a publication.
Status NotPublishable(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Bool(false);
  return Status::OK();
}

Status CurrentSchema(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::String("public");
  return Status::OK();
}

Status CurrentDatabase(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::String(kPgDatabaseName);
  return Status::OK();
}

Status Version(const SqlType&, const Value*, size_t, Value* out) {
  // Clients read the PostgreSQL version that the dialect follows.
  *out = Value::String("PostgreSQL 15.0 (Sluice, an incremental SQL engine)");
  return Status::OK();
}

// pg_encoding_to_char(encoding): the one encoding, UTF8 (6); "" for another
// number, as PostgreSQL says.
Status EncodingToChar(const SqlType&, const Value* a, size_t, Value* out) {
  *out = Value::String(a[0].int_value() == 6 ? "UTF8" : "");
  return Status::OK();
}

// pg_table_size(oid) and its kin: the catalog does not know how much an
// integral holds (its batches live with the workers), so NULL, as
// PostgreSQL answers for a relation it cannot find.
Status SizeUnknown(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Null();
  return Status::OK();
}

// has_database_privilege and has_table_privilege: the one role may do
// everything.
Status Privileged(const SqlType&, const Value*, size_t, Value* out) {
  *out = Value::Bool(true);
  return Status::OK();
}

// pg_size_pretty(bytes), as PostgreSQL rounds: bytes below 10240, then kB,
// MB, GB, TB, PB, each unit while the value stays below 10240 of it,
// rounded half away from zero.
Status SizePretty(const SqlType&, const Value* a, size_t, Value* out) {
  int64_t size = a[0].int_value();
  static const char* const kUnits[] = {"kB", "MB", "GB", "TB", "PB"};
  const int64_t limit = 10 * 1024, limit2 = limit * 2 - 1;
  auto abs = [](int64_t v) { return v < 0 ? -v : v; };
  if (abs(size) < limit) {
    *out = Value::String(std::to_string(size) + " bytes");
    return Status::OK();
  }
  size /= 1 << 9;  // half-units, so that the last step can round
  for (const char* unit : kUnits) {
    if (abs(size) < limit2 || unit == kUnits[4]) {
      const int64_t rounded = size >= 0 ? (size + 1) / 2 : (size - 1) / 2;
      *out = Value::String(std::to_string(rounded) + " " + unit);
      return Status::OK();
    }
    size /= 1 << 10;
  }
  return Status::OK();
}

struct CatalogFn {
  const char* name;
  ScalarFn fn;
  std::vector<SqlType> args;
  SqlType result;
  bool strict;
};

const std::vector<CatalogFn>& CatalogFns() {
  static const auto* fns = [] {
    const SqlType oid = SqlType::BigInt();
    const SqlType text = SqlType::Varchar();
    const SqlType integer = SqlType::Integer();
    const SqlType boolean = SqlType::Boolean();
    return new std::vector<CatalogFn>{
        {"pg_table_is_visible", Visible, {oid}, boolean, true},
        {"pg_type_is_visible", Visible, {oid}, boolean, true},
        {"format_type", FormatType, {oid, integer}, text, false},
        {"pg_get_userbyid", UserById, {oid}, text, true},
        {"pg_get_expr", GetExpr, {text, oid}, text, true},
        {"pg_get_expr", GetExpr, {text, oid, boolean}, text, true},
        {"obj_description", NoObject, {oid}, text, false},
        {"obj_description", NoObject, {oid, text}, text, false},
        {"col_description", NoObject, {oid, integer}, text, false},
        {"shobj_description", NoObject, {oid, text}, text, false},
        {"pg_get_ruledef", NoObject, {oid}, text, false},
        {"pg_get_ruledef", NoObject, {oid, boolean}, text, false},
        {"pg_get_statisticsobjdef_columns", NoObject, {oid}, text, false},
        {"pg_relation_is_publishable", NotPublishable, {oid}, boolean, true},
        {"pg_encoding_to_char", EncodingToChar, {integer}, text, true},
        {"pg_table_size", SizeUnknown, {oid}, oid, false},
        {"pg_relation_size", SizeUnknown, {oid}, oid, false},
        {"pg_total_relation_size", SizeUnknown, {oid}, oid, false},
        {"pg_indexes_size", SizeUnknown, {oid}, oid, false},
        {"pg_database_size", SizeUnknown, {text}, oid, false},
        {"pg_size_pretty", SizePretty, {oid}, text, true},
        {"has_database_privilege", Privileged, {text, text}, boolean, true},
        {"has_table_privilege", Privileged, {oid, text}, boolean, true},
        {"has_schema_privilege", Privileged, {text, text}, boolean, true},
        {"current_schema", CurrentSchema, {}, text, true},
        {"current_database", CurrentDatabase, {}, text, true},
        {"version", Version, {}, text, true},
    };
  }();
  return *fns;
}

// Whether an argument of type `given` may be passed where `want` is: the
// same kind (integers for an integer or OID, text for text, booleans), and
// text where an integer or OID is due, which PostgreSQL reads from a
// constant of unknown type ('16385' where a regclass is due, NULL).
bool Fits(const SqlType& given, const SqlType& want) {
  if (want.IsInteger()) return given.IsInteger() || given.IsString();
  if (want.IsString()) return given.IsString();
  return given.id() == want.id();
}

}  // namespace

bool ResolveCatalog(std::string_view name, const std::vector<SqlType>& args, ResolvedFn* r) {
  for (const CatalogFn& f : CatalogFns()) {
    if (name != f.name || args.size() != f.args.size()) continue;
    bool fits = true;
    for (size_t i = 0; i < args.size() && fits; ++i) fits = Fits(args[i], f.args[i]);
    if (!fits) continue;
    r->fn = f.fn;
    r->name = f.name;
    r->result = f.result;
    r->arg_types = f.args;
    r->strict = f.strict;
    return true;
  }
  return false;
}

}  // namespace sluice::sql
