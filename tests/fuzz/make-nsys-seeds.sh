#!/bin/sh
# Writes seed inputs for chokepoint_fuzz_nsys_sqlite into DIR (default: ./corpus-nsys):
# a small export built from nsys-seed.sql with the sqlite3 shell. Usage: make-nsys-seeds.sh [DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-corpus-nsys}
mkdir -p "$dir"
if ! command -v sqlite3 >/dev/null 2>&1; then
  echo "make-nsys-seeds.sh: the sqlite3 shell is not installed (apt-get install sqlite3); no seeds written" >&2
  exit 0
fi
rm -f "$dir/seed-3x.sqlite"
sqlite3 "$dir/seed-3x.sqlite" < "$here/nsys-seed.sql"
echo "$dir/seed-3x.sqlite"
