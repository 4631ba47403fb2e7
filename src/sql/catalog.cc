#include "sql/catalog.h"

namespace sluice::sql {

const TableDef* Catalog::FindTable(const std::string& name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

const ViewDef* Catalog::FindView(const std::string& name) const {
  auto it = views_.find(name);
  return it == views_.end() ? nullptr : &it->second;
}

Status Catalog::AddTable(TableDef table) {
  if (tables_.count(table.name) || views_.count(table.name)) {
    return Status::InvalidArgument("relation \"" + table.name + "\" already exists");
  }
  std::string name = table.name;
  tables_.emplace(std::move(name), std::move(table));
  return Status::OK();
}

Status Catalog::AddView(ViewDef view) {
  if (tables_.count(view.name) || views_.count(view.name)) {
    return Status::InvalidArgument("relation \"" + view.name + "\" already exists");
  }
  std::string name = view.name;
  views_.emplace(std::move(name), std::move(view));
  return Status::OK();
}

Status Catalog::DropTable(const std::string& name) {
  if (tables_.erase(name) == 0) {
    return Status::NotFound("table \"" + name + "\" does not exist");
  }
  std::erase_if(indexes_, [&](const auto& kv) { return kv.second.relation == name; });
  return Status::OK();
}

Status Catalog::AddIndex(IndexDef index) {
  if (!tables_.count(index.relation) && !views_.count(index.relation)) {
    return Status::NotFound("relation \"" + index.relation + "\" does not exist");
  }
  if (indexes_.count(index.name) || tables_.count(index.name) || views_.count(index.name)) {
    return Status::InvalidArgument("relation \"" + index.name + "\" already exists");
  }
  std::string name = index.name;
  indexes_.emplace(std::move(name), std::move(index));
  return Status::OK();
}

Status Catalog::DropIndex(const std::string& name) {
  if (indexes_.erase(name) == 0) return Status::NotFound("index \"" + name + "\" does not exist");
  return Status::OK();
}

Status Catalog::DropView(const std::string& name) {
  if (views_.erase(name) == 0) return Status::NotFound("view \"" + name + "\" does not exist");
  std::erase_if(indexes_, [&](const auto& kv) { return kv.second.relation == name; });
  return Status::OK();
}

}  // namespace sluice::sql
