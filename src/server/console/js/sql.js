// SQL highlighting: a small tokenizer (comments, strings, quoted names,
// numbers, keywords, function names) that turns SQL text into HTML spans.

const KEYWORDS = new Set(`
  ALL AND ANY ARRAY AS ASC BETWEEN BIGINT BINARY BOOLEAN BY CASE CAST CHAR CREATE CROSS CURRENT
  DATE DECIMAL DEFAULT DELETE DESC DISTINCT DOUBLE DROP ELSE END EXCEPT EXISTS FALSE FETCH FILTER
  FIRST FOLLOWING FROM FULL GROUP HAVING HOUR IN INNER INSERT INTEGER INTERSECT INTERVAL INTO IS
  JOIN KEY LAST LATERAL LEFT LIKE ILIKE LIMIT MAP MATERIALIZED MINUTE MONTH NATURAL NOT NULL NULLS
  NUMERIC OFFSET ON OR ORDER OUTER OVER PARTITION PRECEDING PRIMARY RANGE REAL RECURSIVE RIGHT ROW
  ROWS SECOND SELECT SET SMALLINT TABLE THEN TIME TIMESTAMP TINYINT TO TRUE UNBOUNDED UNION UNIQUE
  UPDATE USING VALUES VARBINARY VARCHAR VARIANT VIEW WHEN WHERE WINDOW WITH YEAR DAY REFERENCES
  FOREIGN CHECK CONSTRAINT LOCAL TEMPORARY VARYING PRECISION ZONE ESCAPE SIMILAR SOME
`.trim().split(/\s+/));

// [{kind, text}]: kind is one of kw, str, num, comment, fn, name, other.
export function tokenize(sql) {
  const tokens = [];
  const re = /(--[^\n]*)|(\/\*[\s\S]*?(?:\*\/|$))|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_$]*)|(\s+)|([\s\S])/g;
  let m;
  while ((m = re.exec(sql)) !== null) {
    const [text] = m;
    let kind = 'other';
    if (m[1] || m[2]) kind = 'comment';
    else if (m[3]) kind = 'str';
    else if (m[4]) kind = 'name';
    else if (m[5]) kind = 'num';
    else if (m[6]) {
      if (KEYWORDS.has(text.toUpperCase())) kind = 'kw';
      else if (sql[re.lastIndex] === '(') kind = 'fn';
      else kind = 'name';
    }
    tokens.push({kind, text});
  }
  return tokens;
}

function escape(s) {
  return s.replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
}

// The HTML of `sql`, highlighted; with `errorLine` (1-based), that line
// is marked.
export function highlight(sql, {errorLine} = {}) {
  // Lines first, so that a marked line's spans close before its newline.
  const lines = [[]];
  for (const t of tokenize(sql)) {
    const parts = t.text.split('\n');
    parts.forEach((p, i) => {
      if (i > 0) lines.push([]);
      if (p.length > 0) lines[lines.length - 1].push({kind: t.kind, text: p});
    });
  }
  return lines.map((line, i) => {
    const html = line.map(t => (t.kind === 'other' || t.kind === 'name')
        ? escape(t.text) : `<span class="tok-${t.kind}">${escape(t.text)}</span>`).join('');
    return i + 1 === errorLine ? `<span class="tok-errline">${html || ' '}</span>` : html;
  }).join('\n');
}
