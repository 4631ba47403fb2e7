// Parse tree builders shared by the two phases of plpgsql.h: parsing a body
// (plpgsql.cc) and compiling it (plpgsql_compiler.cc). Each returns a node
// of libpg_query's JSON parse tree, without a position.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sql/plpgsql.h"

namespace sluice::sql::plpgsql {

inline Json StrNode(const std::string& s) { return Json{{"String", {{"sval", s}}}}; }

inline std::string StrOf(const Json& n) {
  if (n.is_object() && n.contains("String")) return n["String"].value("sval", "");
  return "";
}

inline Json Cast(Json arg, const Json& type) {
  return Json{{"TypeCast", {{"arg", std::move(arg)}, {"typeName", type}, {"location", -1}}}};
}

inline Json NullConst() { return Json{{"A_Const", {{"isnull", true}, {"location", -1}}}}; }

inline Json NullOf(const Json& type) {
  return type.is_null() ? NullConst() : Cast(NullConst(), type);
}

inline Json TextConst(const std::string& s) {
  return Json{{"A_Const", {{"sval", {{"sval", s}}}, {"location", -1}}}};
}

inline Json BoolConst(bool b) {
  return Json{
      {"A_Const", {{"boolval", b ? Json{{"boolval", true}} : Json::object()}, {"location", -1}}}};
}

inline Json Op(const std::string& op, Json l, Json r) {
  return Json{{"A_Expr",
               {{"kind", "AEXPR_OP"},
                {"name", Json::array({StrNode(op)})},
                {"lexpr", std::move(l)},
                {"rexpr", std::move(r)},
                {"location", -1}}}};
}

inline Json Call(const std::string& name, Json args) {
  return Json{{"FuncCall",
               {{"funcname", Json::array({StrNode(name)})},
                {"args", std::move(args)},
                {"funcformat", "COERCE_EXPLICIT_CALL"},
                {"location", -1}}}};
}

// `e IS TRUE` or `e IS NOT TRUE`: IF takes a branch only on true.
inline Json IsTrue(Json e, bool is_true) {
  return Json{{"BooleanTest",
               {{"arg", std::move(e)},
                {"booltesttype", is_true ? "IS_TRUE" : "IS_NOT_TRUE"},
                {"location", -1}}}};
}

inline Json And(const std::vector<Json>& conds) {
  if (conds.size() == 1) return conds[0];
  return Json{{"BoolExpr", {{"boolop", "AND_EXPR"}, {"args", conds}, {"location", -1}}}};
}

inline Json Case(Json args, Json otherwise) {
  return Json{
      {"CaseExpr", {{"args", std::move(args)}, {"defresult", otherwise}, {"location", -1}}}};
}

inline Json When(Json cond, Json result) {
  return Json{
      {"CaseWhen", {{"expr", std::move(cond)}, {"result", std::move(result)}, {"location", -1}}}};
}

inline Json Select(Json targets) {
  return Json{{"targetList", std::move(targets)},
              {"limitOption", "LIMIT_OPTION_DEFAULT"},
              {"op", "SETOP_NONE"}};
}

inline Json Target(Json val) {
  return Json{{"ResTarget", {{"val", std::move(val)}, {"location", -1}}}};
}

// The expression of an error `message` (text) raised where it is evaluated,
// of type `type`.
inline Json ErrorExpr(Json message, const Json& type) {
  static const Json kText = Json{{"names", Json::array({StrNode("text")})}, {"typemod", -1}};
  return Call(kRaiseErrorFunction, Json::array({Cast(std::move(message), kText),
                                                NullOf(type.is_null() ? kText : type)}));
}

}  // namespace sluice::sql::plpgsql
