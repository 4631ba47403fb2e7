// Helpers for zset tests: a model of an indexed Z-set as an ordered map, and
// conversions between it and batches.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "zset/batch.h"
#include "zset/batch_builder.h"
#include "zset/cursor.h"

namespace sluice {

using Model = std::map<std::pair<std::string, std::string>, Weight>;

inline void AddTo(Model* m, const std::string& k, const std::string& v, Weight w) {
  Weight& x = (*m)[{k, v}];
  x += w;
  if (x == 0) m->erase({k, v});
}

inline Model ReadAll(Cursor& c) {
  Model m;
  for (; c.KeyValid(); c.StepKey()) {
    for (; c.ValValid(); c.StepVal())
      AddTo(&m, std::string(c.key()), std::string(c.val()), c.weight());
  }
  return m;
}

inline Model ReadAll(const Batch& b) {
  auto c = b.NewCursor();
  return ReadAll(*c);
}

inline MemBatchPtr FromModel(const Model& m) {
  OrderedBuilder b;
  for (const auto& [kv, w] : m) (void)b.Push(kv.first, kv.second, w);
  return b.Finish();
}

}  // namespace sluice
