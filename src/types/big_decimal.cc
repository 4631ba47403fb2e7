#include "types/big_decimal.h"

#include <algorithm>
#include <cstdlib>

namespace sluice {

namespace {

constexpr uint32_t kPow10Limb[10] = {1,      10,      100,      1000,      10000,
                                     100000, 1000000, 10000000, 100000000, 1000000000};

}  // namespace

void BigDecimal::Normalize() {
  while (!mag_.empty() && mag_.back() == 0) mag_.pop_back();
  if (mag_.empty()) neg_ = false;
}

BigDecimal BigDecimal::FromInt128(int128 unscaled, int scale) {
  BigDecimal b;
  b.scale_ = scale;
  b.neg_ = unscaled < 0;
  unsigned __int128 m =
      b.neg_ ? -static_cast<unsigned __int128>(unscaled) : static_cast<unsigned __int128>(unscaled);
  while (m != 0) {
    b.mag_.push_back(static_cast<uint32_t>(m % kBase));
    m /= kBase;
  }
  b.Normalize();
  return b;
}

BigDecimal BigDecimal::FromValue(const Value& v) {
  if (v.decimal_wide() != nullptr) return *v.decimal_wide();
  return FromInt128(v.decimal_unscaled(), v.decimal_scale());
}

BigDecimal BigDecimal::FromDigits(bool negative, std::string_view digits, int scale) {
  BigDecimal b;
  b.scale_ = scale;
  b.neg_ = negative;
  // Nine digits a limb, from the least significant end.
  for (size_t end = digits.size(); end > 0;) {
    const size_t begin = end >= 9 ? end - 9 : 0;
    uint32_t limb = 0;
    for (size_t i = begin; i < end; ++i) limb = limb * 10 + static_cast<uint32_t>(digits[i] - '0');
    b.mag_.push_back(limb);
    end = begin;
  }
  b.Normalize();
  return b;
}

bool BigDecimal::Parse(std::string_view s, BigDecimal* out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  std::string digits;
  int frac = 0;
  bool any = false, point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (!digits.empty() || c != '0') digits.push_back(c);
      if (point) ++frac;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  long exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      exp = exp * 10 + (s[i] - '0');
      if (exp > 1000000) return false;
    }
    if (eneg) exp = -exp;
  }
  if (i != s.size()) return false;
  // The value is digits * 10^(exp - frac); its scale frac - exp, at least 0.
  const long shift = exp - frac;
  int scale = static_cast<int>(std::max(0L, -shift));
  if (shift > 0 && !digits.empty()) digits.append(static_cast<size_t>(shift), '0');
  *out = FromDigits(neg, digits, scale);
  return true;
}

std::string BigDecimal::Digits() const {
  if (mag_.empty()) return "";
  std::string s = std::to_string(mag_.back());
  for (size_t i = mag_.size() - 1; i-- > 0;) {
    const std::string limb = std::to_string(mag_[i]);
    s.append(9 - limb.size(), '0');
    s += limb;
  }
  return s;
}

int BigDecimal::DigitCount() const {
  if (mag_.empty()) return 0;
  int top = 1;
  while (top < 10 && mag_.back() >= kPow10Limb[top]) ++top;
  return static_cast<int>(mag_.size() - 1) * 9 + top;
}

bool BigDecimal::ToInt128(int128* out) const {
  if (DigitCount() > kMaxDecimalDigits) return false;
  int128 u = 0;
  for (size_t i = mag_.size(); i-- > 0;) u = u * kBase + mag_[i];
  *out = neg_ ? -u : u;
  return true;
}

std::string BigDecimal::ToString() const {
  std::string d = Digits();
  if (static_cast<int>(d.size()) <= scale_) {
    d.insert(0, static_cast<size_t>(scale_ + 1) - d.size(), '0');
  }
  if (scale_ > 0) d.insert(d.size() - static_cast<size_t>(scale_), ".");
  if (neg_) d.insert(0, "-");
  return d;
}

double BigDecimal::ToDouble() const { return std::strtod(ToString().c_str(), nullptr); }

Value BigDecimal::ToValue() const {
  int128 u;
  if (scale_ <= kMaxDecimalDigits && ToInt128(&u)) return Value::Decimal(u, scale_);
  return Value::WideDecimal(std::make_shared<const BigDecimal>(*this), scale_);
}

BigDecimal BigDecimal::Negated() const {
  BigDecimal b = *this;
  b.neg_ = !b.neg_;
  b.Normalize();
  return b;
}

BigDecimal BigDecimal::Abs() const {
  BigDecimal b = *this;
  b.neg_ = false;
  return b;
}

BigDecimal::Limbs BigDecimal::MulPow10(const Limbs& m, int k) {
  if (m.empty() || k == 0) return m;
  Limbs r(static_cast<size_t>(k / 9), 0);
  const uint64_t f = kPow10Limb[k % 9];
  uint64_t carry = 0;
  for (uint32_t limb : m) {
    const uint64_t t = limb * f + carry;
    r.push_back(static_cast<uint32_t>(t % kBase));
    carry = t / kBase;
  }
  if (carry != 0) r.push_back(static_cast<uint32_t>(carry));
  return r;
}

BigDecimal BigDecimal::Widen(int scale) const {
  BigDecimal b;
  b.neg_ = neg_;
  b.mag_ = MulPow10(mag_, scale - scale_);
  b.scale_ = scale;
  return b;
}

BigDecimal BigDecimal::Round(int scale) const { return ToScale(scale, /*round=*/true); }

BigDecimal BigDecimal::Trunc(int scale) const { return ToScale(scale, /*round=*/false); }

BigDecimal BigDecimal::ToScale(int scale, bool round) const {
  const int to = std::max(scale, 0);
  if (to >= scale_) return Widen(to);
  // Divide by 10^(scale_ - to), then round half away from zero on the
  // remainder (2r >= 10^k) or drop it.
  const Limbs divisor = MulPow10(Limbs{1}, scale_ - to);
  Limbs q, r;
  DivMag(mag_, divisor, &q, &r);
  if (round && CmpMag(AddMag(r, r), divisor) >= 0) q = AddMag(q, Limbs{1});
  BigDecimal b;
  b.neg_ = neg_;
  b.mag_ = std::move(q);
  b.scale_ = to;
  b.Normalize();
  return b;
}

BigDecimal BigDecimal::StripTrailingZeros() const {
  if (mag_.empty()) {
    BigDecimal z;
    return z;
  }
  int zeros = 0;
  const std::string d = Digits();
  for (size_t i = d.size(); i-- > 0 && d[i] == '0' && zeros < scale_;) ++zeros;
  return zeros == 0 ? *this : Trunc(scale_ - zeros);
}

int BigDecimal::CmpMag(const Limbs& a, const Limbs& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

BigDecimal::Limbs BigDecimal::AddMag(const Limbs& a, const Limbs& b) {
  const Limbs& l = a.size() >= b.size() ? a : b;
  const Limbs& s = a.size() >= b.size() ? b : a;
  Limbs r;
  r.reserve(l.size() + 1);
  uint32_t carry = 0;
  for (size_t i = 0; i < l.size(); ++i) {
    uint32_t t = l[i] + (i < s.size() ? s[i] : 0) + carry;
    carry = t >= kBase;
    if (carry) t -= kBase;
    r.push_back(t);
  }
  if (carry) r.push_back(1);
  return r;
}

BigDecimal::Limbs BigDecimal::SubMag(const Limbs& a, const Limbs& b) {
  Limbs r;
  r.reserve(a.size());
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t t = static_cast<int64_t>(a[i]) - (i < b.size() ? b[i] : 0) - borrow;
    borrow = t < 0;
    if (borrow) t += kBase;
    r.push_back(static_cast<uint32_t>(t));
  }
  while (!r.empty() && r.back() == 0) r.pop_back();
  return r;
}

BigDecimal::Limbs BigDecimal::MulMag(const Limbs& a, const Limbs& b) {
  if (a.empty() || b.empty()) return {};
  Limbs r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      const uint64_t t = r[i + j] + static_cast<uint64_t>(a[i]) * b[j] + carry;
      r[i + j] = static_cast<uint32_t>(t % kBase);
      carry = t / kBase;
    }
    for (size_t k = i + b.size(); carry != 0; ++k) {
      const uint64_t t = r[k] + carry;
      r[k] = static_cast<uint32_t>(t % kBase);
      carry = t / kBase;
    }
  }
  while (!r.empty() && r.back() == 0) r.pop_back();
  return r;
}

// Knuth's algorithm D (TAOCP 4.3.1) in base 10^9.
void BigDecimal::DivMag(const Limbs& a, const Limbs& b, Limbs* q, Limbs* r) {
  q->clear();
  r->clear();
  if (CmpMag(a, b) < 0) {
    *r = a;
    return;
  }
  const size_t n = b.size();
  if (n == 1) {
    uint64_t rem = 0;
    q->assign(a.size(), 0);
    for (size_t i = a.size(); i-- > 0;) {
      const uint64_t t = rem * kBase + a[i];
      (*q)[i] = static_cast<uint32_t>(t / b[0]);
      rem = t % b[0];
    }
    while (!q->empty() && q->back() == 0) q->pop_back();
    if (rem != 0) r->push_back(static_cast<uint32_t>(rem));
    return;
  }
  // Normalize so that the divisor's top limb is at least kBase / 2.
  const uint32_t d = static_cast<uint32_t>(kBase / (static_cast<uint64_t>(b.back()) + 1));
  auto scaled = [d](const Limbs& x) {
    Limbs y;
    y.reserve(x.size() + 1);
    uint64_t carry = 0;
    for (uint32_t limb : x) {
      const uint64_t t = static_cast<uint64_t>(limb) * d + carry;
      y.push_back(static_cast<uint32_t>(t % kBase));
      carry = t / kBase;
    }
    y.push_back(static_cast<uint32_t>(carry));
    return y;
  };
  Limbs u = scaled(a);  // a.size() + 1 limbs
  Limbs v = scaled(b);
  v.pop_back();  // its carry limb is 0: b * d < kBase^n
  const size_t m = a.size() - n;
  q->assign(m + 1, 0);
  const uint64_t vtop = v[n - 1], vnext = v[n - 2];
  for (size_t j = m + 1; j-- > 0;) {
    const uint64_t num = static_cast<uint64_t>(u[j + n]) * kBase + u[j + n - 1];
    uint64_t qhat = num / vtop, rhat = num % vtop;
    while (qhat >= kBase || qhat * vnext > rhat * kBase + u[j + n - 2]) {
      --qhat;
      rhat += vtop;
      if (rhat >= kBase) break;
    }
    // u[j..j+n] -= qhat * v.
    int64_t borrow = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t p = qhat * v[i] + carry;
      carry = p / kBase;
      int64_t t = static_cast<int64_t>(u[i + j]) - static_cast<int64_t>(p % kBase) - borrow;
      borrow = t < 0;
      if (borrow) t += kBase;
      u[i + j] = static_cast<uint32_t>(t);
    }
    int64_t t = static_cast<int64_t>(u[j + n]) - static_cast<int64_t>(carry) - borrow;
    if (t < 0) {
      // qhat was one too large: add v back.
      --qhat;
      uint32_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint32_t s = u[i + j] + v[i] + c;
        c = s >= kBase;
        if (c) s -= kBase;
        u[i + j] = s;
      }
      t += c;  // the carry out of the low limbs cancels the borrow
    }
    u[j + n] = static_cast<uint32_t>(t);
    (*q)[j] = static_cast<uint32_t>(qhat);
  }
  while (!q->empty() && q->back() == 0) q->pop_back();
  // The remainder is u[0..n) / d.
  uint64_t rem = 0;
  r->assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    const uint64_t t = rem * kBase + u[i];
    (*r)[i] = static_cast<uint32_t>(t / d);
    rem = t % d;
  }
  while (!r->empty() && r->back() == 0) r->pop_back();
}

int BigDecimal::Compare(const BigDecimal& a, const BigDecimal& b) {
  if (a.sign() != b.sign()) return a.sign() < b.sign() ? -1 : 1;
  if (a.sign() == 0) return 0;
  int c;
  if (a.scale_ == b.scale_) {
    c = CmpMag(a.mag_, b.mag_);
  } else if (a.Exponent() != b.Exponent()) {
    c = a.Exponent() < b.Exponent() ? -1 : 1;
  } else {
    const int s = std::max(a.scale_, b.scale_);
    c = CmpMag(MulPow10(a.mag_, s - a.scale_), MulPow10(b.mag_, s - b.scale_));
  }
  return a.neg_ ? -c : c;
}

BigDecimal BigDecimal::AddSigned(const BigDecimal& a, const BigDecimal& b, bool negate_b) {
  const int s = std::max(a.scale_, b.scale_);
  const Limbs x = MulPow10(a.mag_, s - a.scale_);
  const Limbs y = MulPow10(b.mag_, s - b.scale_);
  const bool bneg = negate_b ? !b.neg_ : b.neg_;
  BigDecimal r;
  r.scale_ = s;
  if (a.neg_ == bneg) {
    r.mag_ = AddMag(x, y);
    r.neg_ = a.neg_;
  } else if (CmpMag(x, y) >= 0) {
    r.mag_ = SubMag(x, y);
    r.neg_ = a.neg_;
  } else {
    r.mag_ = SubMag(y, x);
    r.neg_ = bneg;
  }
  r.Normalize();
  return r;
}

BigDecimal BigDecimal::Add(const BigDecimal& a, const BigDecimal& b) {
  return AddSigned(a, b, false);
}
BigDecimal BigDecimal::Sub(const BigDecimal& a, const BigDecimal& b) {
  return AddSigned(a, b, true);
}

BigDecimal BigDecimal::Mul(const BigDecimal& a, const BigDecimal& b) {
  BigDecimal r;
  r.mag_ = MulMag(a.mag_, b.mag_);
  r.neg_ = a.neg_ != b.neg_;
  r.scale_ = a.scale_ + b.scale_;
  r.Normalize();
  return r;
}

BigDecimal BigDecimal::Div(const BigDecimal& a, const BigDecimal& b, int scale, bool round) {
  // |a| / |b| at scale + 1 (one digit more when rounding), truncated:
  // |a| * 10^k / |b| with k = scale + extra - a.scale + b.scale.
  const int extra = round ? 1 : 0;
  const int k = scale + extra - a.scale_ + b.scale_;
  const Limbs num = k >= 0 ? MulPow10(a.mag_, k) : a.mag_;
  const Limbs den = k >= 0 ? b.mag_ : MulPow10(b.mag_, -k);
  Limbs q, r;
  DivMag(num, den, &q, &r);
  if (round) {
    // The digit below `scale` decides: (q + 5) / 10.
    q = AddMag(q, Limbs{5});
    Limbs q10, r10;
    DivMag(q, Limbs{10}, &q10, &r10);
    q = std::move(q10);
  }
  BigDecimal out;
  out.mag_ = std::move(q);
  out.neg_ = a.neg_ != b.neg_;
  out.scale_ = scale;
  out.Normalize();
  return out;
}

BigDecimal BigDecimal::Mod(const BigDecimal& a, const BigDecimal& b) {
  const BigDecimal q = Div(a, b, 0, /*round=*/false);
  return Sub(a, Mul(q, b));
}

BigDecimal BigDecimal::Sqrt(int scale) const {
  // The integer root of |this| * 10^(2 * (scale + 1) - scale_), by
  // Newton's iteration from above, is the root at scale + 1; then rounded.
  // (Digits below that scale are dropped first: the integer root of the
  // integer part is the integer part of the root.)
  BigDecimal n;
  const int shift = 2 * (scale + 1) - scale_;
  if (shift >= 0) {
    n.mag_ = MulPow10(mag_, shift);
  } else {
    Limbs rem;
    DivMag(mag_, MulPow10(Limbs{1}, -shift), &n.mag_, &rem);
  }
  BigDecimal r;
  if (!n.mag_.empty()) {
    const int digits = n.DigitCount();
    BigDecimal x =
        FromDigits(false, "1" + std::string(static_cast<size_t>(digits / 2 + 1), '0'), 0);
    const BigDecimal two = FromInt128(2, 0);
    for (;;) {
      const BigDecimal y = Div(Add(x, Div(n, x, 0, false)), two, 0, false);
      if (Compare(y, x) >= 0) break;
      x = y;
    }
    r = x;
  }
  r.scale_ = scale + 1;
  return r.Round(scale);
}

int BigDecimal::DivScale(const BigDecimal& a, const BigDecimal& b) {
  return NumericDivScale(a.is_zero() ? "0" : a.Digits(), a.scale_, b.Digits(), b.scale_);
}

bool BigDecimalInFormat(const BigDecimal& b) {
  return b.scale() <= kMaxNumericScale && (b.is_zero() || b.Exponent() <= kMaxNumericIntegerDigits);
}

}  // namespace sluice
