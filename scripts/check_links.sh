#!/usr/bin/env bash
# Checks that every relative link in the Markdown files resolves: the file or folder exists and,
# for a link with a `#fragment` into a Markdown file, one of that file's headings has that
# GitHub anchor. Links in fenced code blocks and code spans are not links; `http:`, `https:`
# and `mailto:` links are not checked. Needs only bash, git, awk, sed, grep and tr.
# Usage: scripts/check_links.sh [FILE.md...]   (default: every Markdown file git tracks)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.md')
fi

# The text of a Markdown file outside fenced code blocks, each line prefixed by its number.
prose() {
  awk '/^ *(```|~~~)/ { fence = !fence; next } !fence { print NR "\t" $0 }' "$1"
}

# The GitHub anchors of a Markdown file's headings, one per line (a repeated heading gets -1, -2).
anchors() {
  prose "$1" | cut -f2- | grep -E '^#{1,6} ' \
    | sed -E 's/^#+ +//; s/ +#+ *$//' \
    | LC_ALL=C.UTF-8 sed -E 's/[^[:alnum:] _-]//g' \
    | tr 'A-Z ' 'a-z-' \
    | awk '{ if (seen[$0]++) print $0 "-" (seen[$0] - 1); else print }'
}

# "LINE<TAB>TARGET" for every inline link `[text](target)` and reference definition `[x]: target`.
links() {
  prose "$1" | awk -F'\t' '{
    line = $2
    gsub(/`[^`]*`/, "", line)
    if (match(line, /^ *\[[^]]+\]: +[^ ]+/)) {
      def = substr(line, RSTART, RLENGTH); sub(/^ *\[[^]]+\]: +/, "", def); print $1 "\t" def
    }
    while (match(line, /\]\([^) \t]+/)) {
      print $1 "\t" substr(line, RSTART + 2, RLENGTH - 2)
      line = substr(line, RSTART + RLENGTH)
    }
  }'
}

bad=0
checked=0
for file in "${files[@]}"; do
  dir=$(dirname "$file")
  while IFS=$'\t' read -r line target; do
    target=${target#<}
    target=${target%>}
    case $target in
      http:* | https:* | mailto:*) continue ;;
    esac
    checked=$((checked + 1))
    path=${target%%#*}
    fragment=""
    [[ $target == *#* ]] && fragment=${target#*#}
    if [ -z "$path" ]; then
      resolved=$file
    elif [[ $path == /* ]]; then
      resolved=.$path
    else
      resolved=$dir/$path
    fi
    if [ ! -e "$resolved" ]; then
      echo "$file:$line: broken link \`$target\`: $resolved does not exist" >&2
      bad=$((bad + 1))
    elif [ -n "$fragment" ] && [[ $resolved == *.md ]] && ! anchors "$resolved" | grep -qxF -- "$fragment"; then
      echo "$file:$line: broken link \`$target\`: $resolved has no heading with the anchor #$fragment" >&2
      bad=$((bad + 1))
    fi
  done < <(links "$file")
done

echo "checked $checked relative links in ${#files[@]} Markdown files: $bad broken"
[ "$bad" -eq 0 ]
