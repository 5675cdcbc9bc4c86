#!/bin/sh
# make install: the installed binary finds its data files under PREFIX/share/toolgen, from any
# working directory, with nothing from the source tree.
. tests/lib.sh

run make -s install PREFIX=/opt/tg DESTDIR="$TMP/root"
expect_rc "make install" 0
for f in bin/toolgen share/toolgen/schemas/tool.manifest.schema.json \
    share/toolgen/schemas/toolgen.config.schema.json \
    share/toolgen/schemas/meta/draft/2020-12/schema.json \
    share/toolgen/schemas/meta/draft/2020-12/meta/core.json share/man/man1/toolgen.1; do
    if [ -f "$TMP/root/opt/tg/$f" ]; then ok; else RC=0 OUT="" ERR=""; bad "installed $f"; fi
done

# Run the installed copy from elsewhere, on a copy of one example manifest.
mkdir -p "$TMP/work/manifests/preview_file_lines"
cp manifests/preview_file_lines/tool.manifest.yaml "$TMP/work/manifests/preview_file_lines/"
run sh -c "cd '$TMP/work' && env -u TOOLGEN_DATADIR '$TMP/root/opt/tg/bin/toolgen' lint"
expect_rc "installed toolgen lints" 0
run sh -c "cd '$TMP/work' && env -u TOOLGEN_DATADIR '$TMP/root/opt/tg/bin/toolgen' validate --schema '$TMP/root/opt/tg/share/toolgen/schemas/tool.manifest.schema.json' manifests/preview_file_lines/tool.manifest.yaml"
expect_rc "installed toolgen validates against the bundled meta-schema" 0

finish cli-install
