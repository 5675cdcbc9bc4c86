#!/bin/sh
# The suite needs nothing outside the repository: no test, test script or Makefile rule refers
# to a folder beside the checkout (as a shared test-data folder once was), and the test data the
# tests read is in tests/testdata/ (tests/testdata/README.md).
. tests/lib.sh

# The pattern is assembled so that this script does not match itself.
beside="shared"
hits=$(grep -rnE "\.\./$beside|/$beside/" tests Makefile --exclude-dir=node_modules 2>/dev/null |
    grep -v '^tests/cli/selfcontained\.sh:')
RC=0 OUT="$hits" ERR=""
expect_eq "no test refers to ../$beside or /$beside/" "$hits" ""

for f in tests/testdata/json-schema-test-suite/tests/draft2020-12/type.json \
    tests/testdata/json-schema-test-suite/remotes/draft2020-12/subSchemas.json \
    tests/testdata/json-schema-test-suite/LICENSE \
    tests/testdata/mcp-schema/2025-11-25/schema.json tests/testdata/mcp-schema/LICENSE; do
    if [ -f "$f" ]; then ok; else RC=1 OUT="" ERR="" && bad "test data $f is missing"; fi
done

# The defaults of tests/run.sh point into the repository.
run grep -E '^: "\$\{(JSTS_DIR|TESTDATA_DIR):=tests/testdata' tests/run.sh
expect_rc "tests/run.sh defaults to tests/testdata" 0
expect_eq "both defaults" "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" "2"

finish cli-selfcontained
