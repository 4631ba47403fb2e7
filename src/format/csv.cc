// CSV records (RFC 4180): one record per line, fields in column order,
// separated by the delimiter; a field in double quotes may hold delimiters,
// newlines and doubled quotes. An empty unquoted field is NULL; "" is the
// empty string. Values are in PostgreSQL's text form (arrays as '{1,2}').
//
// Input records may carry one more field than the table has columns: the
// record's weight (1 inserts, -1 deletes, n inserts n copies), so that our
// own CSV output can be read back. Output records always end with it.
#include "format/csv.h"

#include <charconv>

#include "sql/expr.h"
#include "types/row_codec.h"

namespace sluice::format {
namespace {

class CsvDecoder final : public Decoder {
 public:
  CsvDecoder(const FormatOptions& o, const Relation& rel) : opts_(o), rel_(rel) {}

  Position Decode(std::string_view data, Position at, ChangeBuffer* out,
                  std::vector<RecordError>* errors, uint64_t* error_count) override {
    size_t pos = 0;
    const size_t n = rel_.columns.size();
    while (pos < data.size()) {
      const uint64_t line = at.line;
      const size_t line_start = pos;
      // Split one record into fields, tracking where each starts.
      fields_.clear();
      quoted_.clear();
      starts_.clear();
      std::string field;
      bool in_quotes = false, was_quoted = false, bad_quote = false;
      size_t field_start = pos;
      uint64_t field_line = line;
      size_t field_line_start = line_start;
      size_t cur_line_start = line_start;
      uint64_t cur_line = line;
      for (; pos < data.size(); ++pos) {
        char c = data[pos];
        if (in_quotes) {
          if (c == '"') {
            if (pos + 1 < data.size() && data[pos + 1] == '"') {
              field.push_back('"');
              ++pos;
            } else {
              in_quotes = false;
            }
          } else {
            if (c == '\n') {
              ++cur_line;
              cur_line_start = pos + 1;
            }
            field.push_back(c);
          }
          continue;
        }
        if (c == '"' && field.empty() && !was_quoted) {
          in_quotes = was_quoted = true;
          continue;
        }
        if (c == opts_.delimiter || c == '\n') {
          if (!field.empty() && field.back() == '\r' && c == '\n') field.pop_back();
          fields_.push_back(std::move(field));
          quoted_.push_back(was_quoted);
          starts_.push_back({field_line, field_start - field_line_start + 1});
          field.clear();
          was_quoted = false;
          field_start = pos + 1;
          field_line = cur_line;
          field_line_start = cur_line_start;
          if (c == '\n') {
            ++pos;
            ++cur_line;
            break;
          }
          continue;
        }
        if (was_quoted && !bad_quote) {
          bad_quote = true;
          Error(at.record, field_line, pos - field_line_start + 1,
                "characters after a closing quote", errors, error_count);
        }
        field.push_back(c);
      }
      if (pos >= data.size() && (!field.empty() || was_quoted || !fields_.empty())) {
        if (in_quotes) {
          Error(at.record, field_line, field_start - field_line_start + 1, "unterminated quote",
                errors, error_count);
          bad_quote = true;
        }
        if (!field.empty() && field.back() == '\r') field.pop_back();
        if (data.back() != '\n') {
          fields_.push_back(std::move(field));
          quoted_.push_back(was_quoted);
          starts_.push_back({field_line, field_start - field_line_start + 1});
        }
      }
      at.line = cur_line;
      // A blank line is no record.
      if (fields_.size() == 1 && fields_[0].empty() && !quoted_[0]) continue;
      if (fields_.empty()) continue;
      if (opts_.headers && !header_skipped_) {
        header_skipped_ = true;
        continue;
      }
      const uint64_t record = at.record++;
      if (bad_quote) continue;
      if (!opts_.weights && fields_.size() != n) {
        Error(record, line, 1,
              fields_.size() < n ? "missing data for column \"" + rel_.columns[fields_.size()] + "\""
                                 : std::string("extra data after last expected column"),
              errors, error_count);
        continue;
      }
      if (fields_.size() != n && fields_.size() != n + 1) {
        Error(record, line, 1,
              "expected " + std::to_string(n) + " fields (or " + std::to_string(n + 1) +
                  " with a weight), found " + std::to_string(fields_.size()),
              errors, error_count);
        continue;
      }
      int64_t weight = 1;
      if (fields_.size() == n + 1) {
        const std::string& w = fields_[n];
        auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
        if (ec != std::errc() || p != w.data() + w.size() || weight == 0) {
          Error(record, starts_[n].first, starts_[n].second,
                "the weight must be a non-zero integer, found \"" + w + "\"", errors, error_count);
          continue;
        }
      }
      Record(record, weight, out, errors, error_count);
    }
    return at;
  }

  size_t CompleteRecords(std::string_view data) const override {
    // The end of the last line that is not inside quotes.
    bool in_quotes = false;
    size_t last = 0;
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i] == '"') in_quotes = !in_quotes;
      if (data[i] == '\n' && !in_quotes) last = i + 1;
    }
    return last;
  }

 private:
  void Error(uint64_t record, uint64_t line, uint64_t column, std::string reason,
             std::vector<RecordError>* errors, uint64_t* count) {
    ++*count;
    if (errors->size() < kMaxErrors) errors->push_back({record, line, column, std::move(reason)});
  }

  void Record(uint64_t record, int64_t weight, ChangeBuffer* out, std::vector<RecordError>* errors,
              uint64_t* count) {
    const size_t n = rel_.columns.size();
    row_.clear();
    key_.clear();
    const bool keyed = !rel_.key.empty();
    if (keyed && weight != 1 && weight != -1) {
      Error(record, starts_[n].first, starts_[n].second,
            "a table with a primary key takes weights 1 and -1", errors, count);
      return;
    }
    if (rel_.append_only && weight < 0) {
      Error(record, starts_[n].first, starts_[n].second,
            "table " + rel_.name + " is append_only: it takes no deletes", errors, count);
      return;
    }
    values_.assign(n, Value::Null());
    for (size_t i = 0; i < n; ++i) {
      const SqlType& t = rel_.schema[i];
      if (!quoted_[i] && fields_[i].empty()) continue;  // NULL
      // Text as it is; a jsonpath is read (and kept as PostgreSQL prints it).
      const bool as_is = t.IsVerbatimText();
      Status s =
          as_is ? Status::OK()
                : sql::CastValue(Value::String(fields_[i]), SqlType::Varchar(), t, &values_[i]);
      if (as_is) values_[i] = Value::String(fields_[i]);
      if (!s.ok()) {
        Error(record, starts_[i].first, starts_[i].second,
              "column \"" + rel_.columns[i] + "\": " + s.message(), errors, count);
        return;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      Status s = EncodeValue(rel_.schema[i], values_[i], &row_);
      if (!s.ok()) {
        Error(record, starts_[i].first, starts_[i].second,
              "column \"" + rel_.columns[i] + "\": " +
                  (values_[i].is_null() ? std::string("NOT NULL column is null") : s.message()),
              errors, count);
        return;
      }
    }
    if (keyed) {
      for (int k : rel_.key) {
        Status s = EncodeValue(rel_.schema[static_cast<size_t>(k)], values_[static_cast<size_t>(k)],
                               &key_);
        if (!s.ok()) return;  // reported above
      }
      if (weight > 0) {
        out->Add(ChangeKind::kInsert, key_, row_);
      } else {
        out->Add(ChangeKind::kDelete, key_, "");
      }
      return;
    }
    for (int64_t c = weight > 0 ? weight : -weight; c > 0; --c) {
      out->Add(weight > 0 ? ChangeKind::kInsert : ChangeKind::kDelete, "", row_);
    }
  }

  const FormatOptions opts_;
  const Relation rel_;
  bool header_skipped_ = false;
  std::vector<std::string> fields_;
  std::vector<bool> quoted_;
  std::vector<std::pair<uint64_t, uint64_t>> starts_;  // line, column
  std::vector<Value> values_;
  std::string row_, key_;
};

class CsvEncoder final : public Encoder {
 public:
  CsvEncoder(const FormatOptions& o, const Relation& rel, std::string terminator)
      : delimiter_(o.delimiter), rel_(rel), terminator_(std::move(terminator)) {}

  Status Encode(std::string_view row, int64_t weight, std::string* out) override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Value> values, DecodeRow(rel_.schema, row));
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_null()) {
        std::string text = sql::ValueToText(values[i], rel_.schema[i]);
        bool quote = text.empty() || text.find_first_of("\"\r\n") != std::string::npos ||
                     text.find(delimiter_) != std::string::npos;
        if (quote) {
          out->push_back('"');
          for (char c : text) {
            if (c == '"') out->push_back('"');
            out->push_back(c);
          }
          out->push_back('"');
        } else {
          out->append(text);
        }
      }
      out->push_back(delimiter_);
    }
    out->append(std::to_string(weight));
    out->append(terminator_);
    return Status::OK();
  }

 private:
  const char delimiter_;
  const Relation rel_;
  const std::string terminator_;
};

}  // namespace

std::unique_ptr<Decoder> MakeCsvDecoder(const FormatOptions& options, const Relation& rel) {
  return std::make_unique<CsvDecoder>(options, rel);
}

std::unique_ptr<Encoder> MakeCsvEncoder(const FormatOptions& options, const Relation& rel,
                                        std::string terminator) {
  return std::make_unique<CsvEncoder>(options, rel, std::move(terminator));
}

}  // namespace sluice::format
