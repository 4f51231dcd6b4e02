#!/usr/bin/env bash
# Keeps functions short (issue 67): no function body in the product's sources is over 120 lines, counted from the
# first line of its signature to its closing brace. A lambda or a local class inside a function counts as part of
# it. Fails naming each long function, its file and line, and its length.
#
# Usage: check_function_lengths.sh ROOT [DIR...]
#   ROOT  the repository root
#   DIR   folders under ROOT to scan for *.cpp and *.h (default: plugin engine_adapter tools demo bench)
#
# How a function is found: comments, string and character literals and preprocessor lines are blanked first.
# A `{` at namespace or class scope opens a function body when the text since the last `;`, `{` or `}` (its
# header) holds a `(` and does not end in `=`; one whose header starts with namespace, class, struct, union or
# enum (or a macro such as Bullet's ATTRIBUTE_ALIGNED16(class)) opens a scope that is searched in turn. A brace
# initialiser in a constructor's member-initialiser list (a `{...}` followed by `,` or `{`) stays part of the
# header. BDT_MAX_FUNCTION_LINES sets another limit (to list the longest functions).
# Bash and POSIX awk only (mawk, the Debian default, runs it).
set -u

MAX_LINES=${BDT_MAX_FUNCTION_LINES:-120}

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 ROOT [DIR...]" >&2
  exit 2
fi
ROOT=$1
shift
if [ $# -gt 0 ]; then
  DIRS=("$@")
else
  DIRS=(plugin engine_adapter tools demo bench)
fi

FILES=()
for dir in "${DIRS[@]}"; do
  if [ ! -d "$ROOT/$dir" ]; then
    echo "error: $ROOT/$dir is not a folder" >&2
    exit 2
  fi
  while IFS= read -r file; do
    FILES+=("$file")
  done < <(cd "$ROOT" && find "$dir" \( -name '*.cpp' -o -name '*.h' \) -type f | LC_ALL=C sort)
done
if [ ${#FILES[@]} -eq 0 ]; then
  echo "error: no sources under ${DIRS[*]}" >&2
  exit 2
fi

failed=0
for file in "${FILES[@]}"; do
  awk -v path="$file" -v max_lines="$MAX_LINES" '
    { text = text $0 "\n" }
    # Blanks comments, literals and preprocessor lines (keeping newlines, so line numbers hold).
    function blank(s,    out, n, i, c, d, state, j, k, delim, close_at, end_at, line_start) {
      out = ""; n = length(s); i = 1; state = 0; line_start = 1
      while (i <= n) {
        c = substr(s, i, 1)
        if (state == 0) {
          d = substr(s, i, 2)
          if (line_start && c == "#") { state = 5; out = out " "; i++; continue }
          if (c != " " && c != "\t" && c != "\n") line_start = 0
          if (c == "\n") line_start = 1
          if (d == "//") { state = 1; out = out "  "; i += 2; continue }
          if (d == "/*") { state = 2; out = out "  "; i += 2; continue }
          if (c == "R" && substr(s, i + 1, 1) == "\"" && (i == 1 || substr(s, i - 1, 1) !~ /[A-Za-z0-9_]/)) {
            j = index(substr(s, i + 2), "(")
            delim = ")" substr(s, i + 2, j - 1) "\""
            close_at = index(substr(s, i + 2 + j), delim)
            if (j == 0 || close_at == 0) { i++; out = out " "; continue }
            end_at = i + j + close_at + length(delim)
            for (k = i; k <= end_at; k++) out = out (substr(s, k, 1) == "\n" ? "\n" : " ")
            i = end_at + 1; continue
          }
          if (c == "\"") { state = 3; out = out " "; i++; continue }
          if (c == "\x27" && (i == 1 || substr(s, i - 1, 1) !~ /[0-9A-Fa-f]/)) { state = 4; out = out " "; i++; continue }
          out = out c; i++; continue
        }
        if (state == 1) { if (c == "\n") { state = 0; line_start = 1; out = out "\n" } else out = out " "; i++; continue }
        if (state == 2) {
          if (substr(s, i, 2) == "*/") { state = 0; out = out "  "; i += 2; continue }
          out = out (c == "\n" ? "\n" : " "); i++; continue
        }
        if (state == 3 || state == 4) {
          if (c == "\\") { out = out "  "; i += 2; continue }
          if ((state == 3 && c == "\"") || (state == 4 && c == "\x27")) state = 0
          out = out (c == "\n" ? "\n" : " "); i++; continue
        }
        if (state == 5) {
          if (c == "\\" && substr(s, i + 1, 1) == "\n") { out = out " \n"; i += 2; continue }
          if (c == "\n") { state = 0; line_start = 1; out = out "\n" } else out = out " "
          i++; continue
        }
      }
      return out
    }
    function trim(s) { sub(/^[ \t\n]+/, "", s); sub(/[ \t\n]+$/, "", s); return s }
    # The index of the `}` that closes the `{` at i, or 0.
    function matching(s, i,    depth, n, c) {
      depth = 0; n = length(s)
      for (; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "{") depth++
        else if (c == "}") { depth--; if (depth == 0) return i }
      }
      return 0
    }
    function next_char(s, i,    c) {
      for (i++; i <= length(s); i++) { c = substr(s, i, 1); if (c !~ /[ \t\n]/) return c }
      return ""
    }
    function name_of(h,    p, pre) {
      p = index(h, "("); pre = (p > 0) ? substr(h, 1, p - 1) : h
      sub(/[ \t\n]+$/, "", pre)
      if (match(pre, /operator[^A-Za-z0-9_].*$/)) return substr(pre, RSTART)
      if (match(pre, /[A-Za-z0-9_:~<>,]+$/)) return substr(pre, RSTART)
      return pre
    }
    END {
      s = blank(text); n = length(s)
      line = 1; header = ""; header_line = 0; top = 0   # kinds[top]: "scope" or "inner"
      for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "\n") { line++; if (header != "") header = header " "; continue }
        inside = (top > 0 && kinds[top] == "inner")
        if (c == "{") {
          if (inside) { kinds[++top] = "inner"; continue }
          h = trim(header)
          hs = h; sub(/^template[ \t\n]*<[^>]*>[ \t\n]*/, "", hs)
          if (hs ~ /^(inline[ \t\n]+)?namespace([^A-Za-z0-9_]|$)/ || hs ~ /^extern[ \t\n]*$/ ||
              (hs ~ /^((typedef|export)[ \t\n]+)?(class|struct|union|enum)([^A-Za-z0-9_]|$)/ && hs !~ /\(/) ||
              hs ~ /^[A-Z0-9_]+[ \t\n]*\([ \t\n]*(class|struct)[ \t\n]*\)/) {
            kinds[++top] = "scope"; header = ""; continue
          }
          if (index(h, "(") > 0 && h !~ /=$/) {
            close_at = matching(s, i)
            if (close_at == 0) { printf "%s:%d: error: unbalanced braces\n", path, line; exit 2 }
            after = next_char(s, close_at)
            if (after == "," || after == "{") {   # a brace initialiser in a member-initialiser list
              for (; i < close_at; i++) if (substr(s, i, 1) == "\n") line++
              header = header "{}"; continue
            }
            end_line = line
            for (j = i; j <= close_at; j++) if (substr(s, j, 1) == "\n") end_line++
            length_lines = end_line - header_line + 1
            if (length_lines > max_lines)
              printf "%s:%d: function %s is %d lines (limit %d)\n", path, header_line, name_of(h), length_lines, max_lines
            found++
            kinds[++top] = "inner"; header = ""; continue
          }
          kinds[++top] = "inner"; header = ""; continue   # an initialiser or an aggregate: not searched
        }
        if (c == "}") {
          if (top == 0) { printf "%s:%d: error: unbalanced braces\n", path, line; exit 2 }
          top--; if (top == 0 || kinds[top] != "inner") header = ""
          continue
        }
        if (inside) continue
        if (c == ";") { header = ""; continue }
        if (c == ":" && trim(header) ~ /^(public|protected|private)$/ && substr(s, i + 1, 1) != ":") { header = ""; continue }
        if (header == "" && c ~ /[ \t]/) continue
        if (header == "") header_line = line
        header = header c
      }
      if (top != 0) { printf "%s:%d: error: unbalanced braces\n", path, line; exit 2 }
    }
  ' "$ROOT/$file" >"${TMPDIR:-/tmp}/bdt_fnlen.$$" 2>&1
  status=$?
  if [ -s "${TMPDIR:-/tmp}/bdt_fnlen.$$" ]; then
    cat "${TMPDIR:-/tmp}/bdt_fnlen.$$"
    failed=1
  fi
  [ $status -eq 0 ] || failed=1
done
rm -f "${TMPDIR:-/tmp}/bdt_fnlen.$$"
if [ $failed -ne 0 ]; then
  echo "function lengths: FAILED (a function over $MAX_LINES lines: split it into named steps)"
  exit 1
fi
echo "function lengths: ${#FILES[@]} files, no function over $MAX_LINES lines"
