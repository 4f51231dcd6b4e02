#!/usr/bin/env bash
# Keeps the installed headers' doc comments short (issue 54): in every header the mean `///` block is at most
# 2 lines, and no comment on a data member (a settings field, a value-type field, a constant, an enumerator) is
# over 60 words. The reasoning behind a setting belongs in docs/TUNING.md, linked once from its struct.
#
# Usage: check_doc_comments.sh ROOT [DIR...]
#   ROOT  the repository root
#   DIR   folders under ROOT to scan for *.h (default: the installed headers, plugin/include/bdt and
#         engine_adapter/include/bdt); BDT_DOC_DIRS (space-separated) does the same when no DIR is given.
#
# A block is a run of consecutive lines that start with `///`; a trailing `///<` after code is a block of its
# own, continued by any `///<` lines right below it. Words are counted after the `///` or `///<`. A block
# documents a data member when the code it precedes (or the code its `///<` follows) ends with `;` and has no
# `(` before its `=` or `{` (not a function), or is an enumerator inside an enum.
# Bash and POSIX awk only (mawk, the Debian default, runs it).
set -u

MAX_MEAN_LINES=2.0
MAX_FIELD_WORDS=60

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 ROOT [DIR...]" >&2
  exit 2
fi
ROOT=$1
shift
if [ $# -gt 0 ]; then
  DIRS=("$@")
elif [ -n "${BDT_DOC_DIRS:-}" ]; then
  read -r -a DIRS <<<"$BDT_DOC_DIRS"
else
  DIRS=(plugin/include/bdt engine_adapter/include/bdt)
fi

HEADERS=()
for dir in "${DIRS[@]}"; do
  if [ ! -d "$ROOT/$dir" ]; then
    echo "error: $ROOT/$dir is not a folder" >&2
    exit 2
  fi
  while IFS= read -r file; do
    HEADERS+=("$file")
  done < <(cd "$ROOT" && find "$dir" -name '*.h' -type f | LC_ALL=C sort)
done
if [ ${#HEADERS[@]} -eq 0 ]; then
  echo "error: no headers under ${DIRS[*]}" >&2
  exit 2
fi

failed=0
for header in "${HEADERS[@]}"; do
  awk -v path="$header" -v max_mean="$MAX_MEAN_LINES" -v max_words="$MAX_FIELD_WORDS" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    function words(s) { sub(/^[ \t]*\/\/\/<?/, "", s); return split(s, w_) }
    # Opens a block of one line at line n with the comment text c.
    function open_block(n, c) { blocks++; cur_start = n; cur_lines = 1; cur_words = words(c); lines_total++; words_total += cur_words }
    function add_line(c) { cur_lines++; lines_total++; w = words(c); cur_words += w; words_total += w }
    # Records the block at line n of nw words as documenting field `name` when it is one.
    function field(name, n, nw) {
      if (name == "") return
      if (nw > longest_words) { longest_words = nw; longest_name = name }
      if (nw > max_words) {
        printf "%s:%d: doc comment of field %s is %d words (limit %d)\n", path, n, name, nw, max_words
        bad++
      }
    }
    # Ends a trailing block (and its continuation lines), recording the member it documents.
    function close_trailing() { if (trailing) field(trailing_name, cur_start, cur_words); trailing = 0 }
    # The member a statement declares, or "" when it is not a data member (a function, a type, a using).
    function member_name(s, in_enum,   head, t) {
      s = trim(s)
      sub(/[ \t]*\/\/.*$/, "", s)
      if (s == "" || s == "{" || s ~ /^}/) return ""
      if (in_enum) {
        if (match(s, /^[A-Za-z_][A-Za-z_0-9]*/)) return substr(s, RSTART, RLENGTH)
        return ""
      }
      if (s !~ /;$/) return ""
      if (s ~ /^(using|typedef|friend|template|class|struct|enum|union|namespace|return|static_assert)([^A-Za-z_0-9]|$)/) return ""
      if (s ~ /(^|[^A-Za-z_0-9])operator([^A-Za-z_0-9]|$)/) return ""
      t = s
      while (t ~ /<[^<>]*>/) gsub(/<[^<>]*>/, "", t)
      head = t
      sub(/[={;].*$/, "", head)
      if (head ~ /\(/) return ""
      sub(/\[.*$/, "", head)
      head = trim(head)
      if (match(head, /[A-Za-z_][A-Za-z_0-9]*$/)) return substr(head, RSTART, RLENGTH)
      return ""
    }
    BEGIN { blocks = 0; lines_total = 0; words_total = 0; longest_words = 0; longest_name = "none"; bad = 0
            leading = 0; trailing = 0; pending = 0; stmt = ""; stmt_lines = 0; enum_next = 0; in_enum = 0 }
    {
      line = $0
      t = trim(line)
      if (substr(t, 1, 3) == "///") {
        if (trailing && substr(t, 1, 4) == "///<") { add_line(t); next }
        close_trailing()
        if (leading) add_line(t)
        else { open_block(NR, t); leading = 1; pending = 0 }
        next
      }
      close_trailing()
      if (leading) { leading = 0; pending = 1; stmt = ""; stmt_lines = 0; pend_start = cur_start; pend_words = cur_words }
      if (t == "" || substr(t, 1, 1) == "#") { pending = 0; next }
      if (substr(t, 1, 2) == "//" || substr(t, 1, 2) == "/*" || substr(t, 1, 1) == "*") next

      code = t
      comment = ""
      k = index(t, "///")
      if (k > 1) { code = trim(substr(t, 1, k - 1)); comment = substr(t, k) }

      # Enum tracking: the enumerators lie between the { and the } of an enum head.
      was_enum = in_enum
      if (code ~ /(^|[^A-Za-z_0-9])enum([^A-Za-z_0-9]|$)/ && code !~ /;$/) enum_next = 1
      if (enum_next && index(code, "{")) { enum_next = 0; in_enum = 1; was_enum = 0 }
      if (in_enum && was_enum && index(code, "}")) in_enum = 0

      if (pending) {
        stmt = (stmt == "" ? code : stmt " " code)
        stmt_lines++
        if ((code ~ /[;{},:]$/ && code !~ /=[ \t]*\{$/) || was_enum || stmt_lines >= 8) {
          field(member_name(stmt, was_enum), pend_start, pend_words)
          pending = 0
        }
      }
      if (comment != "") {
        open_block(NR, comment)
        trailing = 1
        trailing_name = member_name(code, was_enum && in_enum)
      }
    }
    END {
      close_trailing()
      mean_lines = blocks ? lines_total / blocks : 0
      mean_words = blocks ? words_total / blocks : 0
      printf "%s: %d blocks, mean %.2f lines, %.1f words, longest field %d words (%s)\n", path, blocks, mean_lines, mean_words, longest_words, longest_name
      if (mean_lines > max_mean + 1e-9) {
        printf "%s: mean doc-comment block is %.2f lines (limit %.1f)\n", path, mean_lines, max_mean
        bad++
      }
      exit bad ? 1 : 0
    }
  ' "$ROOT/$header" || failed=1
done

if [ $failed -ne 0 ]; then
  echo "FAILED: doc comments over the limits (mean block <= $MAX_MEAN_LINES lines, field <= $MAX_FIELD_WORDS words);" \
       "move the reasoning to docs/TUNING.md"
  exit 1
fi
echo "doc comments within the limits in ${#HEADERS[@]} headers"
