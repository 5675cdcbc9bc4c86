#!/bin/sh
# make_repo.sh DEST: builds the fixture repository of the generation tests in DEST (which must
# not exist): tests/newgen/repo's toolgen.yaml, plus the example tool that REUSE may pick and
# the data files the requests read, taken from this repository itself rather than kept as copies.
set -eu
[ $# -eq 1 ] && [ ! -e "$1" ] || { echo "usage: make_repo.sh DEST (DEST must not exist)" >&2; exit 2; }
mkdir -p "$1/manifests" "$1/data"
cp tests/newgen/repo/toolgen.yaml "$1/"
cp -r manifests/group_and_count_by_columns "$1/manifests/"
cp data/empty.csv data/penguins.csv data/tips.csv data/titanic.csv "$1/data/"
